"""EKS deletion protection, turned on once everything else of the stack exists.

Set on ``AWS::EKS::Cluster`` itself, deletion protection would be on from the cluster's first
second: when the first create then fails, CloudFormation cannot delete the cluster on rollback,
the stack ends in ``ROLLBACK_FAILED`` and the retry trips over the cluster name. So the cluster is
created unprotected (``RETAIN_ON_UPDATE_OR_DELETE``: CloudFormation's ``RetainExceptOnCreate``),
and this custom resource, created last, calls ``eks:UpdateClusterConfig`` with
``deletionProtection: true`` (EKS API reference, UpdateClusterConfig). If a create rolls back after
it ran, its delete turns protection off again so the cluster can go; it is itself
``RetainExceptOnCreate``, so deleting the stack later never runs that delete and the cluster stays
protected.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import custom_resources as cr
from constructs import Construct, IDependable


def _call(cluster_name: str, *, protect: bool) -> cr.AwsSdkCall:
    return cr.AwsSdkCall(
        service="EKS",
        action="updateClusterConfig",
        parameters={"name": cluster_name, "deletionProtection": protect},
        physical_resource_id=cr.PhysicalResourceId.of(f"{cluster_name}-deletion-protection"),
    )


class ClusterDeletionProtection(Construct):
    """Turns on the cluster's EKS deletion protection after ``after`` exist."""

    def __init__(
        self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, after: Sequence[IDependable]
    ) -> None:
        super().__init__(scope, construct_id)
        name = cluster.cluster_name
        arn = Stack.of(self).format_arn(service="eks", resource="cluster", resource_name=name)
        self.resource = cr.AwsCustomResource(
            self,
            "UpdateClusterConfig",
            on_create=_call(name, protect=True),
            on_update=_call(name, protect=True),
            on_delete=_call(name, protect=False),
            policy=cr.AwsCustomResourcePolicy.from_statements(
                [iam.PolicyStatement(actions=["eks:UpdateClusterConfig"], resources=[arn])]
            ),
            install_latest_aws_sdk=False,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.resource.node.add_dependency(cluster, *after)
