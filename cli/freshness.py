"""Fail when the committed ``dist/`` differs from a fresh render of the shipped environments."""

from __future__ import annotations

import filecmp
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from config.errors import ConfigError
from config.load import REPO_ROOT
from policy.environment.load import load_environment


def stale_files(names: list[str], committed_root: Path) -> list[str]:
    """Relative paths that are missing, extra or different in ``committed_root`` for ``names``."""
    from charts.render import render_checked
    from cli.render import write_dist

    stale: list[str] = []
    with tempfile.TemporaryDirectory() as fresh_root:
        for name in names:
            env = load_environment(name=name)
            write_dist(env, Path(fresh_root), render_checked(env))
            stale += _compare(Path(fresh_root) / name, committed_root / name, name)
    return stale


def _compare(fresh: Path, committed: Path, prefix: str) -> list[str]:
    if not committed.is_dir():
        return [f"{prefix}/ (missing)"]
    diff = filecmp.dircmp(fresh, committed)
    out = [f"{prefix}/{n}" for n in (*diff.left_only, *diff.right_only, *diff.diff_files, *diff.funny_files)]
    for sub in diff.common_dirs:
        out += _compare(fresh / sub, committed / sub, f"{prefix}/{sub}")
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    names = argv if argv is not None else sys.argv[1:]
    try:
        stale = stale_files(names, REPO_ROOT / "dist")
    except ConfigError as error:
        return error.report()
    if stale:
        print(
            f"error: dist/ is stale ({', '.join(stale)}); fix: run `make render-all` and commit dist/", file=sys.stderr
        )
        return 1
    print(f"dist/ is fresh for {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
