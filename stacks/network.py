"""The cluster VPC: created over the configured zones, or imported by id without a lookup."""

from __future__ import annotations

from aws_cdk import Annotations, RemovalPolicy, Tags
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from constructs import Construct, IConstruct

from config.model import NetworkConfig


class ClusterNetwork(Construct):
    """Private node subnets in every zone; public subnets only for NAT and load balancers.

    An existing VPC is imported from the subnet ids in config, so synthesis needs no
    credentials and no context lookups.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        network: NetworkConfig,
        cluster_name: str,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        self.zones = network.zones
        existing = network.existing_vpc
        self.existing_subnet_ids = (
            tuple(existing.private_subnet_ids[z] for z in sorted(existing.private_subnet_ids)) if existing else None
        )
        if existing is not None:
            zones = sorted(existing.private_subnet_ids)
            self.vpc: ec2.IVpc = ec2.Vpc.from_vpc_attributes(
                self,
                "Vpc",
                vpc_id=existing.vpc_id,
                availability_zones=zones,
                private_subnet_ids=[existing.private_subnet_ids[z] for z in zones],
            )
            # Nothing in the kit reads an imported subnet's route table (no endpoints, no routes).
            Annotations.of(self.vpc).acknowledge_warning(
                "@aws-cdk/aws-ec2:noSubnetRouteTableId", "the kit never reads imported route tables"
            )
            return
        vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(str(network.vpc_cidr)),
            availability_zones=list(network.availability_zones),
            nat_gateways=network.nat_gateways,
            subnet_configuration=[
                ec2.SubnetConfiguration(name="public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=24),
                ec2.SubnetConfiguration(name="nodes", subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, cidr_mask=19),
            ],
            flow_logs={
                "rejected": ec2.FlowLogOptions(
                    traffic_type=ec2.FlowLogTrafficType.REJECT,
                    destination=ec2.FlowLogDestination.to_cloud_watch_logs(
                        logs.LogGroup(
                            self, "FlowLogs", retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal_policy
                        ),
                    ),
                )
            },
        )
        # Tags the AWS load balancer controller and Karpenter discover subnets by.
        for subnet in vpc.private_subnets:
            Tags.of(subnet).add("kubernetes.io/role/internal-elb", "1")
            Tags.of(subnet).add(f"kubernetes.io/cluster/{cluster_name}", "shared")
        self.vpc = vpc

    def acknowledge_untaggable_subnets(self, cluster: IConstruct, *, cluster_name: str) -> None:
        """Imported subnets cannot be tagged by the stack: say once what the user tags, instead of per subnet.

        Internal load balancers find their subnets by ``kubernetes.io/role/internal-elb=1``; Karpenter
        needs no tag here (its EC2NodeClasses select imported subnets by id).
        """
        if self.existing_subnet_ids is None:
            return
        Annotations.of(cluster).acknowledge_warning(
            "@aws-cdk/aws-eks:clusterMustManuallyTagSubnet", "replaced by gpu-platform:tag-imported-subnets"
        )
        warning = (
            f"network.existing_vpc: tag the private subnets {', '.join(self.existing_subnet_ids)} with "
            "kubernetes.io/role/internal-elb=1 for internal load balancers (the stack cannot tag imported "
            f"subnets; Karpenter selects them by id and needs no tag; cluster {cluster_name})"
        )
        Annotations.of(cluster).add_warning_v2("gpu-platform:tag-imported-subnets", warning)

    def private_subnets_in(self, zones: tuple[str, ...]) -> ec2.SubnetSelection:
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, availability_zones=list(zones))
