"""The environment selection every command shares: ``--env``/``--config`` plus a run's ``--run-id``."""

from __future__ import annotations

import argparse

from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from policy.environment.runs import for_run


def add_environment_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", help="environment name (environments/<name>.yaml); default dev")
    parser.add_argument("--config", help="path of an environment file (overrides --env)")
    parser.add_argument("--run-id", default="", help="run id of an ephemeral environment (names stacks and cluster)")
    parser.add_argument(
        "--admin-arn",
        action="append",
        default=[],
        help="extra cluster admin for this run (IAM role ARN; repeatable; needs --run-id)",
    )


def load_selected(args: argparse.Namespace) -> EnvironmentConfig:
    """Load the environment and derive the run's copy; raises ``ConfigError`` on bad input."""
    env = load_environment(name=args.env or None, path=args.config or None)
    return for_run(env, run_id=args.run_id or None, admin_arns=tuple(args.admin_arn))
