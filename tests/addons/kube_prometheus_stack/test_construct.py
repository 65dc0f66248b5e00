"""kube-prometheus-stack on the cluster: the EBS CSI driver and StorageClass first, then the chart; remote
write to a managed workspace only through its own Pod Identity role."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import CfnResource
from aws_cdk import aws_aps as aps
from aws_cdk.assertions import Template

from addons.kube_prometheus_stack.construct import PrometheusMonitoring, storage_class
from policy.environment.load import load_environment
from tests.helpers.small_stacks import cluster_stack, only, resources


def _build(*, workspace: bool) -> Template:
    stack, cluster = cluster_stack()
    nodes = CfnResource(stack, "SystemNodes", type="AWS::CloudFormation::WaitConditionHandle")
    metrics = aps.CfnWorkspace(stack, "Workspace", alias="gpu-test") if workspace else None
    PrometheusMonitoring(
        stack, "Prometheus", cluster=cluster, env=load_environment(name="dev"), system_nodes=nodes, workspace=metrics
    )
    return Template.from_stack(stack)


@pytest.fixture(scope="module")
def templates() -> dict[str, Template]:
    return {"remote write": _build(workspace=True), "local": _build(workspace=False)}


def test_the_ebs_csi_driver_gets_its_role_through_pod_identity_after_the_agent_and_nodes(
    templates: dict[str, Template],
) -> None:
    template = templates["local"]
    _, csi = only(template, "AWS::EKS::Addon", "PrometheusEbsCsiDriver")
    agent_id, _ = only(template, "AWS::EKS::Addon", "PodIdentityAgent")
    role_id, role = only(template, "AWS::IAM::Role", "PrometheusEbsCsiRole")
    assert csi["Properties"]["AddonName"] == "aws-ebs-csi-driver"
    assert csi["Properties"]["PodIdentityAssociations"] == [
        {"RoleArn": {"Fn::GetAtt": [role_id, "Arn"]}, "ServiceAccount": "ebs-csi-controller-sa"}
    ]
    assert "AmazonEBSCSIDriverPolicy" in json.dumps(role["Properties"]["ManagedPolicyArns"])
    assert {agent_id, "SystemNodes"} <= set(csi["DependsOn"])


def test_the_chart_waits_below_the_handler_limit_after_storage_and_nodes(templates: dict[str, Template]) -> None:
    template = templates["local"]
    csi_id, _ = only(template, "AWS::EKS::Addon", "PrometheusEbsCsiDriver")
    storage_id, storage = only(template, "Custom::AWSCDK-EKS-KubernetesResource", "PrometheusStorageClass")
    assert csi_id in storage["DependsOn"]
    _, chart = only(template, "Custom::AWSCDK-EKS-HelmChart")
    properties: dict[str, Any] = chart["Properties"]
    assert (properties["Chart"], properties["Wait"], properties["Timeout"]) == ("kube-prometheus-stack", True, "720s")
    assert {"SystemNodes", storage_id, csi_id} <= set(chart["DependsOn"])
    assert "remoteWrite" not in properties["Values"]
    assert resources(template, "AWS::EKS::PodIdentityAssociation") == {}


def test_remote_write_goes_to_the_workspace_with_a_role_limited_to_it(templates: dict[str, Template]) -> None:
    template = templates["remote write"]
    association_id, association = only(template, "AWS::EKS::PodIdentityAssociation")
    role_id, role = only(template, "AWS::IAM::Role", "PrometheusRemoteWriteRole")
    assert association["Properties"]["RoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]}
    (policy,) = role["Properties"]["Policies"]
    assert policy["PolicyDocument"]["Statement"] == [
        {"Effect": "Allow", "Action": "aps:RemoteWrite", "Resource": {"Fn::GetAtt": ["Workspace", "Arn"]}}
    ]
    _, chart = only(template, "Custom::AWSCDK-EKS-HelmChart")
    assert association_id in chart["DependsOn"]
    assert "api/v1/remote_write" in json.dumps(chart["Properties"]["Values"])


@pytest.mark.parametrize(("long_lived", "reclaim"), [(True, "Retain"), (False, "Delete")])
def test_storage_class_keeps_released_volumes_only_when_long_lived(long_lived: bool, reclaim: str) -> None:
    made = storage_class(long_lived=long_lived)
    assert made["reclaimPolicy"] == reclaim
    assert made["parameters"] == {"type": "gp3", "encrypted": "true"}
    assert made["volumeBindingMode"] == "WaitForFirstConsumer"
