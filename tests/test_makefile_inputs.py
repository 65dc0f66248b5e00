"""No shell injection, no path tricks: every Makefile variable that reaches a shell is checked
before any recipe runs, and a refused value is one line naming the variable, the value and the fix."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from config.errors import ConfigError
from config.load import REPO_ROOT
from policy.environment.load import load_environment


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}  # as typed, not nested
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_fails_make_synth_with_a_shell_command_in_env() -> None:
    result = _make("synth", "ENV=dev;echo INJECTED")
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("Makefile:")
    assert line.split(": ", 1)[1] == (
        "*** error: ENV: not an environment name (lowercase letters, digits and '-'; a name, never a "
        "path) (got 'dev;echo INJECTED'); fix: use one of ci dev karpenter-example prod-example, or CONFIG=<path> "
        "for a file.  Stop."
    )
    assert "INJECTED" not in result.stdout.splitlines() + result.stderr.splitlines(), "the echo never ran"


INJECTIONS = {
    "ENV": "$(shell touch {marker})",
    "CONFIG": "environments/dev.yaml; touch {marker}",
    "RUN_ID": "gh1-1`touch {marker}`",
    "ADMIN_ARN": "arn:aws:iam::123456789012:role/x$$(touch {marker})",
    "ARGS": "--json && touch {marker}",
    "RUN": "vision/detector-sweep|touch {marker}",
    "MIX": "dev' ; touch '{marker}",
    "SEED": "1;touch {marker}",
    "HOURS": "4 >{marker}",
    "SCALE": '0.05"; touch {marker}; "',
    "MINUTES": "1\ntouch {marker}",
    "APPROVAL": "never; touch {marker}",
    "ACCELERATOR": "on;touch {marker}",
    "REPEAT": "3;touch {marker}",
    "CONTEXT": "prod;touch {marker}",
    "PYTHON": "python3.11;touch {marker}",
    "VENV": ".venv;touch {marker}",
    "PY": ".venv/bin/python;touch {marker}",
    "CDK": "npx cdk && touch {marker}",
}
TARGETS = {
    "CDK": "diff",
    "ARGS": "verify",
    "RUN": "mpi-ssh-key",
    "MIX": "simulate",
    "SEED": "simulate",
    "HOURS": "simulate",
}


@pytest.mark.parametrize("variable", sorted(INJECTIONS))
def test_fails_every_variable_that_reaches_a_shell_before_any_recipe_runs(variable: str, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    value = INJECTIONS[variable].format(marker=marker)
    result = _make("-n", TARGETS.get(variable, "synth"), f"{variable}={value}")
    assert result.returncode == 2, result.stdout
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()  # one line, a newline in the value included
    assert f"*** error: {variable}: " in line and "; fix: " in line
    assert not marker.exists()


@pytest.mark.parametrize("value", ["maybe", "ON", ""])
def test_fails_an_accelerator_value_other_than_on_or_off(value: str) -> None:
    result = _make("-n", "synth", f"ACCELERATOR={value}")
    assert (result.returncode, result.stdout) == (2, "")
    (line,) = result.stderr.splitlines()
    assert line.split(": ", 1)[1] == (
        f"*** error: ACCELERATOR: not on or off (got '{value}'); fix: use ACCELERATOR=on or ACCELERATOR=off.  Stop."
    )


def test_accelerator_sets_the_switch_the_commands_read() -> None:
    printed = subprocess.run(
        ["make", "--no-print-directory", "-f", "Makefile", "-f", "-", "print-switch", "ACCELERATOR=off"],
        input="print-switch:\n\t@echo $$GPU_PLATFORM_ACCELERATOR\n",
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (printed.returncode, printed.stdout) == (0, "off\n"), printed.stderr


def test_fails_an_environment_path_in_place_of_a_name() -> None:
    result = _make("-n", "synth", "ENV=../environments/dev")
    assert result.returncode == 2
    assert "error: ENV: not an environment name" in result.stderr
    with pytest.raises(ConfigError) as refused:
        load_environment(name="../environments/dev")
    assert refused.value.line() == (
        "env: an environment name is a name, never a path (lowercase letters, digits and '-') "
        "(got '../environments/dev'); fix: use one of ci, dev, karpenter-example, prod-example, "
        "or pass CONFIG=<path> for a file"
    )


@pytest.mark.parametrize(
    "assignment",
    [
        "ENV=ci",
        "CONFIG=environments/dev.yaml",
        "RUN_ID=gh1234567890-1",
        "ADMIN_ARN=arn:aws:iam::123456789012:role/pipeline",
        "ARGS=--device-classes a,b --priority-classes c --json",
        "CONTEXT=arn:aws:eks:us-west-2:123456789012:cluster/gpu-dev",
        "APPROVAL=never",
        "ACCELERATOR=off",
        "SCALE=0.05",
    ],
)
def test_plain_values_pass(assignment: str) -> None:
    result = _make("-n", "verify", assignment)
    assert result.returncode == 0, result.stderr
