"""A command's own process (``cli.warm.run_command``): the garbage collector waits for its imports."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap

from cli.warm import imports_loaded
from config.load import REPO_ROOT

_COMMAND = """
import gc, json
from cli.warm import imports_loaded, run_command

def main():
    seen = {"importing": gc.isenabled(), "frozen_before": gc.get_freeze_count()}
    import charts.render  # noqa: F401 - what a command imports before it renders
    imports_loaded()
    seen |= {"after": gc.isenabled(), "frozen_after": gc.get_freeze_count()}
    garbage = []
    garbage.append(garbage)  # a cycle made after the imports
    del garbage
    seen["collected"] = gc.collect() > 0
    print(json.dumps(seen), flush=True)
    return 3

run_command(main)
"""


def test_a_command_collects_from_its_imports_on_and_leaves_the_imported_out() -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_COMMAND)],
        cwd=REPO_ROOT,
        env=os.environ | {"PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 3, done.stderr  # the command's own exit code, through exit_now
    seen = json.loads(done.stdout)
    assert (seen["importing"], seen["after"], seen["collected"]) == (False, True, True)
    assert seen["frozen_before"] == 0 and seen["frozen_after"] > 50_000  # the imports' objects (about 100,000)


def test_outside_a_command_imports_loaded_changes_nothing() -> None:
    """A test calling a command's ``main`` keeps its process's collector as it was."""
    frozen = gc.get_freeze_count()
    imports_loaded()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
