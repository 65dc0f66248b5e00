"""Karpenter as the second GPU capacity provider: IAM, interruption queue, charts, NodePools.

Mirrors Karpenter's getting-started CloudFormation (node role with an ``EC2_LINUX`` access
entry, six scoped controller policies, a 300-second SSE queue fed by five EventBridge
rules), binds the controller role with EKS Pod Identity, installs the CRD chart, then the
controller on the CPU system nodes, then the EC2NodeClasses and NodePools built by
``addons.karpenter.plan``. L1 constructs throughout: few jsii calls, fast synthesis.
"""

from __future__ import annotations

from aws_cdk import Aws, Duration
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sqs as sqs
from constructs import Construct, IConstruct

from addons.karpenter.iam import controller_policies, interruption_queue_policy
from addons.karpenter.pin import (
    INTERRUPTION_EVENTS,
    KARPENTER_CHART_REPOSITORY,
    KARPENTER_CRD_CHART_REPOSITORY,
    KARPENTER_NAMESPACE,
    KARPENTER_RELEASE,
)
from addons.karpenter.plan import (
    interruption_queue_name,
    karpenter_chart_values,
    karpenter_objects,
    node_role_name,
)
from config.model import EnvironmentConfig
from policy.environment.acknowledgements import karpenter_risks
from policy.iam.documents import service_trust_policy
from policy.iam.pod_identity import pod_identity_trust_policy
from stacks.acknowledged_risks import warn_acknowledged
from stacks.jsii_types import as_icluster
from stacks.nag import acknowledge_karpenter
from stacks.pod_identity import pod_identity_agent

_NODE_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)
_QUEUE_RETENTION_SECONDS = 300


class Karpenter(Construct):
    """Karpenter for the ``provider: karpenter`` GPU pools of one environment.

    Order, as CloudFormation dependencies: IAM, queue and Pod Identity first; the CRD chart
    after the system nodes; the controller after the CRDs; NodePools and EC2NodeClasses
    after the controller.
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
        cluster_name = env.cluster.name
        warn_acknowledged(self, karpenter_risks(env))
        acknowledge_karpenter(self)

        self.node_role = iam.CfnRole(
            self,
            "NodeRole",
            role_name=node_role_name(cluster_name),
            assume_role_policy_document=service_trust_policy(f"ec2.{Aws.URL_SUFFIX}"),
            managed_policy_arns=[
                iam.ManagedPolicy.from_aws_managed_policy_name(name).managed_policy_arn for name in _NODE_POLICIES
            ],
        )
        self.node_access = eks.CfnAccessEntry(
            self,
            "NodeAccessEntry",
            cluster_name=cluster.cluster_name,
            principal_arn=self.node_role.attr_arn,
            type="EC2_LINUX",
        )

        self.queue = sqs.CfnQueue(
            self,
            "InterruptionQueue",
            queue_name=interruption_queue_name(cluster_name),
            message_retention_period=_QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
        )
        rules = [
            events.CfnRule(
                self,
                event.construct_id,
                description=f"{event.detail_type} events for Karpenter in {cluster_name}",
                event_pattern={"source": [event.source], "detail-type": [event.detail_type]},
                targets=[events.CfnRule.TargetProperty(id="KarpenterInterruptionQueueTarget", arn=self.queue.attr_arn)],
            )
            for event in INTERRUPTION_EVENTS
        ]
        sqs.CfnQueuePolicy(
            self,
            "InterruptionQueuePolicy",
            queues=[self.queue.ref],
            policy_document=interruption_queue_policy(
                queue_arn=self.queue.attr_arn, rule_arns=[r.attr_arn for r in rules]
            ),
        )

        policies = controller_policies(
            cluster_name=cluster_name,
            partition=Aws.PARTITION,
            region=Aws.REGION,
            account_id=Aws.ACCOUNT_ID,
            cluster_arn=cluster.cluster_arn,
            node_role_arn=self.node_role.attr_arn,
            queue_arn=self.queue.attr_arn,
        )
        self.controller_role = iam.CfnRole(
            self,
            "ControllerRole",
            assume_role_policy_document=pod_identity_trust_policy(),
            managed_policy_arns=[
                iam.CfnManagedPolicy(self, name, policy_document=document).ref for name, document in policies.items()
            ],
        )
        agent = pod_identity_agent(self, cluster, system_nodes=system_nodes)
        association = eks.CfnPodIdentityAssociation(
            self,
            "ControllerPodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=KARPENTER_NAMESPACE,
            service_account=KARPENTER_RELEASE,
            role_arn=self.controller_role.attr_arn,
        )

        self.crds = eks.HelmChart(
            self,
            "Crds",
            cluster=as_icluster(cluster),
            chart="karpenter-crd",
            repository=KARPENTER_CRD_CHART_REPOSITORY,
            version=env.karpenter.version,
            release="karpenter-crd",
            namespace=KARPENTER_NAMESPACE,
        )
        self.crds.node.add_dependency(system_nodes)
        self.controller = eks.HelmChart(
            self,
            "Controller",
            cluster=as_icluster(cluster),
            chart="karpenter",
            repository=KARPENTER_CHART_REPOSITORY,
            version=env.karpenter.version,
            release=KARPENTER_RELEASE,
            namespace=KARPENTER_NAMESPACE,
            skip_crds=True,
            values=karpenter_chart_values(env),
            wait=True,
            timeout=Duration.minutes(10),
        )
        for dependency in (self.crds, association, agent, self.queue, system_nodes):
            self.controller.node.add_dependency(dependency)

        self.node_pools = eks.KubernetesManifest(
            self,
            "NodePools",
            cluster=as_icluster(cluster),
            manifest=karpenter_objects(env),
            overwrite=True,
        )
        self.node_pools.node.add_dependency(self.controller)
        self.node_pools.node.add_dependency(self.node_access)
