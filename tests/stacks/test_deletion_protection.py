"""EKS deletion protection: turned on by a custom resource created after the cluster and what it waits for."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import CfnResource
from aws_cdk.assertions import Template

from stacks.deletion_protection import ClusterDeletionProtection
from tests.helpers.small_stacks import cluster_stack, only, resources


@pytest.fixture(scope="module")
def template() -> Template:
    stack, cluster = cluster_stack()
    nodes = CfnResource(stack, "GpuNodes", type="AWS::CloudFormation::WaitConditionHandle")
    ClusterDeletionProtection(stack, "DeletionProtection", cluster=cluster, after=[nodes])
    return Template.from_stack(stack)


def _call(resource: dict[str, Any], event: str) -> dict[str, Any]:
    """The SDK call of one event (the custom resource holds it as a JSON string with the cluster's name joined in)."""
    value = resource["Properties"][event]
    joined = "".join(p if isinstance(p, str) else "<cluster>" for p in value["Fn::Join"][1])
    call: dict[str, Any] = json.loads(joined)
    return call


def test_create_and_update_turn_protection_on_and_delete_turns_it_off(template: Template) -> None:
    _, protection = only(template, "Custom::AWS")
    for event, protect in (("Create", True), ("Update", True), ("Delete", False)):
        call = _call(protection, event)
        assert (call["service"], call["action"]) == ("EKS", "updateClusterConfig"), event
        assert call["parameters"] == {"name": "<cluster>", "deletionProtection": protect}, event
        assert call["physicalResourceId"] == {"id": "<cluster>-deletion-protection"}, event


def test_it_is_kept_when_the_stack_is_deleted_and_comes_after_the_cluster_and_its_nodes(template: Template) -> None:
    cluster_id, _ = only(template, "AWS::EKS::Cluster")
    _, protection = only(template, "Custom::AWS")
    assert protection["DeletionPolicy"] == "RetainExceptOnCreate"
    assert {cluster_id, "GpuNodes"} <= set(protection["DependsOn"])


def test_its_role_may_only_update_this_clusters_config(template: Template) -> None:
    policies = [p for p in resources(template, "AWS::IAM::Policy").values() if "UpdateClusterConfig" in json.dumps(p)]
    (policy,) = policies
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "eks:UpdateClusterConfig"
    resource = json.dumps(statement["Resource"])
    assert ":eks:" in resource and ":cluster/" in resource and '"Ref": "Cluster' in resource
