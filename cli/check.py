"""``make check``: gate consistency and static deadlock checks over one environment's rendered objects.

Prints a table for people (or ``--json`` for machines); exit 1 on any error, 0 with
warnings only, 2 on bad configuration.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import charts
from accelerator.pause_gc_and_exit import imports_loaded, run_command
from accelerator.runtime import import_in_background


def main(argv: list[str] | None = None, *, fast_path: bool = False) -> int:
    """``fast_path``: jsii's fast path, for the command's own process (``accelerator.runtime.import_in_background``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", help="environment name; default dev")
    parser.add_argument("--config", help="path of an environment file (overrides --env)")
    parser.add_argument("--json", action="store_true", help="machine-readable report")
    parser.add_argument("--teams", help="directory of team run files (<team>/<run>.yaml); default teams/")
    args = parser.parse_args(argv)  # --help and usage errors end here, before Node.js starts
    # The jsii Node.js process boots while the configuration imports below load (the accelerator's early kernel).
    import_in_background(charts.JSII_MODULES, fast_path=fast_path)
    from config.errors import ConfigError
    from policy.environment.load import load_environment

    try:
        env = load_environment(name=args.env or None, path=args.config or None)
        from charts.render import render_environment
        from policy.environment.teams import load_team_runs

        imports_loaded()
        runs = load_team_runs(env, teams_dir=Path(args.teams)) if args.teams else None
        objects = render_environment(env, team_runs=runs).all_objects()
    except ConfigError as error:
        return error.report()
    from cli.report import render
    from policy.checks.suite import run_checks
    from policy.results import failed

    checks = run_checks(env, objects)
    print(
        render(
            {"environment": env.name, "objects": len(objects)},
            checks,
            json_output=args.json,
            heading=f"check {env.name}: {len(objects)} rendered objects",
        )
    )
    return 1 if failed(checks) else 0


if __name__ == "__main__":
    run_command(lambda: main(fast_path=True))
