"""Where the CDK CLI speaks: a deploy, diff or destroy without AWS credentials stops first, in one
line that says what to set, before the CDK CLI starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.load import REPO_ROOT

_AWS_VARIABLES = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
)


def _no_credentials(home: Path) -> dict[str, str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in _AWS_VARIABLES and not k.startswith(("AWS_CONTAINER", "MAKE", "MFLAGS"))  # no outer make's level
    }
    return environ | {
        "HOME": str(home),
        "AWS_CONFIG_FILE": str(home / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }


@pytest.mark.parametrize("command", ["deploy", "diff"])
def test_fails_make_deploy_and_diff_without_credentials_in_one_line(command: str, tmp_path: Path) -> None:
    result = subprocess.run(
        # This interpreter's virtualenv: a copy of the checkout (CI's) has none of its own.
        ["make", "--no-print-directory", command, "ENV=dev", f"VENV={sys.prefix}"],
        cwd=REPO_ROOT,
        env=_no_credentials(tmp_path),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    ours, make_trailer = result.stderr.splitlines()
    assert ours == (
        f"error: make {command}: no AWS credentials (none found); fix: set AWS_PROFILE=<profile> (after "
        "'aws configure' or 'aws sso login'), or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; once per "
        "account and region, run 'npx cdk bootstrap aws://<account>/us-west-2'"
    )
    assert make_trailer.startswith("make: *** ") and make_trailer.endswith(f"{command}] Error 2")


def test_a_named_profile_without_credentials_is_named(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cli.live.aws_access", "destroy", "--env", "prod-example"],
        cwd=REPO_ROOT,
        env=_no_credentials(tmp_path) | {"AWS_PROFILE": "ml-platform"},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: make destroy: no AWS credentials (profile 'ml-platform' has none); fix: ")
    assert line.endswith("run 'npx cdk bootstrap aws://111122223333/us-east-1'")


def test_credentials_in_the_environment_let_the_cdk_run(tmp_path: Path) -> None:
    environ = _no_credentials(tmp_path) | {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "example"}
    result = subprocess.run(
        [sys.executable, "-m", "cli.live.aws_access", "diff", "--env", "dev"],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
