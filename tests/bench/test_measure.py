"""Timing a command to the end of its whole process tree.

``run_tree`` reaps every child of its process, so it runs in a process of its own here (the test
process has children of its own: the jsii runtime).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.measure import python_command
from config.load import REPO_ROOT

_PROBE = """
import dataclasses, json, sys
from bench.measure import CommandFailed, become_subreaper, run_tree
subreaper = become_subreaper() if sys.argv[1] == "subreaper" else False
sample = run_tree(["/bin/sh", "-c", "sleep 0.5 & exit 0"], env={})
try:
    run_tree(["/bin/sh", "-c", "echo one >&2; echo two >&2; echo three >&2; echo four >&2; exit 3"], env={})
    failure = None
except CommandFailed as failed:
    failure = str(failed)
print(json.dumps({"subreaper": subreaper, "sample": dataclasses.asdict(sample), "failure": failure}))
"""


def _probe(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_subreaper_waits_for_what_the_command_left_running() -> None:
    result = _probe("subreaper")
    assert result["subreaper"] is True
    sample = result["sample"]
    assert isinstance(sample, dict)
    assert sample["command_seconds"] < 0.5 <= sample["seconds"]
    assert sample["processes"] == 2  # the shell and the sleep it left behind


def test_without_a_subreaper_the_orphan_is_not_timed() -> None:
    sample = _probe("plain")["sample"]
    assert isinstance(sample, dict)
    assert sample["seconds"] < 0.5
    assert sample["processes"] == 1


def test_a_failing_command_names_its_exit_code_and_last_three_stderr_lines() -> None:
    assert _probe("plain")["failure"] == (
        "/bin/sh -c echo one >&2; echo two >&2; echo three >&2; echo four >&2; exit 3 exited 3: two / three / four"
    )


def test_python_command_turns_paths_into_arguments() -> None:
    assert python_command("/usr/bin/python3", "-m", Path("/tmp/x")) == ["/usr/bin/python3", "-m", "/tmp/x"]
