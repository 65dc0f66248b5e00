"""``make render``: write ``dist/<env>/`` (Kubernetes YAML and SUMMARY.md) without aws-cdk-lib.

Fast enough to run on every save; ``make synth`` runs it too. Output is staged and
swapped in only when rendering succeeded.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import charts
from accelerator.pause_gc_and_exit import imports_loaded, run_command
from accelerator.runtime import import_in_background
from cli.output import replace_dir_on_success

if TYPE_CHECKING:
    from charts.render import RenderedEnvironment
    from config.model import EnvironmentConfig


def write_dist(env: EnvironmentConfig, dist_root: Path, rendered: RenderedEnvironment) -> Path:
    """Replace ``dist_root/<env>/`` with ``rendered``'s files (the caller says its notes)."""
    from charts.render import output_files

    files = output_files(env, rendered)
    target = dist_root / env.name
    with replace_dir_on_success(target) as staging:
        for relative, text in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return target


def note_lines(rendered: RenderedEnvironment) -> list[str]:
    """A ``warning:`` line per run setting rendered without effect."""
    return [f"warning: {note}" for note in rendered.notes]


def main(argv: list[str] | None = None, *, fast_path: bool = False) -> int:
    """``fast_path``: jsii's fast path, for the command's own process (``accelerator.runtime.import_in_background``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", help="environment name; default dev")
    parser.add_argument("--config", help="path of an environment file (overrides --env)")
    parser.add_argument("--dist", help="output root; default dist/")
    parser.add_argument("--teams", help="directory of team run files (<team>/<run>.yaml); default teams/")
    args = parser.parse_args(argv)  # --help and usage errors end here, before Node.js starts
    # The jsii Node.js process boots while the configuration imports below load (the accelerator's early kernel).
    import_in_background(charts.JSII_MODULES, fast_path=fast_path)
    from config.errors import ConfigError
    from config.load import REPO_ROOT
    from policy.environment.load import load_environment

    try:
        env = load_environment(name=args.env or None, path=args.config or None)
        runs = None
        if args.teams:  # read (and a bad run file refused) before cdk8s's bindings import
            from policy.environment.teams import load_team_runs

            runs = load_team_runs(env, teams_dir=Path(args.teams))
        from charts.render import render_checked

        imports_loaded()
        rendered = render_checked(env, team_runs=runs, config_file=args.config or None)
    except ConfigError as error:
        return error.report()
    for line in note_lines(rendered):
        print(line, file=sys.stderr)
    target = write_dist(env, Path(args.dist) if args.dist else REPO_ROOT / "dist", rendered)
    print(f"rendered {env.name}: {target}")
    return 0


if __name__ == "__main__":
    run_command(lambda: main(fast_path=True))
