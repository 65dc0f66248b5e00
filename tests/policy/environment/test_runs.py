"""Per-run copies of the ephemeral ``ci`` environment, and the stack's time-to-live clean-up."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stdout
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from config.errors import ConfigError
from config.load import REPO_ROOT
from policy.environment.load import load_environment
from policy.environment.runs import for_run, require_run_id
from policy.infrastructure.node_pools import node_group_plans
from stacks import stack_ttl_handler
from stacks.stack_ttl_handler import BUSY, DELETE, KEEP, decide
from tests.conftest import env_from
from tests.helpers import refusal

ADMIN = "arn:aws:iam::111122223333:role/github-ci-cluster"


def _fails(**kwargs: Any) -> str:
    return refusal(for_run, load_environment(name=kwargs.pop("env", "ci")), **kwargs)


def test_a_run_suffixes_every_name_and_tags_the_run() -> None:
    run = for_run(load_environment(name="ci"), run_id="gh4242-1", admin_arns=[ADMIN])
    assert run.name == "ci-gh4242-1"
    assert run.cluster.name == "gpu-ci-gh4242-1"
    assert run.tags["run-id"] == "gh4242-1"
    assert run.tags["environment"] == "ci", "cost reports group every run under its environment"
    assert ADMIN in run.cluster.admin_principal_arns
    names = [p.name for pool in run.gpu_pools for p in node_group_plans(pool, cluster_name=run.cluster.name)]
    assert names == ["gpu-ci-gh4242-1-l4-2a"]


def test_without_a_run_id_the_environment_is_unchanged() -> None:
    env = load_environment(name="ci")
    assert for_run(env, run_id=None) is env


def test_fails_run_id_with_capitals() -> None:
    assert _fails(run_id="PR_12") == (
        "run_id: run id is not a DNS-safe token (got 'PR_12'); fix: use 1-20 lowercase letters, digits or '-', "
        "starting and ending with a letter or digit (e.g. gh1234567890-1)"
    )


def test_fails_run_id_too_long() -> None:
    assert _fails(run_id="gh123456789012345678901").startswith(
        "run_id: run id is longer than 20 characters (got 'gh123456789012345678901'); fix: use 1-20 lowercase"
    )


def test_fails_run_id_for_a_long_lived_environment() -> None:
    assert _fails(env="prod-example", run_id="gh1-1") == (
        "run_id: environment 'prod-example' is not ephemeral, so it has no per-run copies (got 'gh1-1'); "
        "fix: drop the run id, or add an ephemeral section to the environment"
    )


def test_fails_admin_that_is_not_an_iam_arn() -> None:
    assert _fails(run_id="gh1-1", admin_arns=["github-ci"]) == (
        "admin_arn: not an IAM role or user ARN (got 'github-ci'); fix: pass arn:aws:iam::<account>:role/<name>"
    )


def test_fails_admin_without_a_run() -> None:
    assert _fails(run_id=None, admin_arns=[ADMIN]).startswith("admin_arn: extra admins only apply to a run")


def test_fails_node_group_name_over_63_characters() -> None:
    data = load_environment(name="ci").model_dump(mode="json")
    data["gpu_pools"][0]["name"] = "l4-" + "x" * 40
    with pytest.raises(ConfigError) as caught:
        for_run(env_from(data), run_id="gh1234567890-12")
    assert caught.value.line() == (
        f"run_id: gpu_pools.{data['gpu_pools'][0]['name']} node group would be "
        f"'gpu-ci-gh1234567890-12-{data['gpu_pools'][0]['name']}-2a', 69 characters (at most 63) "
        "(got 'gh1234567890-12'); fix: use a run id of at most 9 characters"
    )


def test_fails_ephemeral_and_long_lived() -> None:
    data = load_environment(name="ci").model_dump(mode="json")
    data["long_lived"] = True
    with pytest.raises(ConfigError) as caught:
        env_from(data)
    assert caught.value.line() == (
        "ephemeral: an ephemeral environment cannot be long_lived (deletion protection would block its clean-up) "
        "(got {'ttl_hours': 4, 'cleanup': True}); fix: set long_lived: false or remove the ephemeral section"
    )


def test_fails_deploy_path_without_run_id() -> None:
    with pytest.raises(ConfigError) as caught:
        require_run_id(load_environment(name="ci"), None)
    assert caught.value.line() == (
        "run_id: environment 'ci' is ephemeral: every deployment needs a run id to name its stacks and cluster "
        "(got nothing); fix: pass -c run_id=<id> (make deploy ENV=ci RUN_ID=<id>)"
    )
    require_run_id(load_environment(name="dev"), None)


def test_cdk_cli_path_refuses_ci_without_run_id_in_one_line() -> None:
    env = {**os.environ, "CDK_CONTEXT_JSON": '{"env": "ci"}', "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"}
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: run_id: environment 'ci' is ephemeral: every deployment needs a run id to name its stacks and "
        "cluster (got nothing); fix: pass -c run_id=<id> (make deploy ENV=ci RUN_ID=<id>)"
    ]


def test_names_command_prints_a_runs_names() -> None:
    from cli.names import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--env", "ci", "--run-id", "gh77-2"]) == 0
    assert out.getvalue().splitlines() == [
        "environment=ci",
        "stack=gpu-cluster-ci-gh77-2",
        "cluster=gpu-ci-gh77-2",
        "region=us-east-2",
        "run_id=gh77-2",
        "ttl_hours=4",
    ]


# --- the clean-up Lambda -----------------------------------------------------------------------

CREATED = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
STACK_ID = (
    "arn:aws:cloudformation:us-east-2:111122223333:stack/gpu-cluster-ci-gh77-2/5e1c0f30-ae2b-11f0-9d0c-0a1b2c3d4e5f"
)


@pytest.mark.parametrize(
    ("status", "age_hours", "expected"),
    [
        ("CREATE_COMPLETE", 3.9, KEEP),
        ("CREATE_COMPLETE", 4.0, DELETE),
        ("UPDATE_ROLLBACK_COMPLETE", 9, DELETE),
        ("DELETE_FAILED", 9, DELETE),
        ("UPDATE_IN_PROGRESS", 9, BUSY),
        ("DELETE_IN_PROGRESS", 9, BUSY),
    ],
)
def test_cleanup_decision(status: str, age_hours: float, expected: str) -> None:
    now = CREATED + timedelta(hours=age_hours)
    assert decide(status=status, created=CREATED, now=now, ttl_hours=4) == expected


@pytest.mark.parametrize(("age_hours", "deletes"), [(1, False), (5, True)])
def test_cleanup_handler_deletes_only_its_own_expired_stack(
    monkeypatch: pytest.MonkeyPatch, age_hours: float, deletes: bool
) -> None:
    monkeypatch.setenv("STACK_ID", STACK_ID)
    monkeypatch.setenv("TTL_HOURS", "4")
    client = boto3.client(
        "cloudformation", region_name="us-east-2", aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    stack = {
        "StackId": STACK_ID,
        "StackName": "gpu-cluster-ci-gh77-2",
        "CreationTime": datetime.now(UTC) - timedelta(hours=age_hours),
        "StackStatus": "CREATE_COMPLETE",
        "RoleARN": "arn:aws:iam::111122223333:role/cdk-hnb659fds-cfn-exec-role-111122223333-us-east-2",
    }
    with Stubber(client) as stub:
        stub.add_response("describe_stacks", {"Stacks": [stack]}, {"StackName": STACK_ID})
        if deletes:
            stub.add_response("delete_stack", {}, {"StackName": STACK_ID})
        result = stack_ttl_handler.handler({}, None, client=client)
        stub.assert_no_pending_responses()
    assert result["action"] == (DELETE if deletes else KEEP)


def test_cleanup_handler_fits_inline_lambda_code() -> None:
    source = (REPO_ROOT / "stacks" / "stack_ttl_handler.py").read_text()
    assert len(source.encode()) < 4096, "CloudFormation inline ZipFile code must stay under 4 KiB"
    assert "import boto3" in source and "def handler(" in source


def test_fails_run_id_that_makes_the_karpenter_node_role_name_too_long() -> None:
    data = load_environment(name="karpenter-example").model_dump(mode="json")
    data["ephemeral"] = {"ttl_hours": 4}
    data["cluster"]["name"] = "k" * 36  # its node groups' names still fit with the run id; the role's does not
    with pytest.raises(ConfigError) as caught:
        for_run(env_from(data), run_id="gh1234567890-12")
    assert caught.value.line() == (
        f"run_id: the Karpenter node role would be '{'k' * 36}-gh1234567890-12-karpenter-node', 67 characters "
        "(at most 64) (got 'gh1234567890-12'); fix: use a run id of at most 12 characters"
    )
