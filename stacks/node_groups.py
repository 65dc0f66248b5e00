"""Managed node groups: the CPU system group and one construct per GPU pool."""

from __future__ import annotations

import json
from typing import Any

from aws_cdk import Aws, Fn
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_scheduler as scheduler
from constructs import Construct

from addons.cluster_autoscaler.plan import accelerator_labels, node_template_tags
from catalog.labels import ROLE_LABEL
from config.model import CapacityType, GpuPoolConfig, PoolScaling, SystemNodeGroupConfig, TaintEffect
from policy.iam.documents import allow_policy, service_trust_policy
from policy.infrastructure.efa import NetworkInterfaceSpec, efa_network_interfaces
from policy.infrastructure.node_pools import (
    ScheduledScaleIn,
    capacity_block_scale_ins,
    gpu_node_labels,
    node_config_user_data,
    node_group_plans,
    placement_group_enabled,
    pool_scaling,
)
from stacks.jsii_types import as_icluster
from stacks.nag import acknowledge_scale_in
from stacks.network import ClusterNetwork

_CAPACITY_TYPES = {
    CapacityType.ON_DEMAND: eks.CapacityType.ON_DEMAND,
    CapacityType.SPOT: eks.CapacityType.SPOT,
    CapacityType.CAPACITY_BLOCK: eks.CapacityType.CAPACITY_BLOCK,
}
_TAINT_EFFECTS = {
    TaintEffect.NO_SCHEDULE: eks.TaintEffect.NO_SCHEDULE,
    TaintEffect.PREFER_NO_SCHEDULE: eks.TaintEffect.PREFER_NO_SCHEDULE,
    TaintEffect.NO_EXECUTE: eks.TaintEffect.NO_EXECUTE,
}


def node_launch_template(
    scope: Construct,
    construct_id: str,
    *,
    root_volume_gib: int,
    user_data: str | None = None,
    capacity_reservation_id: str | None = None,
    instance_type: str | None = None,
    network_interfaces: list[NetworkInterfaceSpec] | None = None,
    security_group_ids: list[str] | None = None,
    placement_group_name: str | None = None,
) -> eks.LaunchTemplateSpec:
    """IMDSv2-only launch template with an encrypted gp3 root volume.

    Built as the L1 so the node group keeps its AMI type and instance types (a launch
    template naming an AMI or instance type would take them over). A Capacity Block's template
    is the exception EKS requires (capacity-blocks-mng): it carries the instance type, the
    ``capacity-block`` market type and the reservation target, and the node group names no
    instance types. EFA interfaces carry the security groups (the cluster's and the EFA group)
    and no subnet: the node group's subnet applies.
    """
    data = ec2.CfnLaunchTemplate.LaunchTemplateDataProperty(
        metadata_options=ec2.CfnLaunchTemplate.MetadataOptionsProperty(
            http_tokens="required",
            http_put_response_hop_limit=2,
            http_endpoint="enabled",
        ),
        block_device_mappings=[
            ec2.CfnLaunchTemplate.BlockDeviceMappingProperty(
                device_name="/dev/xvda",
                ebs=ec2.CfnLaunchTemplate.EbsProperty(
                    volume_size=root_volume_gib,
                    volume_type="gp3",
                    encrypted=True,
                    delete_on_termination=True,
                ),
            )
        ],
        user_data=Fn.base64(user_data) if user_data else None,
        instance_type=instance_type,
        network_interfaces=[
            ec2.CfnLaunchTemplate.NetworkInterfaceProperty(
                network_card_index=spec.network_card_index,
                device_index=spec.device_index,
                interface_type=spec.interface_type,
                groups=security_group_ids,
                delete_on_termination=True,
            )
            for spec in network_interfaces
        ]
        if network_interfaces
        else None,
        placement=ec2.CfnLaunchTemplate.PlacementProperty(group_name=placement_group_name)
        if placement_group_name
        else None,
        instance_market_options=(
            ec2.CfnLaunchTemplate.InstanceMarketOptionsProperty(market_type="capacity-block")
            if capacity_reservation_id
            else None
        ),
        capacity_reservation_specification=(
            ec2.CfnLaunchTemplate.CapacityReservationSpecificationProperty(
                capacity_reservation_target=ec2.CfnLaunchTemplate.CapacityReservationTargetProperty(
                    capacity_reservation_id=capacity_reservation_id,
                )
            )
            if capacity_reservation_id
            else None
        ),
    )
    template = ec2.CfnLaunchTemplate(scope, construct_id, launch_template_data=data)
    return eks.LaunchTemplateSpec(id=template.ref, version=template.attr_latest_version_number)


