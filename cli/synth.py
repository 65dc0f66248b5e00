"""``make synth``: validate the environment, then write ``cdk.out/`` and ``dist/<env>/``.

Both outputs are staged and swapped in only when everything succeeded, so a bad
configuration or a failed synthesis leaves the last good output untouched.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from cli.output import replace_dir_on_success
from config import ConfigError, EnvironmentConfig, load_environment
from config.load import REPO_ROOT


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", help="environment name (environments/<name>.yaml); default dev")
    parser.add_argument("--config", help="path of an environment file (overrides --env)")
    parser.add_argument("--cdk-out", default=str(REPO_ROOT / "cdk.out"), help="CloudFormation output directory")
    parser.add_argument("--dist", default=str(REPO_ROOT / "dist"), help="Kubernetes YAML output root")
    return parser.parse_args(argv)


def load(args: argparse.Namespace) -> EnvironmentConfig:
    return load_environment(name=args.env or None, path=args.config or None)


def synth_cloudformation(env: EnvironmentConfig, outdir: Path) -> None:
    from aws_cdk import App

    from app import build

    app = App(outdir=str(outdir))
    build(app, env)
    app.synth()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        env = load(args)
    except ConfigError as error:
        print(f"error: {error.line()}", file=sys.stderr)
        return 2
    with replace_dir_on_success(Path(args.cdk_out)) as staging:
        synth_cloudformation(env, staging)
    print(f"synthesized {env.name}: {args.cdk_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
