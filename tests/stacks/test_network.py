"""The cluster VPC: a new one over the configured zones, or an existing one imported by its subnet ids."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from aws_cdk import RemovalPolicy, Stack
from aws_cdk.assertions import Template

from config.model import NetworkConfig
from stacks.network import ClusterNetwork
from tests.helpers.small_stacks import new_stack, resources, warnings

EXISTING = {
    "existing_vpc": {
        "vpc_id": "vpc-0123456789abcdef0",
        "private_subnet_ids": {"us-east-1b": "subnet-0000000000000000b", "us-east-1a": "subnet-0000000000000000a"},
    }
}


@dataclass
class Built:
    stack: Stack
    network: ClusterNetwork
    template: Template


def _build(network: NetworkConfig, removal_policy: RemovalPolicy) -> Built:
    stack = new_stack()
    built = ClusterNetwork(stack, "Network", network=network, cluster_name="gpu-test", removal_policy=removal_policy)
    built.acknowledge_untaggable_subnets(stack, cluster_name="gpu-test")
    return Built(stack, built, Template.from_stack(stack))


@pytest.fixture(scope="module")
def created() -> Built:
    config = NetworkConfig.model_validate({"availability_zones": ["us-west-2a", "us-west-2b"], "nat_gateways": 1})
    return _build(config, RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)


@pytest.fixture(scope="module")
def imported() -> Built:
    return _build(NetworkConfig.model_validate(EXISTING), RemovalPolicy.DESTROY)


def test_new_vpc_has_public_and_private_subnets_in_each_zone(created: Built) -> None:
    created.template.resource_count_is("AWS::EC2::VPC", 1)
    subnets = resources(created.template, "AWS::EC2::Subnet").values()
    zones = sorted((s["Properties"]["AvailabilityZone"], s["Properties"]["CidrBlock"][-3:]) for s in subnets)
    assert zones == [("us-west-2a", "/19"), ("us-west-2a", "/24"), ("us-west-2b", "/19"), ("us-west-2b", "/24")]
    created.template.resource_count_is("AWS::EC2::NatGateway", 1)


def test_private_subnets_carry_the_load_balancer_and_cluster_discovery_tags(created: Built) -> None:
    subnets = resources(created.template, "AWS::EC2::Subnet").values()
    private = [s for s in subnets if s["Properties"]["CidrBlock"].endswith("/19")]
    public = [s for s in subnets if s["Properties"]["CidrBlock"].endswith("/24")]
    for subnet in private:
        tags = {t["Key"]: t["Value"] for t in subnet["Properties"]["Tags"]}
        assert tags["kubernetes.io/role/internal-elb"] == "1"
        assert tags["kubernetes.io/cluster/gpu-test"] == "shared"
    for subnet in public:
        assert "kubernetes.io/role/internal-elb" not in {t["Key"] for t in subnet["Properties"]["Tags"]}


def test_rejected_traffic_is_logged_with_the_stack_removal_policy(created: Built) -> None:
    created.template.has_resource_properties("AWS::EC2::FlowLog", {"TrafficType": "REJECT"})
    ((_, log_group),) = resources(created.template, "AWS::Logs::LogGroup").items()
    assert log_group["Properties"]["RetentionInDays"] == 30
    assert log_group["DeletionPolicy"] == "RetainExceptOnCreate"


def test_private_subnet_selection_names_the_zones(created: Built) -> None:
    selection = created.network.private_subnets_in(("us-west-2b",))
    subnets = created.network.vpc.select_subnets(
        subnet_type=selection.subnet_type, availability_zones=selection.availability_zones
    )
    assert subnets.availability_zones == ["us-west-2b"]
    assert len(subnets.subnet_ids) == 1


def test_new_vpc_needs_no_subnet_warning(created: Built) -> None:
    assert created.network.existing_subnet_ids is None
    assert not [w for w in warnings(created.stack) if "subnet" in w.lower()]


def test_existing_vpc_is_imported_without_creating_network_resources(imported: Built) -> None:
    for kind in ("AWS::EC2::VPC", "AWS::EC2::Subnet", "AWS::EC2::NatGateway", "AWS::EC2::FlowLog"):
        imported.template.resource_count_is(kind, 0)
    assert imported.network.vpc.vpc_id == "vpc-0123456789abcdef0"
    assert imported.network.existing_subnet_ids == ("subnet-0000000000000000a", "subnet-0000000000000000b")
    assert sorted(s.subnet_id for s in imported.network.vpc.private_subnets) == [
        "subnet-0000000000000000a",
        "subnet-0000000000000000b",
    ]


def test_existing_vpc_says_once_which_subnets_to_tag(imported: Built) -> None:
    (warning,) = [w for w in warnings(imported.stack) if "tag the private subnets" in w]
    assert warning.startswith(
        "network.existing_vpc: tag the private subnets subnet-0000000000000000a, subnet-0000000000000000b with "
        "kubernetes.io/role/internal-elb=1 for internal load balancers"
    )
    assert "[ack: gpu-platform:tag-imported-subnets]" in warning
    acknowledged = ("clusterMustManuallyTagSubnet", "noSubnetRouteTableId")
    assert not [w for w in warnings(imported.stack) if any(a in w for a in acknowledged)]
