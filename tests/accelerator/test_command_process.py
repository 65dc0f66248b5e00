"""A command's own process (``accelerator.pause_gc_and_exit.run_command``, the accelerator on): the
garbage collector waits for its imports."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from accelerator import SWITCH
from accelerator.pause_gc_and_exit import imports_loaded
from config.load import REPO_ROOT
from tests.collector_probe import collector_states, paused_for_imports, probed_environment

_COMMAND = """
import gc, json
from accelerator.pause_gc_and_exit import imports_loaded, run_command

def collections_while_allocating():
    # the collections the collector starts by itself while 100,000 containers are made
    before = sum(generation["collections"] for generation in gc.get_stats())
    kept = [[] for _ in range(100_000)]  # noqa: F841 - alive until counted
    return sum(generation["collections"] for generation in gc.get_stats()) - before

def main():
    seen = {"importing": gc.isenabled(), "frozen_before": gc.get_freeze_count()}
    seen["collections_importing"] = collections_while_allocating()
    import charts.render  # noqa: F401 - what a command imports before it renders
    imports_loaded()
    seen |= {"after": gc.isenabled(), "frozen_after": gc.get_freeze_count()}
    seen["collections_after"] = collections_while_allocating()
    print(json.dumps(seen), flush=True)
    return 3

run_command(main)
"""


def _python(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by a fresh interpreter in the repository, as a command's own process."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=REPO_ROOT,
        env=os.environ | {"PYTHONPATH": str(REPO_ROOT), SWITCH: "on"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_command_collects_from_its_imports_on_and_leaves_the_imported_out() -> None:
    done = _python(_COMMAND)
    assert done.returncode == 3, done.stderr  # the command's own exit code
    seen = json.loads(done.stdout)
    assert (seen["importing"], seen["after"]) == (False, True)
    assert seen["collections_importing"] == 0 and seen["collections_after"] > 0
    assert seen["frozen_before"] == 0 and seen["frozen_after"] > 50_000  # the imports' objects (about 100,000)


def test_outside_a_command_imports_loaded_changes_nothing() -> None:
    """A test calling a command's ``main`` keeps its process's collector as it was."""
    frozen = gc.get_freeze_count()
    imports_loaded()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


@pytest.mark.synth
@pytest.mark.parametrize(
    ("command", "calls"),
    [
        (["-m", "cli.render", "--env", "dev"], ("render_checked", "render_environment")),
        (["-m", "cli.check", "--env", "dev"], ("render_environment",)),
    ],
)
def test_each_command_imports_with_the_collector_off_and_renders_with_it_on(
    command: list[str], calls: tuple[str, ...], tmp_path: Path
) -> None:
    """The command as users run it, with the probe (``tests/collector_probe``) loaded into its process.
    ``make synth`` (both of its processes) and ``cdk synth``'s app are probed where
    ``tests/cli/test_synth.py`` runs them already."""
    log = tmp_path / "collector.log"
    outputs = ["--dist", str(tmp_path / "dist")] if command[1] == "cli.render" else []
    done = subprocess.run(
        [sys.executable, *command, *outputs],
        cwd=REPO_ROOT,
        env=os.environ | probed_environment(log) | {SWITCH: "on"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert collector_states(log) == paused_for_imports(imports=("cdk8s_plus_37",), calls=calls)
