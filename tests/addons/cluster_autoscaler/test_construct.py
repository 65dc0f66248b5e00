"""Cluster Autoscaler on the cluster: its Pod Identity role, the chart after everything it needs, its warnings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import CfnResource, Stack
from aws_cdk.assertions import Template

from addons.cluster_autoscaler.construct import ClusterAutoscaler
from policy.environment.load import load_environment
from tests.helpers.small_stacks import cluster_stack, only, warnings


@pytest.fixture(scope="module")
def built() -> tuple[Stack, Template]:
    stack, cluster = cluster_stack()
    system_nodes = CfnResource(stack, "SystemNodes", type="AWS::CloudFormation::WaitConditionHandle")
    ClusterAutoscaler(
        stack, "ClusterAutoscaler", cluster=cluster, env=load_environment(name="dev"), system_nodes=system_nodes
    )
    return stack, Template.from_stack(stack)


def _template(built: tuple[Stack, Template]) -> Template:
    return built[1]


def test_the_role_is_bound_to_the_chart_service_account_through_pod_identity(built: tuple[Stack, Template]) -> None:
    template = _template(built)
    role_id, role = only(template, "AWS::IAM::Role", "ClusterAutoscaler")
    statement = role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    policy_id, policy = only(template, "AWS::IAM::ManagedPolicy")
    assert role["Properties"]["ManagedPolicyArns"] == [{"Ref": policy_id}]
    assert "nodegroup/gpu-dev/*/*" in json.dumps(policy["Properties"]["PolicyDocument"])
    _, association = only(template, "AWS::EKS::PodIdentityAssociation")
    assert association["Properties"]["Namespace"] == "kube-system"
    assert association["Properties"]["ServiceAccount"] == "cluster-autoscaler"
    assert association["Properties"]["RoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]}


def test_the_chart_waits_and_comes_after_its_identity_agent_and_the_system_nodes(
    built: tuple[Stack, Template],
) -> None:
    template = _template(built)
    association_id, _ = only(template, "AWS::EKS::PodIdentityAssociation")
    agent_id, agent = only(template, "AWS::EKS::Addon")
    assert agent["Properties"]["AddonName"] == "eks-pod-identity-agent"
    _, chart = only(template, "Custom::AWSCDK-EKS-HelmChart")
    properties: dict[str, Any] = chart["Properties"]
    assert (properties["Chart"], properties["Version"], properties["Namespace"]) == (
        "cluster-autoscaler",
        "9.59.1",
        "kube-system",
    )
    assert (properties["Wait"], properties["Timeout"]) == (True, "600s")
    assert {association_id, agent_id, "SystemNodes"} <= set(chart["DependsOn"])
    values = json.loads(properties["Values"])
    assert values["autoDiscovery"] == {"clusterName": "gpu-dev"}
    assert values["image"]["tag"] == "v1.36.1"


def test_the_acknowledged_version_skew_is_a_warning_on_the_construct(built: tuple[Stack, Template]) -> None:
    stack, _ = built
    (skew,) = [w for w in warnings(stack) if "acknowledge_version_skew" in w]
    assert skew.startswith("cluster_autoscaler.version: Cluster Autoscaler 1.36.1 is built for Kubernetes 1.36")
    assert skew.endswith("[ack: gpu-platform:cluster_autoscaler.acknowledge_version_skew]")
