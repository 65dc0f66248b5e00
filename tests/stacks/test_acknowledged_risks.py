"""Acknowledged risks become CDK warnings, with the acknowledgement as id, on the construct they concern."""

from __future__ import annotations

from aws_cdk import aws_sqs as sqs
from aws_cdk.assertions import Annotations, Match

from policy.environment.acknowledgements import AcknowledgedRisk, Acknowledgement
from stacks.acknowledged_risks import warn_acknowledged
from tests.helpers.small_stacks import new_stack

RISKS = [
    AcknowledgedRisk(Acknowledgement.CLUSTER_AUTOSCALER_VERSION_SKEW, "cluster_autoscaler.version", "runs behind"),
    AcknowledgedRisk(Acknowledgement.PUBLIC_ENDPOINT_OPEN_TO_INTERNET, "cluster.public_access_cidrs", "open"),
]


def test_each_risk_is_one_warning_on_the_construct_it_concerns() -> None:
    stack = new_stack()
    concerned = sqs.Queue(stack, "Concerned")
    sqs.Queue(stack, "Other")
    warn_acknowledged(concerned, RISKS)
    found = Annotations.from_stack(stack).find_warning("*", Match.any_value())
    assert sorted((m.id, str(m.entry.data)) for m in found) == [
        (
            "/test/Concerned",
            "cluster.public_access_cidrs: open "
            "[ack: gpu-platform:cluster.acknowledge_public_endpoint_open_to_internet]",
        ),
        (
            "/test/Concerned",
            "cluster_autoscaler.version: runs behind [ack: gpu-platform:cluster_autoscaler.acknowledge_version_skew]",
        ),
    ]


def test_no_risk_no_warning() -> None:
    stack = new_stack()
    warn_acknowledged(stack, [])
    assert Annotations.from_stack(stack).find_warning("*", Match.any_value()) == []
