"""EFA networking for GPU pools: the self-referencing security group.

The EFA device plugin is an add-on of its own (``addons.efa_device_plugin``).
"""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2
from constructs import Construct


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
