"""The EKS Pod Identity agent: one add-on per stack, whoever asks for it, after the system nodes."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import CfnResource
from aws_cdk.assertions import Template
from constructs import Construct

from stacks.pod_identity import pod_identity_agent
from tests.helpers.small_stacks import cluster_stack, only


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    stack, cluster = cluster_stack()
    system_nodes = CfnResource(stack, "SystemNodes", type="AWS::CloudFormation::WaitConditionHandle")
    first = pod_identity_agent(Construct(stack, "Karpenter"), cluster, system_nodes=system_nodes)
    second = pod_identity_agent(Construct(stack, "ClusterAutoscaler"), cluster, system_nodes=system_nodes)
    return {"first": first, "second": second, "template": Template.from_stack(stack), "stack": stack}


def test_every_caller_gets_the_one_agent_of_the_stack(built: dict[str, Any]) -> None:
    assert built["first"] is built["second"]
    assert built["first"].node.path == "test/PodIdentityAgent"  # a child of the stack, not of the first caller


def test_agent_is_the_eks_add_on_and_waits_for_the_system_nodes(built: dict[str, Any]) -> None:
    template: Template = built["template"]
    cluster_id, _ = only(template, "AWS::EKS::Cluster")
    _, addon = only(template, "AWS::EKS::Addon")
    assert addon["Properties"] == {
        "AddonName": "eks-pod-identity-agent",
        "ClusterName": {"Ref": cluster_id},
        "ResolveConflicts": "OVERWRITE",
    }
    assert addon["DependsOn"] == ["SystemNodes"]
