"""``make settings``: regenerate ``docs/reference/settings.md``, the settings of every file a user writes.

One section per kind of file (environment, team entry, run, mix), generated from the models by
``config.reference``; the mix model is the simulation's, so the document is composed here.
``--check`` exits 1 when the committed file differs from a fresh one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from config.load import REPO_ROOT
from config.reference import CONFIG_SECTIONS, Section, reference_markdown
from config.settings_links import SETTINGS_REFERENCE
from simulation.mix.model import MixConfig

MIX_FILES = Section(
    "Mix files",
    MixConfig,
    "`mixes/<name>.yaml` (`make simulate MIX=<name>`, `make loadtest MIX=<name>`): the expected job mix of an "
    "environment, for the what-if simulation and the load test.",
)
SECTIONS = (*CONFIG_SECTIONS, MIX_FILES)


def reference() -> str:
    return reference_markdown(SECTIONS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {SETTINGS_REFERENCE}")
    parser.add_argument("--check", action="store_true", help=f"exit 1 when {SETTINGS_REFERENCE} is stale")
    args = parser.parse_args(argv)
    target = REPO_ROOT / SETTINGS_REFERENCE
    text = reference()
    if args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != text:
            print(f"error: {SETTINGS_REFERENCE}: stale; fix: run make settings", file=sys.stderr)
            return 1
        return 0
    if args.write:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"settings: wrote {SETTINGS_REFERENCE}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
