"""cdk-nag on the app: an acknowledged finding passes where it is acknowledged, and only there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App, Aws, Stack
from aws_cdk import aws_iam as iam
from constructs import Construct

from stacks.app_options import new_app
from stacks.nag import (
    CLUSTER_ACKNOWLEDGEMENTS,
    acknowledge_cluster_autoscaler,
    acknowledge_scale_in,
    acknowledged_findings,
    apply_nag,
)


def _role(scope: Construct, construct_id: str, *, managed: str | None = None, resource: str | None = None) -> None:
    role = iam.Role(
        scope,
        construct_id,
        assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
        managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(managed)] if managed else None,
    )
    if resource is not None:
        role.add_to_policy(iam.PolicyStatement(actions=["eks:DescribeNodegroup"], resources=[resource]))


def _conclusion(app: App, outdir: Path) -> tuple[str, list[str]]:
    """The AwsSolutions report's conclusion and the rules of its failed findings; synthesis fails with them."""
    failed = False
    try:
        app.synth()
    except RuntimeError:  # the plugin fails synthesis on an unacknowledged error; its report is written first
        failed = True
    report = json.loads((outdir / "validation-report.json").read_text())
    (plugin,) = [r for r in report["pluginReports"] if r["pluginName"] == "AwsSolutions"]
    assert failed is (plugin["conclusion"] == "failure")
    return plugin["conclusion"], sorted({v["ruleName"] for v in plugin["violations"]})


def _app(tmp_path: Path) -> tuple[App, Stack]:
    app = new_app(outdir=str(tmp_path))
    return app, Stack(app, "test")


def test_acknowledged_cluster_findings_pass(tmp_path: Path) -> None:
    app, stack = _app(tmp_path)
    _role(stack, "ClusterRole", managed="AmazonEKSClusterPolicy")
    _role(stack, "NodeRole", managed="AmazonEKSWorkerNodePolicy")
    apply_nag(app, [stack])
    assert _conclusion(app, tmp_path) == ("success", [])


def test_a_managed_policy_not_acknowledged_fails_synthesis(tmp_path: Path) -> None:
    app, stack = _app(tmp_path)
    _role(stack, "Admin", managed="AdministratorAccess")
    apply_nag(app, [stack])
    conclusion, rules = _conclusion(app, tmp_path)
    assert conclusion == "failure"
    assert rules == ["AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AdministratorAccess]"]


def test_cluster_autoscaler_acknowledgements_hold_only_under_its_construct(tmp_path: Path) -> None:
    app, stack = _app(tmp_path)
    autoscaler = Construct(stack, "ClusterAutoscaler")
    acknowledge_cluster_autoscaler(autoscaler, cluster_name="gpu-test")
    _role(autoscaler, "Role", resource="*")
    _role(autoscaler, "Reads", resource=f"arn:{Aws.PARTITION}:eks:{Aws.REGION}:{Aws.ACCOUNT_ID}:nodegroup/gpu-test/*/*")
    apply_nag(app, [stack])
    assert _conclusion(app, tmp_path) == ("success", [])

    app, stack = _app(tmp_path / "outside")
    acknowledge_cluster_autoscaler(Construct(stack, "ClusterAutoscaler"), cluster_name="gpu-test")
    _role(stack, "Elsewhere", resource="*")
    apply_nag(app, [stack])
    assert _conclusion(app, tmp_path / "outside") == ("failure", ["AwsSolutions-IAM5[Resource::*]"])


def test_scale_in_acknowledges_exactly_the_node_group_arns_it_is_given(tmp_path: Path) -> None:
    app, stack = _app(tmp_path)
    pool = Construct(stack, "Pool")
    acknowledge_scale_in(pool, arns=["arn:aws:eks:us-east-1:111122223333:nodegroup/gpu-test/block-1a/*"])
    _role(pool, "Acknowledged", resource="arn:aws:eks:us-east-1:111122223333:nodegroup/gpu-test/block-1a/*")
    apply_nag(app, [stack])
    assert _conclusion(app, tmp_path) == ("success", [])

    app, stack = _app(tmp_path / "other")
    pool = Construct(stack, "Pool")
    acknowledge_scale_in(pool, arns=["arn:aws:eks:us-east-1:111122223333:nodegroup/gpu-test/block-1a/*"])
    _role(pool, "Other", resource="arn:aws:eks:us-east-1:111122223333:nodegroup/gpu-test/block-1b/*")
    apply_nag(app, [stack])
    assert _conclusion(app, tmp_path / "other") == (
        "failure",
        ["AwsSolutions-IAM5[Resource::arn:aws:eks:us-east-1:111122223333:nodegroup/gpu-test/block-1b/*]"],
    )


def test_acknowledged_findings_lists_every_cluster_finding_once_sorted() -> None:
    findings = acknowledged_findings()
    assert findings == sorted(findings)
    assert len(findings) == len(set(findings)) == sum(len(f) for f in CLUSTER_ACKNOWLEDGEMENTS.values())
    assert "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEKSClusterPolicy]" in findings
    assert "AwsSolutions-L1" in findings


@pytest.mark.parametrize("reason", list(CLUSTER_ACKNOWLEDGEMENTS))
def test_every_acknowledgement_gives_a_reason(reason: str) -> None:
    assert reason.endswith(".") and len(reason) > 40