def node_role(scope: Construct, construct_id: str) -> iam.Role:
    """One worker role shared by every managed node group (EKS worker, CNI, ECR pull, SSM)."""
    return iam.Role(
        scope,
        construct_id,
        assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
        managed_policies=[
            iam.ManagedPolicy.from_aws_managed_policy_name(name)
            for name in (
                "AmazonEKSWorkerNodePolicy",
                "AmazonEKS_CNI_Policy",
                "AmazonEC2ContainerRegistryPullOnly",
                "AmazonSSMManagedInstanceCore",
            )
        ],
    )


class SystemNodeGroup(Construct):
    """Small CPU node group for controllers; GPU nodes stay free for training."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        network: ClusterNetwork,
        config: SystemNodeGroupConfig,
        role: iam.IRole,
    ) -> None:
        super().__init__(scope, construct_id)
        self.nodegroup = cluster.add_nodegroup_capacity(
            "SystemNodes",
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD,
            instance_types=[ec2.InstanceType(t) for t in config.instance_types],
            min_size=config.min_size,
            max_size=config.max_size,
            desired_size=config.desired_size if config.desired_size is not None else config.min_size,
            subnets=network.private_subnets_in(network.zones),
            labels={ROLE_LABEL: "system"},
            launch_template_spec=node_launch_template(self, "LaunchTemplate", root_volume_gib=50),
            node_role=role,
        )


GPU_UPDATE_CONFIG = {"MaxUnavailable": 1, "UpdateStrategy": "MINIMAL"}
"""Node group updates that need no spare GPU capacity: ``MINIMAL`` replaces a node only after taking one
out (the default strategy launches new nodes first, which a full GPU pool or a Capacity Block cannot
hold; the EKS API reference names MINIMAL for hardware accelerators), one node at a time."""


class GpuNodePool(Construct):
    """One GPU pool: managed node groups on the AL2023 NVIDIA AMI, one per zone when zone-pinned.

    Instance types are set on the L1 ``InstanceTypes`` property: the eks-v2 node group
    rejects ``p5.48xlarge``/``p5en.48xlarge`` with the AL2023 NVIDIA AMI and treats
    ``p6-b200.48xlarge`` as malformed, although EKS accepts all three.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        cluster_name: str,
        network: ClusterNetwork,
        pool: GpuPoolConfig,
        kubelet_gates: tuple[str, ...],
        role: iam.IRole,
        efa_security_group_id: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        block = pool.capacity.type is CapacityType.CAPACITY_BLOCK
        interfaces = efa_network_interfaces(pool)
        template_props: dict[str, Any] = {
            "root_volume_gib": pool.root_volume_gib,
            "user_data": node_config_user_data(kubelet_gates),
            "capacity_reservation_id": pool.capacity.reservation_id,
            "instance_type": pool.instance_types[0] if block else None,
            "network_interfaces": interfaces or None,
            "security_group_ids": [cluster.cluster_security_group_id, efa_security_group_id]
            if interfaces and efa_security_group_id
            else None,
        }
        shared_template = None
        if not placement_group_enabled(pool) or pool.capacity.placement_group:
            shared_template = node_launch_template(
                self, "LaunchTemplate", placement_group_name=pool.capacity.placement_group, **template_props
            )
        autoscaled = pool_scaling(pool) is PoolScaling.AUTOSCALED
        labels = gpu_node_labels(pool) | (accelerator_labels(pool) if autoscaled else {})
        taints = [eks.TaintSpec(key=t.key, value=t.value or None, effect=_TAINT_EFFECTS[t.effect]) for t in pool.taints]
        self.nodegroups: list[eks.Nodegroup] = []
        for plan in node_group_plans(pool, cluster_name=cluster_name):
            launch_template = shared_template or self._zone_template(plan.construct_id, plan.zones[0], template_props)
            nodegroup = eks.Nodegroup(
                self,
                plan.construct_id,
                cluster=as_icluster(cluster),
                nodegroup_name=plan.name,
                ami_type=eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
                capacity_type=_CAPACITY_TYPES[pool.capacity.type],
                min_size=plan.min_size,
                max_size=plan.max_size,
                desired_size=plan.desired_size,
                subnets=network.private_subnets_in(plan.zones),
                labels=labels,
                taints=taints,
                launch_template_spec=launch_template,
                node_role=role,
                tags=node_template_tags(pool) if autoscaled else None,
            )
            cfn = nodegroup.node.default_child
            assert isinstance(cfn, eks.CfnNodegroup)
            if not block:  # a Capacity Block's launch template carries its one instance type
                cfn.add_property_override("InstanceTypes", list(pool.instance_types))
            cfn.add_property_override("UpdateConfig", GPU_UPDATE_CONFIG)
            self.nodegroups.append(nodegroup)
        scale_ins = capacity_block_scale_ins(pool, cluster_name=cluster_name)
        if scale_ins:
            self._scale_in_before_block_end(cluster_name, scale_ins)

    def _scale_in_before_block_end(self, cluster_name: str, scale_ins: list[ScheduledScaleIn]) -> None:
        """EventBridge Scheduler calls ``eks:UpdateNodegroupConfig`` (a universal target) to empty each
        group before its Capacity Block ends; the role may update only these node groups."""
        arns = [
            f"arn:{Aws.PARTITION}:eks:{Aws.REGION}:{Aws.ACCOUNT_ID}:nodegroup/{cluster_name}/{s.nodegroup_name}/*"
            for s in scale_ins
        ]
        role = iam.CfnRole(
            self,
            "ScaleInRole",
            assume_role_policy_document=service_trust_policy("scheduler.amazonaws.com"),
            policies=[
                iam.CfnRole.PolicyProperty(
                    policy_name="scale-in-capacity-block-groups",
                    policy_document=allow_policy("eks:UpdateNodegroupConfig", arns),
                )
            ],
        )
        acknowledge_scale_in(
            self,
            arns=[
                f"arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/{cluster_name}/{s.nodegroup_name}/*"
                for s in scale_ins
            ],
        )
        for scale_in, nodegroup in zip(scale_ins, self.nodegroups, strict=True):
            schedule = scheduler.CfnSchedule(
                self,
                f"ScaleIn-{scale_in.nodegroup_name}",
                description=f"Empty {scale_in.nodegroup_name} before its Capacity Block ends",
                schedule_expression=scale_in.schedule_expression,
                schedule_expression_timezone="UTC",
                flexible_time_window=scheduler.CfnSchedule.FlexibleTimeWindowProperty(mode="OFF"),
                target=scheduler.CfnSchedule.TargetProperty(
                    arn=f"arn:{Aws.PARTITION}:scheduler:::aws-sdk:eks:updateNodegroupConfig",
                    role_arn=role.attr_arn,
                    input=json.dumps(
                        {
                            "ClusterName": cluster_name,
                            "NodegroupName": scale_in.nodegroup_name,
                            "ScalingConfig": {"MinSize": 0, "MaxSize": scale_in.max_size, "DesiredSize": 0},
                        },
                        sort_keys=True,
                    ),
                ),
            )
            schedule.node.add_dependency(nodegroup)

    def _zone_template(self, zone_id: str, zone: str, props: dict[str, Any]) -> eks.LaunchTemplateSpec:
        """A cluster placement group in ``zone`` and the zone's own launch template that launches into it."""
        group = ec2.CfnPlacementGroup(self, f"PlacementGroup-{zone_id}", strategy="cluster")
        del zone  # the group takes its zone from the first instance launched into it
        return node_launch_template(self, f"LaunchTemplate-{zone_id}", placement_group_name=group.ref, **props)
