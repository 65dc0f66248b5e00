"""EFA networking for GPU pools: the self-referencing security group, placement groups, the device plugin."""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from catalog import versions
from config.model import EnvironmentConfig
from policy.infrastructure.efa import efa_device_plugin_values
from stacks.helm import pinned_chart


class EfaSecurityGroup(Construct):
    """A security group allowing all traffic to and from itself, in and out, attached to every EFA interface.

    EFA's OS-bypass traffic must be allowed both ways between members of one group (EC2 User Guide,
    "Prepare an EFA-enabled security group"); the nodes' other traffic goes through the cluster security group.
    """

    def __init__(self, scope: Construct, construct_id: str, *, vpc: ec2.IVpc, cluster_name: str) -> None:
        super().__init__(scope, construct_id)
        self.group = ec2.CfnSecurityGroup(
            self,
            "Group",
            group_description=f"EFA traffic between GPU nodes of {cluster_name}",
            vpc_id=vpc.vpc_id,
        )
        self.group_id = self.group.attr_group_id
        ec2.CfnSecurityGroupIngress(
            self,
            "FromItself",
            group_id=self.group_id,
            ip_protocol="-1",
            source_security_group_id=self.group_id,
            description="All traffic from EFA nodes",
        )
        ec2.CfnSecurityGroupEgress(
            self,
            "ToItself",
            group_id=self.group_id,
            ip_protocol="-1",
            destination_security_group_id=self.group_id,
            description="All traffic to EFA nodes",
        )


class EfaDevicePlugin(Construct):
    """Helm release of ``aws-efa-k8s-device-plugin``: advertises ``vpc.amazonaws.com/efa`` on EFA pools only.

    The device plugin rather than AWS's EFA DRA driver (``aws-dranet``): its extended resource is what
    Cluster Autoscaler's node templates can express, and on the EKS AL2023 accelerated AMIs it aligns GPUs
    and EFA by itself; docs/concepts/pools.md ("Why the EFA device plugin and not the EFA DRA driver") has
    the evaluation and what would change it. The image comes from the cluster's Region's EKS registry.
    """

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, env: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = pinned_chart(
            self, "Chart", cluster=cluster, pin=versions.EFA_DEVICE_PLUGIN, values=efa_device_plugin_values(env)
        )
