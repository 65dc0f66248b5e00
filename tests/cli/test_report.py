"""How preflight, verify, smoke and make check report: a table, JSON, and the exit code."""

from __future__ import annotations

import json

from cli.report import as_json, exit_code, first_line, table
from policy.results import Check, Status

OK = Check("gates", "dev", Status.OK, "3 objects checked")
WARN = Check("scale-up", "vision/sweep", Status.WARN, "waits for a scale-up", "raise min_size")
FAIL = Check("capacity", "llm/pretrain", Status.FAIL, "needs 16 nodes, 4 reachable", "raise max_size to 16")


def test_a_failure_fails_and_a_warning_does_not() -> None:
    assert exit_code([OK, WARN]) == 0
    assert exit_code([OK, WARN, FAIL]) == 1


def test_the_table_prints_each_fix_under_its_finding() -> None:
    lines = table([OK, FAIL]).splitlines()
    assert lines[0].split() == ["CHECK", "SUBJECT", "STATUS", "DETAIL"]
    assert lines[1].split()[:3] == ["gates", "dev", "OK"]
    assert lines[2].split()[:3] == ["capacity", "llm/pretrain", "FAIL"]
    assert lines[3].strip() == "fix: raise max_size to 16"
    assert len(lines) == 4  # the ok line has no fix


def test_json_says_whether_all_is_well_and_keeps_every_check() -> None:
    report = json.loads(as_json({"environment": "dev"}, [OK, FAIL]))
    assert report["environment"] == "dev" and report["ok"] is False
    assert [c["status"] for c in report["checks"]] == ["ok", "fail"]


def test_an_error_is_one_line() -> None:
    assert first_line(RuntimeError("first\nsecond")) == "first"
    assert first_line(RuntimeError("")) == "RuntimeError"
