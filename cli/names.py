"""``make names``: a run's physical names as ``key=value`` lines (or JSON), for pipelines.

``make -s names ENV=ci RUN_ID=gh42-1 >> "$GITHUB_OUTPUT"`` gives later steps the stack,
cluster and region of that run without repeating the naming rules.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from cli.environment_args import add_environment_args, load_selected
from config.errors import ConfigError
from config.model import EnvironmentConfig


def run_names(env: EnvironmentConfig) -> dict[str, str]:
    from stacks.cluster_stack import stack_name

    names = {
        "environment": env.tags.get("environment", env.name),
        "stack": stack_name(env),
        "cluster": env.cluster.name,
        "region": env.region,
        "run_id": env.tags.get("run-id", ""),
    }
    if env.ephemeral is not None:
        names["ttl_hours"] = str(env.ephemeral.ttl_hours)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    add_environment_args(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of key=value lines")
    args = parser.parse_args(argv)
    try:
        names = run_names(load_selected(args))
    except ConfigError as error:
        return error.report()
    print(json.dumps(names, sort_keys=True) if args.json else "\n".join(f"{k}={v}" for k, v in names.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
