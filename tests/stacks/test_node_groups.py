"""Managed node groups: the launch templates, the shared worker role, and the Capacity Block scale-in."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from aws_cdk.assertions import Template

from policy.infrastructure.efa import NetworkInterfaceSpec
from stacks.node_groups import GPU_UPDATE_CONFIG, node_launch_template, node_role
from tests.helpers.small_stacks import new_stack, only

Synth = Callable[[str], dict[str, Any]]


@pytest.fixture(scope="module")
def template() -> Template:
    stack = new_stack()
    node_launch_template(stack, "Plain", root_volume_gib=50)
    node_launch_template(
        stack,
        "Block",
        root_volume_gib=1000,
        user_data="#!/bin/sh\n",
        capacity_reservation_id="cr-0123456789abcdef0",
        instance_type="p5en.48xlarge",
    )
    node_launch_template(
        stack,
        "Efa",
        root_volume_gib=500,
        network_interfaces=[
            NetworkInterfaceSpec(network_card_index=0, device_index=0, interface_type="efa"),
            NetworkInterfaceSpec(network_card_index=1, device_index=1, interface_type="efa-only"),
        ],
        security_group_ids=["sg-cluster", "sg-efa"],
        placement_group_name="gpu-test-h100",
    )
    node_role(stack, "NodeRole")
    return Template.from_stack(stack)


def _data(template: Template, prefix: str) -> dict[str, Any]:
    _, resource = only(template, "AWS::EC2::LaunchTemplate", prefix)
    data: dict[str, Any] = resource["Properties"]["LaunchTemplateData"]
    return data


def test_a_plain_template_names_neither_ami_nor_instance_type(template: Template) -> None:
    assert _data(template, "Plain") == {
        "MetadataOptions": {"HttpTokens": "required", "HttpPutResponseHopLimit": 2, "HttpEndpoint": "enabled"},
        "BlockDeviceMappings": [
            {
                "DeviceName": "/dev/xvda",
                "Ebs": {"VolumeSize": 50, "VolumeType": "gp3", "Encrypted": True, "DeleteOnTermination": True},
            }
        ],
    }


def test_a_capacity_block_template_carries_its_type_market_and_reservation(template: Template) -> None:
    data = _data(template, "Block")
    assert data["InstanceType"] == "p5en.48xlarge"
    assert data["InstanceMarketOptions"] == {"MarketType": "capacity-block"}
    assert data["CapacityReservationSpecification"] == {
        "CapacityReservationTarget": {"CapacityReservationId": "cr-0123456789abcdef0"}
    }
    assert data["UserData"] == {"Fn::Base64": "#!/bin/sh\n"}


def test_efa_interfaces_carry_the_security_groups_and_no_subnet(template: Template) -> None:
    data = _data(template, "Efa")
    assert data["NetworkInterfaces"] == [
        {
            "NetworkCardIndex": 0,
            "DeviceIndex": 0,
            "InterfaceType": "efa",
            "Groups": ["sg-cluster", "sg-efa"],
            "DeleteOnTermination": True,
        },
        {
            "NetworkCardIndex": 1,
            "DeviceIndex": 1,
            "InterfaceType": "efa-only",
            "Groups": ["sg-cluster", "sg-efa"],
            "DeleteOnTermination": True,
        },
    ]
    assert data["Placement"] == {"GroupName": "gpu-test-h100"}
    assert "InstanceMarketOptions" not in data


def test_the_worker_role_has_the_four_managed_policies_for_ec2(template: Template) -> None:
    _, role = only(template, "AWS::IAM::Role")
    assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "ec2.amazonaws.com"
    }
    names = sorted(json.dumps(arn).rsplit("/", 1)[1].rstrip('"]}') for arn in role["Properties"]["ManagedPolicyArns"])
    assert names == [
        "AmazonEC2ContainerRegistryPullOnly",
        "AmazonEKSWorkerNodePolicy",
        "AmazonEKS_CNI_Policy",
        "AmazonSSMManagedInstanceCore",
    ]


@pytest.fixture
def prod(synthesized: Synth) -> dict[str, Any]:
    shipped: dict[str, Any] = synthesized("prod-example")["gpu-cluster-prod-example"]
    return shipped


def test_capacity_block_group_is_emptied_before_its_block_ends(prod: dict[str, Any]) -> None:
    schedules = [r for r in prod["Resources"].values() if r["Type"] == "AWS::Scheduler::Schedule"]
    (schedule,) = schedules
    properties = schedule["Properties"]
    assert properties["ScheduleExpression"] == "at(2027-06-30T10:30:00)"  # an hour before ends_at
    assert properties["ScheduleExpressionTimezone"] == "UTC"
    target = properties["Target"]
    assert json.loads(target["Input"]) == {
        "ClusterName": "gpu-prod",
        "NodegroupName": "gpu-prod-h200-block-1b",
        "ScalingConfig": {"DesiredSize": 0, "MaxSize": 2, "MinSize": 0},
    }
    role_id = target["RoleArn"]["Fn::GetAtt"][0]
    (policy,) = prod["Resources"][role_id]["Properties"]["Policies"]
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == "eks:UpdateNodegroupConfig"
    assert "nodegroup/gpu-prod/gpu-prod-h200-block-1b/*" in json.dumps(statement["Resource"])
    (group_id,) = schedule["DependsOn"]
    assert prod["Resources"][group_id]["Properties"]["NodegroupName"] == "gpu-prod-h200-block-1b"


def test_gpu_groups_update_one_node_at_a_time_and_the_system_group_keeps_eks_defaults(prod: dict[str, Any]) -> None:
    groups = {k: r["Properties"] for k, r in prod["Resources"].items() if r["Type"] == "AWS::EKS::Nodegroup"}
    ((system_id, system),) = [(k, p) for k, p in groups.items() if p["Labels"] == {"gpu-platform.io/role": "system"}]
    assert system["AmiType"] == "AL2023_x86_64_STANDARD"
    assert "UpdateConfig" not in system
    gpu = {k: p for k, p in groups.items() if k != system_id}
    assert all(p["UpdateConfig"] == GPU_UPDATE_CONFIG for p in gpu.values())
    # Construct ids are the logical ids: renaming one would replace a pool's node groups on the next deploy.
    assert system_id.startswith("ClusterNodegroupSystemNodes")  # add_nodegroup_capacity: under the cluster
    assert all(k.startswith(f"GpuPool{p['Labels']['gpu-platform.io/pool']}".replace("-", "")) for k, p in gpu.items())
