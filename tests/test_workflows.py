"""The pipeline examples are real workflows: valid YAML, the expected shape, and only existing make targets."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from config.load import REPO_ROOT
from tests.helpers import yaml_files

WORKFLOWS = REPO_ROOT / ".github" / "workflows"
MAKE_CALL = re.compile(r"(?:^|[;&|(]\s*|\s)make\s+((?:-\S+\s+)*)([A-Za-z0-9_.-]+)")
TARGET_LINE = re.compile(r"^([A-Za-z0-9_.-][A-Za-z0-9_. -]*?)\s*:(?![=:])", re.MULTILINE)


def makefile_targets(text: str) -> set[str]:
    """Explicit targets of a Makefile (``name: deps``), not variable assignments (``NAME := ...``)."""
    targets: set[str] = set()
    for match in TARGET_LINE.finditer(text):
        targets |= {t for t in match.group(1).split() if not t.startswith((".", "$"))}
    return targets


def workflow(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml_files.load((WORKFLOWS / name).read_text())
    return loaded


def triggers(data: dict[str, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the bare key ``on`` as the boolean True.
    found: dict[str, Any] = data.get("on", data.get(True))
    return found


def steps(data: dict[str, Any], job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = data["jobs"][job]["steps"]
    return found


def make_targets_called(data: dict[str, Any]) -> list[str]:
    calls = []
    for job in data["jobs"].values():
        for step in job["steps"]:
            for _, target in MAKE_CALL.findall(step.get("run", "")):
                calls.append(target)
    return calls


def step_running(data: dict[str, Any], job: str, target: str) -> dict[str, Any]:
    (step,) = [s for s in steps(data, job) if target in make_targets_called({"jobs": {"j": {"steps": [s]}}})]
    return step


def test_makefile_targets_are_parsed() -> None:
    targets = makefile_targets((REPO_ROOT / "Makefile").read_text())
    assert {"synth", "test", "deploy", "destroy", "preflight", "verify", "smoke", "names", "cfn-lint"} <= targets
    assert "SELECT" not in targets and "ENV" not in targets


@pytest.mark.parametrize("name", ["pull-request.yml", "ci-cluster.yml"])
def test_workflow_shape(name: str) -> None:
    data = workflow(name)
    assert isinstance(data["name"], str) and triggers(data)
    assert data["jobs"]
    for job_name, job in data["jobs"].items():
        assert job["runs-on"] == "ubuntu-latest", job_name
        assert job["steps"], job_name
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), step


@pytest.mark.parametrize("name", ["pull-request.yml", "ci-cluster.yml"])
def test_every_make_target_a_workflow_calls_exists(name: str) -> None:
    targets = makefile_targets((REPO_ROOT / "Makefile").read_text())
    called = make_targets_called(workflow(name))
    assert called
    assert sorted(set(called) - targets) == []


def test_pull_request_runs_the_whole_gate() -> None:
    data = workflow("pull-request.yml")
    assert "pull_request" in triggers(data)
    assert data["permissions"] == {"contents": "read"}
    gate = make_targets_called({"jobs": {"quality-gate": data["jobs"]["quality-gate"]}})
    assert gate == ["install", "lint", "typecheck", "pytest", "freshness"]
    synth = make_targets_called({"jobs": {"synth": data["jobs"]["synth"]}})
    assert synth == ["install", "synth", "cfn-lint"]
    assert data["jobs"]["synth"]["strategy"]["matrix"]["env"] == "${{ fromJSON(needs.environments.outputs.names) }}"


def test_ci_cluster_is_opt_in_and_always_destroys() -> None:
    data = workflow("ci-cluster.yml")
    on = triggers(data)
    assert "workflow_dispatch" in on
    assert on["pull_request"]["types"] == ["labeled", "synchronize"]
    job = data["jobs"]["cluster"]
    assert "'ci-cluster'" in job["if"] and "workflow_dispatch" in job["if"]
    assert data["env"]["RUN_ID"] == "gh${{ github.run_id }}-${{ github.run_attempt }}"
    assert make_targets_called(data) == ["install", "names", "preflight", "deploy", "verify", "smoke", "destroy"]
    assert step_running(data, "cluster", "destroy")["if"] == "always()"
    for target in ("preflight", "deploy", "verify", "smoke", "destroy"):
        assert 'RUN_ID="$RUN_ID"' in step_running(data, "cluster", target)["run"], target
    assert data["permissions"] == {"contents": "read", "id-token": "write"}


def make_dry_run(run: str, shell_vars: dict[str, str]) -> list[str]:
    """The commands ``make`` would run for a workflow step's ``make`` call (``make -n``), one per line."""
    text = re.sub(r"\$\{\{[^}]*\}\}", "placeholder", run)
    text = re.sub(r"\$\{?(\w+)\}?", lambda m: shell_vars[m.group(1)], text)
    words = shlex.split(text)
    args = words[words.index("make") + 1 :]
    # Only what the step passes may choose: no make variables inherited from the test's environment.
    inherited = {"APPROVAL", "ENV", "CONFIG", "RUN_ID", "ADMIN_ARN", "ARGS", "MAKEFLAGS", "MFLAGS"}
    env = {k: v for k, v in os.environ.items() if k not in inherited}
    done = subprocess.run(["make", "-n", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def cdk_command(lines: list[str], verb: str) -> list[str]:
    (line,) = [line for line in lines if f" cdk {verb} " in f"{line} "]
    return shlex.split(line)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
def test_ci_cluster_deploys_and_destroys_without_a_prompt() -> None:
    # Without a terminal, cdk deploy --require-approval broadening stops with TtyNotAttached on
    # the first IAM change; cdk destroy without --force asks for confirmation.
    data = workflow("ci-cluster.yml")
    shell_vars = {"ENV": data["env"]["ENV"], "RUN_ID": "gh1-1"}
    deploy = cdk_command(make_dry_run(step_running(data, "cluster", "deploy")["run"], shell_vars), "deploy")
    assert deploy[deploy.index("--require-approval") + 1] == "never"
    assert "--all" in deploy and "run_id=gh1-1" in deploy
    destroy = cdk_command(make_dry_run(step_running(data, "cluster", "destroy")["run"], shell_vars), "destroy")
    assert "--force" in destroy and "run_id=gh1-1" in destroy


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
def test_people_still_approve_broadening_changes_by_default() -> None:
    deploy = cdk_command(make_dry_run("make deploy ENV=dev", {}), "deploy")
    assert deploy[deploy.index("--require-approval") + 1] == "broadening"


def test_workflows_are_checked_in_where_github_reads_them() -> None:
    assert {"ci-cluster.yml", "pull-request.yml"} <= {p.name for p in Path(WORKFLOWS).glob("*.yml")}
