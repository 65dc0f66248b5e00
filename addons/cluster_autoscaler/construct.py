"""Cluster Autoscaler for the ``scaling: autoscaled`` node groups of one environment."""

from __future__ import annotations

from aws_cdk import Aws, Duration
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct, IConstruct

from addons.cluster_autoscaler.pin import (
    CLUSTER_AUTOSCALER,
    CLUSTER_AUTOSCALER_NAMESPACE,
    CLUSTER_AUTOSCALER_SERVICE_ACCOUNT,
)
from addons.cluster_autoscaler.plan import cluster_autoscaler_policy, cluster_autoscaler_values
from config.model import EnvironmentConfig
from policy.environment.acknowledgements import cluster_autoscaler_risks
from policy.iam.pod_identity import pod_identity_trust_policy
from stacks.acknowledged_risks import warn_acknowledged
from stacks.helm import pinned_chart
from stacks.nag import acknowledge_cluster_autoscaler
from stacks.pod_identity import pod_identity_agent


class ClusterAutoscaler(Construct):
    """The ``cluster-autoscaler`` chart on the system nodes, with its own Pod Identity role.

    The role may change only Auto Scaling groups tagged ``k8s.io/cluster-autoscaler/<cluster>: owned``,
    which EKS puts on this cluster's managed node groups, and read only this cluster's node groups.
    Static node groups are discovered too, but ``min = max`` leaves it nothing to change there.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        env: EnvironmentConfig,
        system_nodes: IConstruct,
    ) -> None:
        super().__init__(scope, construct_id)
        acknowledge_cluster_autoscaler(self, cluster_name=env.cluster.name)
        warn_acknowledged(self, cluster_autoscaler_risks(env))
        policy = iam.CfnManagedPolicy(
            self,
            "Policy",
            policy_document=cluster_autoscaler_policy(
                cluster_name=env.cluster.name, partition=Aws.PARTITION, region=Aws.REGION, account_id=Aws.ACCOUNT_ID
            ),
        )
        self.role = iam.CfnRole(
            self, "Role", assume_role_policy_document=pod_identity_trust_policy(), managed_policy_arns=[policy.ref]
        )
        agent = pod_identity_agent(self, cluster, system_nodes=system_nodes)
        association = eks.CfnPodIdentityAssociation(
            self,
            "PodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=CLUSTER_AUTOSCALER_NAMESPACE,
            service_account=CLUSTER_AUTOSCALER_SERVICE_ACCOUNT,
            role_arn=self.role.attr_arn,
        )
        self.chart = pinned_chart(
            self,
            "Chart",
            cluster=cluster,
            pin=CLUSTER_AUTOSCALER,
            values=cluster_autoscaler_values(env),
            wait_timeout=Duration.minutes(10),
        )
        for dependency in (association, agent, system_nodes):
            self.chart.node.add_dependency(dependency)
