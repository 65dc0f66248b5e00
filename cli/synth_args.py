"""``make synth``'s command line, read before anything else loads: ``--help`` and usage errors end
before the configuration imports and before Node.js starts (``cli/synth.py``)."""

from __future__ import annotations

import argparse


def parse_args(argv: list[str] | None = None, *, description: str | None = None) -> argparse.Namespace:
    """The paths not given are ``None``; ``cli.synth`` puts them in the checkout."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--env", help="environment name (environments/<name>.yaml); default dev")
    parser.add_argument("--config", help="path of an environment file (overrides --env)")
    parser.add_argument(
        "--run-id", default="", help="run id of an ephemeral environment (see policy/environment/runs.py)"
    )
    parser.add_argument("--admin-arn", action="append", default=[], help="extra cluster admin for the run")
    parser.add_argument("--cdk-out", help="CloudFormation output directory; default cdk.out/ in the checkout")
    parser.add_argument("--dist", help="Kubernetes YAML output root; default dist/ in the checkout")
    parser.add_argument("--teams", help="team run files (<team>/<run>.yaml); default teams/ in the checkout")
    return parser.parse_args(argv)
