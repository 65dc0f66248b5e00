"""``make synth``: validate the environment, then write ``cdk.out/`` and ``dist/<env>/``.

Both outputs are staged and swapped in only when everything succeeded, so a bad
configuration or a failed synthesis leaves the last good output untouched.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from cli.output import replace_dir_on_success
from config import ConfigError, EnvironmentConfig, load_environment
from config.load import REPO_ROOT

if TYPE_CHECKING:
    from charts.render import RenderedEnvironment


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", help="environment name (environments/<name>.yaml); default dev")
    parser.add_argument("--config", help="path of an environment file (overrides --env)")
    parser.add_argument("--run-id", default="", help="run id of an ephemeral environment (see config/runs.py)")
    parser.add_argument("--admin-arn", action="append", default=[], help="extra cluster admin for the run")
    parser.add_argument("--cdk-out", default=str(REPO_ROOT / "cdk.out"), help="CloudFormation output directory")
    parser.add_argument("--dist", default=str(REPO_ROOT / "dist"), help="Kubernetes YAML output root")
    return parser.parse_args(argv)


def load(args: argparse.Namespace) -> EnvironmentConfig:
    from config.runs import for_run

    env = load_environment(name=args.env or None, path=args.config or None)
    return for_run(env, run_id=args.run_id or None, admin_arns=tuple(args.admin_arn))


def synth_cloudformation(env: EnvironmentConfig, outdir: Path, rendered: RenderedEnvironment | None = None) -> None:
    from aws_cdk import App

    from app import build

    app = App(outdir=str(outdir))
    build(app, env, rendered)
    app.synth()


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        env = load(args)
    except ConfigError as error:
        return error.report()
    from charts.render import render_checked
    from cli.render import write_dist

    try:
        rendered = render_checked(env)  # fails fast, before the slower CloudFormation synthesis
        with replace_dir_on_success(Path(args.cdk_out)) as staging:
            synth_cloudformation(env, staging, rendered)
            write_dist(env, Path(args.dist), rendered)
    except ConfigError as error:
        return error.report()
    except Exception as error:  # jsii reports synthesis failures (cdk-nag, validation) as runtime errors
        print(f"error: synthesis of {env.name} failed: {_first_line(error)}", file=sys.stderr)
        return 1
    print(f"synthesized {env.name}: {args.cdk_out} and {Path(args.dist) / env.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
