"""The ``ci`` stack: runs never share a physical name, everything is destroyable, and it cleans up after itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from config.load import REPO_ROOT
from policy.environment.load import load_environment
from policy.environment.runs import for_run

pytestmark = pytest.mark.synth
Synth = Callable[[str], dict[str, Any]]
RUNS = ("gh101-1", "gh202-1")

PHYSICAL_NAME_KEYS = frozenset(
    {
        "Name",
        "ClusterName",
        "NodegroupName",
        "QueueName",
        "FunctionName",
        "RoleName",
        "InstanceProfileName",
        "ManagedPolicyName",
        "LogGroupName",
        "RuleName",
        "ScheduleName",
        "LaunchTemplateName",
        "TopicName",
        "BucketName",
        "AliasName",
    }
)
"""Properties that give an AWS resource a name unique in its account and region."""


def _physical_names(templates: dict[str, dict[str, Any]]) -> set[str]:
    names = {f"stack:{stack}" for stack in templates}
    for template in templates.values():
        for resource in template["Resources"].values():
            if resource["Type"].startswith("Custom::"):
                continue  # Kubernetes objects inside the run's own cluster
            names |= {
                f"{resource['Type']}:{value}"
                for key, value in (resource.get("Properties") or {}).items()
                if key in PHYSICAL_NAME_KEYS and isinstance(value, str)
            }
    return names


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, dict[str, Any]]]]:
    """``ci`` synthesized for two run ids: {run id: {stack name: template}}."""
    from cli.synth import synth_cloudformation

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for run_id in RUNS:
        outdir = tmp_path_factory.mktemp(f"cdk-ci-{run_id}")
        synth_cloudformation(for_run(load_environment(name="ci"), run_id=run_id), outdir)
        out[run_id] = {
            p.name.removesuffix(".template.json"): json.loads(p.read_text()) for p in outdir.glob("*.template.json")
        }
    yield out


def test_two_runs_have_disjoint_physical_names(runs: dict[str, dict[str, dict[str, Any]]]) -> None:
    first, second = (_physical_names(runs[r]) for r in RUNS)
    assert "stack:gpu-cluster-ci-gh101-1" in first
    assert "AWS::EKS::Cluster:gpu-ci-gh101-1" in first
    assert "AWS::EKS::Nodegroup:gpu-ci-gh101-1-l4-2a" in first
    assert "AWS::EKS::Nodegroup:gpu-ci-gh202-1-l4-2a" in second
    assert first & second == set()
    for run_id, names in zip(RUNS, (first, second), strict=True):
        assert all(run_id in n for n in names), sorted(n for n in names if run_id not in n)


def test_every_tagged_resource_carries_the_run_and_its_ttl(runs: dict[str, dict[str, dict[str, Any]]]) -> None:
    for run_id, templates in runs.items():
        for template in templates.values():
            for logical_id, resource in template["Resources"].items():
                tags = (resource.get("Properties") or {}).get("Tags")
                if isinstance(tags, list) and tags and isinstance(tags[0], dict) and "Key" in tags[0]:
                    found = {t["Key"]: t["Value"] for t in tags}
                    assert found.get("run-id") == run_id, logical_id
                    assert found.get("ttl-hours") == "4", logical_id
                    assert found.get("environment") == "ci", logical_id


def test_runs_are_destroyable(runs: dict[str, dict[str, dict[str, Any]]]) -> None:
    for templates in runs.values():
        for template in templates.values():
            kept = [
                k
                for k, r in template["Resources"].items()
                if r.get("DeletionPolicy") in ("Retain", "Snapshot", "RetainExceptOnCreate")
                or (r.get("Properties") or {}).get("DeletionProtection")
            ]
            assert kept == []


def _resources(template: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def test_ttl_cleanup_may_only_delete_its_own_stack(synthesized: Synth) -> None:
    template = synthesized("ci")["gpu-cluster-ci"]
    (rule,) = [r["Properties"] for r in _resources(template, "AWS::Events::Rule")]
    assert rule["ScheduleExpression"] == "rate(15 minutes)"
    functions = [
        r["Properties"]
        for r in _resources(template, "AWS::Lambda::Function")
        if "STACK_ID" in json.dumps(r["Properties"].get("Environment", {}))
    ]
    (function,) = functions
    assert function["Environment"]["Variables"] == {"STACK_ID": {"Ref": "AWS::StackId"}, "TTL_HOURS": "4"}
    assert "def handler(" in function["Code"]["ZipFile"]
    roles = [r["Properties"] for r in _resources(template, "AWS::IAM::Role") if "DeleteOwnStack" in json.dumps(r)]
    (role,) = roles
    (policy,) = role["Policies"]
    statements = policy["PolicyDocument"]["Statement"]
    assert statements[0] == {
        "Action": ["cloudformation:DescribeStacks", "cloudformation:DeleteStack"],
        "Effect": "Allow",
        "Resource": {"Ref": "AWS::StackId"},
    }
    assert statements[1]["Action"] == ["logs:CreateLogStream", "logs:PutLogEvents"]
    assert "ManagedPolicyArns" not in role


def test_long_lived_environments_have_no_ttl(synthesized: Synth) -> None:
    template = synthesized("prod-example")["gpu-cluster-prod-example"]
    assert _resources(template, "AWS::Events::Rule") == []
    assert "ttl-hours" not in json.dumps(template)


def test_no_run_stack_can_fail_for_a_missing_gate(
    runs: dict[str, dict[str, dict[str, Any]]], synthesized_workload_aware: Synth
) -> None:
    """A missing gate is make verify's finding after deploy (the run's cluster stays up), never a rollback:
    neither a run's stacks nor those of ci on a control plane that serves the workload-aware gates apply a
    gate probe or read back a gated field."""
    from tests.policy.live.test_gate_probes import assert_no_gate_is_probed_in_the_stack

    for templates in runs.values():
        assert_no_gate_is_probed_in_the_stack(templates)
    twin = synthesized_workload_aware("ci")
    assert_no_gate_is_probed_in_the_stack(twin)
    outputs = twin["gpu-cluster-ci"]["Outputs"]
    (form,) = [v["Value"] for k, v in outputs.items() if k.startswith("ServedApiCheckWorkloadApi")]
    assert form == (
        "required: make deploy's make verify step checks the gates "
        "(DRAWorkloadResourceClaims, GenericWorkload, TopologyAwareWorkloadScheduling)"
    )


def test_the_ci_clusters_page_documents_the_ci_workflow() -> None:
    section = (REPO_ROOT / "docs" / "how-to" / "ci-clusters.md").read_text()
    for needle in ("RUN_ID", "make preflight", "make verify", "make smoke", "ttl_hours", "ci-cluster.yml"):
        assert needle in section
