"""``make simulate ENV=<env> MIX=<mix> [SEED=] [HOURS=]``: what-if simulation of a job mix.

Writes ``reports/<env>/<mix>/`` (``REPORT.md`` with plots, ``report.json``); the same seed
gives the same report. Exit 2 with one line on bad configuration or a bad mix.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cli.environment_args import add_environment_args, load_selected
from config.errors import ConfigError
from config.load import REPO_ROOT

REPORTS_DIR = REPO_ROOT / "reports"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_environment_args(parser)
    parser.add_argument("--mix", help="mix name (mixes/<name>.yaml) or path; default: the environment's name")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--hours", type=float, help="simulated hours (default: the mix's hours)")
    parser.add_argument("--out", help="report directory (default reports/<env>/<mix>/)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    from simulation.mix.load import load_mix, mix_path

    try:
        env = load_selected(args)
        name = args.mix or env.name
        file = Path(name) if name.endswith((".yaml", ".yml")) else mix_path(name)
        mix = load_mix(env, path=file)
        if args.hours is not None and args.hours <= 0:
            raise ConfigError("--hours", args.hours, "not a positive number of hours", "pass e.g. HOURS=24")
        from simulation.whatif import what_if, write_report

        hours = args.hours if args.hours is not None else mix.hours
        with _progress(hours, quiet=args.quiet) as tick:
            report = what_if(
                env, mix, mix_name=file.stem, mix_dir=file.parent, seed=args.seed, hours=hours, progress=tick
            )
    except ConfigError as error:
        return error.report()
    out = Path(args.out) if args.out else REPORTS_DIR / env.name / file.stem
    written = write_report(report, out)
    gang = report["modes"]["gangs"]
    started = sum(r["scheduled"] for r in gang["gang_podgroup_time_to_scheduled_seconds"])
    print(f"simulate {env.name}/{file.stem} seed {args.seed}: {gang['groups']} gangs, {started} started; {written[0]}")
    return 0


@contextmanager
def _progress(hours: float, *, quiet: bool) -> Iterator[Callable[[object, float], None]]:
    """A tqdm bar over simulated hours of both runs; off with ``--quiet`` or when stderr is no terminal."""
    from tqdm import tqdm

    bar = tqdm(total=round(2 * hours, 1), unit="h", disable=True if quiet else None, file=sys.stderr)
    done = [0.0]

    def tick(mode: object, seconds: float) -> None:
        position = round((0.0 if str(mode) == "gangs" else hours) + seconds / 3600, 1)
        bar.update(max(0.0, position - done[0]))
        done[0] = max(done[0], position)

    try:
        yield tick
    finally:
        bar.close()


if __name__ == "__main__":
    sys.exit(main())
