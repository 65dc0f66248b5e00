"""Against the reference copy of Karpenter v1.14.1: chart values, compatibility table, IAM, events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from addons.karpenter.iam import controller_policies
from addons.karpenter.pin import INTERRUPTION_EVENTS, KARPENTER_RELEASES, KARPENTER_VERSION
from addons.karpenter.plan import karpenter_chart_values
from catalog import versions
from policy.environment.acknowledgements import AcknowledgedRisk, Acknowledgement, karpenter_risks
from policy.environment.load import load_environment
from tests.addons.karpenter.conftest import example_env
from tests.addons.karpenter.crds import reference_chart_values, reference_cloudformation
from tests.conftest import env_from
from tests.helpers.chart_values import unknown_keys

FREE_FORM = frozenset({"nodeSelector"})
"""Chart values that are label maps: any key is allowed below them."""

CLUSTER = "gpu-karpenter"
ACCOUNT = "111122223333"
NODE_ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{CLUSTER}-karpenter-node"
QUEUE_ARN = f"arn:aws:sqs:us-west-2:{ACCOUNT}:{CLUSTER}-karpenter"
CLUSTER_ARN = f"arn:aws:eks:us-west-2:{ACCOUNT}:cluster/{CLUSTER}"


@pytest.mark.reference
def test_every_chart_value_exists_in_the_reference_chart(karpenter_1_15_data: dict[str, Any]) -> None:
    chart = reference_chart_values()
    assert unknown_keys(karpenter_chart_values(example_env()), chart, free_form=FREE_FORM) == []
    # Only the keys the table records as newer than the reference copy may be missing from it.
    env = env_from(karpenter_1_15_data)
    added = KARPENTER_RELEASES[env.karpenter.version].chart_settings_added
    assert unknown_keys(karpenter_chart_values(env), chart, free_form=FREE_FORM) == [f"settings.{k}" for k in added]
    assert unknown_keys({"settings": {"enableDRAA": True}}, chart, free_form=FREE_FORM) == ["settings.enableDRAA"]


def test_chart_values_run_on_system_nodes_with_the_interruption_queue() -> None:
    values = karpenter_chart_values(example_env())
    assert values == {
        "nodeSelector": {"gpu-platform.io/role": "system", "kubernetes.io/os": "linux"},
        "replicas": 2,
        "serviceAccount": {"name": "karpenter"},
        "settings": {
            "clusterName": CLUSTER,
            "featureGates": {"reservedCapacity": True, "staticCapacity": True},
            "interruptionQueue": f"{CLUSTER}-karpenter",
        },
    }


def test_dra_setting_only_with_karpenter_dra_pools(karpenter_1_15_data: dict[str, Any]) -> None:
    assert "enableDRA" not in karpenter_chart_values(example_env())["settings"]
    assert karpenter_chart_values(env_from(karpenter_1_15_data))["settings"]["enableDRA"] is True


@pytest.mark.reference
def test_the_reference_release_row_matches_the_reference_copy() -> None:
    chart = reference_chart_values()
    reference = KARPENTER_RELEASES["1.14.1"]
    assert chart["controller"]["image"]["tag"] == reference.version
    assert (reference.kubernetes_max, reference.dra, reference.verified) == ("1.36", False, True)
    # 1.14.1 can only ignore DRA requests; enableDRA arrives later.
    assert "ignoreDRARequests" in chart["settings"] and "enableDRA" not in chart["settings"]
    assert {"staticCapacity", "reservedCapacity"} <= set(chart["settings"]["featureGates"])
    for release in KARPENTER_RELEASES.values():
        assert not set(release.chart_settings_added) & set(chart["settings"])


def test_the_pinned_release_is_confirmed_and_runs_past_its_table_without_dra() -> None:
    pinned = KARPENTER_RELEASES[KARPENTER_VERSION]
    assert (pinned.version, pinned.verified, pinned.dra) == ("1.14.1", True, False)
    assert not pinned.supports_kubernetes(versions.KUBERNETES_MINOR)
    # The DRA-capable 1.15.0 stays an assumption until a release shows it.
    assert not KARPENTER_RELEASES["1.15.0"].verified
    acknowledged = [r.acknowledgement for r in karpenter_risks(example_env())]
    assert acknowledged == [Acknowledgement.KARPENTER_UNSUPPORTED_KUBERNETES]


def test_acknowledged_unverified_release_is_an_acknowledged_risk(karpenter_1_15_data: dict[str, Any]) -> None:
    (risk,) = karpenter_risks(env_from(karpenter_1_15_data))
    assert risk == AcknowledgedRisk(
        Acknowledgement.KARPENTER_UNVERIFIED_RELEASE,
        "karpenter.version",
        "the compatibility row Karpenter 1.15.0 (Kubernetes 1.29-1.37, DRA) is an assumption, not verified against "
        "upstream; deploying it anyway because karpenter.acknowledge_unverified_release is true",
    )
    assert risk.text == f"karpenter.version: {risk.risk}"
    assert karpenter_risks(load_environment(name="dev")) == []  # no Karpenter pools


def test_acknowledged_unsupported_release_is_an_acknowledged_risk(karpenter_1_14_data: dict[str, Any]) -> None:
    # 1.14.1's row is verified: the unsupported minor is the only risk.
    (risk,) = karpenter_risks(env_from(karpenter_1_14_data))
    assert risk.acknowledgement is Acknowledgement.KARPENTER_UNSUPPORTED_KUBERNETES
    assert risk.text == (
        "karpenter.version: Karpenter 1.14.1 supports Kubernetes 1.29-1.36, not 1.37; deploying it anyway "
        "because karpenter.acknowledge_unsupported_kubernetes is true"
    )


def _reference_policy(name: str) -> dict[str, Any]:
    document = reference_cloudformation()["Resources"][name]["Properties"]["PolicyDocument"]["!Sub"]
    for placeholder, value in {
        "${AWS::Partition}": "aws",
        "${AWS::Region}": "us-west-2",
        "${AWS::AccountId}": ACCOUNT,
        "${ClusterName}": CLUSTER,
        "${KarpenterNodeRole.Arn}": NODE_ROLE_ARN,
        "${KarpenterInterruptionQueue.Arn}": QUEUE_ARN,
    }.items():
        document = document.replace(placeholder, value)
    parsed: dict[str, Any] = json.loads(document)
    return parsed


@pytest.mark.reference
def test_controller_policies_are_the_reference_policies() -> None:
    ours = controller_policies(
        cluster_name=CLUSTER,
        partition="aws",
        region="us-west-2",
        account_id=ACCOUNT,
        cluster_arn=CLUSTER_ARN,
        node_role_arn=NODE_ROLE_ARN,
        queue_arn=QUEUE_ARN,
    )
    reference = {
        name
        for name, resource in reference_cloudformation()["Resources"].items()
        if resource["Type"] == "AWS::IAM::ManagedPolicy"
    }
    assert set(ours) == reference
    for name in reference:
        assert ours[name] == _reference_policy(name), name
    actions = [a for doc in ours.values() for s in doc["Statement"] for a in _as_list(s["Action"])]
    assert "*" not in actions and all(not a.endswith(":*") for a in actions)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


@pytest.mark.reference
def test_interruption_events_are_the_reference_detail_types_literally() -> None:
    reference = sorted(
        (r["Properties"]["EventPattern"]["source"], r["Properties"]["EventPattern"]["detail-type"])
        for r in reference_cloudformation()["Resources"].values()
        if r["Type"] == "AWS::Events::Rule"
    )
    assert reference == sorted(([e.source], [e.detail_type]) for e in INTERRUPTION_EVENTS)
    assert sorted(e.detail_type for e in INTERRUPTION_EVENTS) == [
        "AWS Health Event",
        "EC2 Capacity Reservation Instance Interruption Warning",
        "EC2 Instance Rebalance Recommendation",
        "EC2 Instance State-change Notification",
        "EC2 Spot Instance Interruption Warning",
    ]
