"""The EFA security group: all traffic to and from itself, nothing else."""

from __future__ import annotations

import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk.assertions import Template

from stacks.efa import EfaSecurityGroup
from tests.helpers.small_stacks import new_stack, only


@pytest.fixture(scope="module")
def template() -> Template:
    stack = new_stack()
    vpc = ec2.Vpc.from_vpc_attributes(
        stack, "Vpc", vpc_id="vpc-0123456789abcdef0", availability_zones=["us-east-1a"], private_subnet_ids=["subnet-1"]
    )
    EfaSecurityGroup(stack, "EfaSecurityGroup", vpc=vpc, cluster_name="gpu-test")
    return Template.from_stack(stack)


def test_group_is_in_the_cluster_vpc_and_names_the_cluster(template: Template) -> None:
    _, group = only(template, "AWS::EC2::SecurityGroup")
    assert group["Properties"]["VpcId"] == "vpc-0123456789abcdef0"
    assert group["Properties"]["GroupDescription"] == "EFA traffic between GPU nodes of gpu-test"
    # No rule inline: the default allow-all egress of an L2 group would open EFA nodes to everything.
    assert "SecurityGroupEgress" not in group["Properties"]
    assert "SecurityGroupIngress" not in group["Properties"]


def test_all_traffic_is_allowed_from_and_to_the_group_itself(template: Template) -> None:
    group_id, _ = only(template, "AWS::EC2::SecurityGroup")
    itself = {"Fn::GetAtt": [group_id, "GroupId"]}
    _, ingress = only(template, "AWS::EC2::SecurityGroupIngress")
    _, egress = only(template, "AWS::EC2::SecurityGroupEgress")
    assert ingress["Properties"] == {
        "GroupId": itself,
        "IpProtocol": "-1",
        "SourceSecurityGroupId": itself,
        "Description": "All traffic from EFA nodes",
    }
    assert egress["Properties"] == {
        "GroupId": itself,
        "IpProtocol": "-1",
        "DestinationSecurityGroupId": itself,
        "Description": "All traffic to EFA nodes",
    }
