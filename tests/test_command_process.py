"""A command's own process (``cli.warm.run_command``): the garbage collector waits for its imports."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli.warm import imports_loaded
from config.load import REPO_ROOT

_COMMAND = """
import gc, json
from cli.warm import imports_loaded, run_command

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


def _python(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``script`` run by a fresh interpreter in the repository, as a command's own process."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=REPO_ROOT,
        env=os.environ | {"PYTHONPATH": str(REPO_ROOT)} | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_command_collects_from_its_imports_on_and_leaves_the_imported_out() -> None:
    done = _python(_COMMAND)
    assert done.returncode == 3, done.stderr  # the command's own exit code, through exit_now
    seen = json.loads(done.stdout)
    assert (seen["importing"], seen["after"]) == (False, True)
    assert seen["collections_importing"] == 0 and seen["collections_after"] > 0
    assert seen["frozen_before"] == 0 and seen["frozen_after"] > 50_000  # the imports' objects (about 100,000)


def test_outside_a_command_imports_loaded_changes_nothing() -> None:
    """A test calling a command's ``main`` keeps its process's collector as it was."""
    frozen = gc.get_freeze_count()
    imports_loaded()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


# Runs command argv[1] as its own process does, reporting on stderr whether the collector is on
# when it renders (charts.render's functions, wrapped as it is imported) and when it builds the CDK app.
_PROBED_COMMAND = """
import gc, importlib.abc, importlib.util, runpy, sys

def probed(name, function):
    def call(*args, **kwargs):
        print(f"collector {name}: {gc.isenabled()}", file=sys.stderr, flush=True)
        return function(*args, **kwargs)
    return call

class Probe(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in ("charts.render", "stacks.app_options"):
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        sys.meta_path.insert(0, self)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            for name in ("render_checked", "render_environment", "new_app"):
                if hasattr(module, name):
                    setattr(module, name, probed(name, getattr(module, name)))
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Probe())
command, *sys.argv[1:] = sys.argv[1:]
runpy.run_module(command, run_name="__main__", alter_sys=True)
"""


@pytest.mark.synth
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cli.render", ["render_checked", "render_environment"]),
        ("cli.check", ["render_environment"]),
        ("cli.synth", ["render_checked", "render_environment", "new_app"]),  # the forked renderer, the synthesis
        ("app", ["render_checked", "render_environment", "new_app"]),  # cdk synth through cdk.json, the same way
    ],
)
def test_each_command_renders_and_synthesizes_with_the_collector_on(
    command: str, expected: list[str], tmp_path: Path
) -> None:
    dev = ["--env", "dev"]
    arguments = {
        "cli.render": [*dev, "--dist", str(tmp_path / "dist")],
        "cli.check": dev,
        "cli.synth": [*dev, "--dist", str(tmp_path / "dist"), "--cdk-out", str(tmp_path / "cdk.out")],
        "app": [],  # the CDK CLI's way: CDK_OUTDIR and CDK_CONTEXT_JSON
    }[command]
    cdk_cli = {"CDK_OUTDIR": str(tmp_path / "cdk.out"), "CDK_CONTEXT_JSON": '{"env": "dev"}'}
    done = _python(_PROBED_COMMAND, command, *arguments, env=cdk_cli)
    assert done.returncode == 0, done.stderr
    seen = sorted(line for line in done.stderr.splitlines() if line.startswith("collector "))
    assert seen == sorted(f"collector {name}: True" for name in expected)
