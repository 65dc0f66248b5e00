"""cdk-nag AwsSolutions checks, with every acknowledged finding and its reason in one place.

cdk-nag 3 reports each finding separately (``Rule[finding]``), so acknowledgements name
the finding, not just the rule: a new managed policy or wildcard shows up as an error.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, App, Stack, Validations
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

_PACK = "AwsSolutions::"


def _managed(policy: str) -> str:
    return f"AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{policy}]"


_ECR_PUBLIC_CONDITION = (
    'AwsSolutions-IAM4[Policy::{"Fn::If":["ClusterKubectlProviderHandlerHasEcrPublic69E09706",'
    '{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},'
    '":iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly"]]},{"Ref":"AWS::NoValue"}]}]'
)

CLUSTER_ACKNOWLEDGEMENTS: dict[str, tuple[str, ...]] = {
    "EKS requires its AWS managed policy on the cluster role.": (_managed("AmazonEKSClusterPolicy"),),
    "Worker nodes need the AWS managed EKS worker, CNI, ECR pull-only and SSM core policies "
    "(the set the EKS and Karpenter documentation prescribe).": (
        _managed("AmazonEKSWorkerNodePolicy"),
        _managed("AmazonEKS_CNI_Policy"),
        _managed("AmazonEC2ContainerRegistryPullOnly"),
        _managed("AmazonSSMManagedInstanceCore"),
    ),
    "The kubectl handler and its provider framework are built by aws-cdk-lib with the AWS managed "
    "Lambda execution and ECR read policies; this app does not define those roles.": (
        _managed("service-role/AWSLambdaBasicExecutionRole"),
        _managed("service-role/AWSLambdaVPCAccessExecutionRole"),
        _managed("AmazonEC2ContainerRegistryReadOnly"),
        _ECR_PUBLIC_CONDITION,
    ),
    "The provider framework may invoke any version of the kubectl handler function (aws-cdk-lib policy).": (
        "AwsSolutions-IAM5[Resource::<ClusterKubectlProviderHandler2E05C68A.Arn>:*]",
    ),
    "The provider framework's Lambda runtime is pinned by aws-cdk-lib, not by this app.": ("AwsSolutions-L1",),
}


def _ec2(resource: str) -> str:
    return f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:{resource}/*]"


_KARPENTER_EC2_RESOURCES = (
    ":image",
    ":snapshot",
    "*:security-group",
    "*:subnet",
    "*:capacity-reservation",
    "*:placement-group",
    "*:launch-template",
    "*:fleet",
    "*:instance",
    "*:volume",
    "*:network-interface",
    "*:spot-instances-request",
)


KARPENTER_ACKNOWLEDGEMENTS: dict[str, tuple[str, ...]] = {
    "Karpenter's node-lifecycle policy (its getting-started template): launching needs any image, snapshot, "
    "security group, subnet, capacity reservation and placement group of the region; creating, tagging and "
    "deleting fleets, instances, volumes, network interfaces, launch templates and spot requests is limited "
    "by conditions to resources tagged for this cluster and a Karpenter NodePool.": tuple(
        _ec2(resource) for resource in _KARPENTER_EC2_RESOURCES
    ),
    "Karpenter creates one instance profile per EC2NodeClass under generated names; create, tag, change and "
    "delete are limited by conditions to profiles tagged for this cluster, region and an EC2NodeClass.": (
        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:instance-profile/*]",
    ),
    "EC2 Describe*, pricing:GetProducts, iam:ListInstanceProfiles and arc-zonal-shift:GetManagedResource have no "
    "resource-level permissions; the EC2 reads are limited to this region and the zonal-shift read to this "
    "cluster by conditions.": ("AwsSolutions-IAM5[Resource::*]",),
    "Karpenter reads the public EKS-optimized AMI parameters under /aws/service/ to resolve its AMI alias.": (
        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>::parameter/aws/service/*]",
    ),
    "Interruption events are only useful for minutes (300 s retention, as Karpenter prescribes); a message "
    "Karpenter cannot handle is stale before anyone could replay it from a dead-letter queue.": ("AwsSolutions-SQS3",),
}
"""Acknowledged on the Karpenter construct only, so the same finding elsewhere in a stack still fails."""


def acknowledge_karpenter(scope: IConstruct) -> None:
    """Acknowledge ``KARPENTER_ACKNOWLEDGEMENTS`` under ``scope`` (the Karpenter construct)."""
    Validations.of(scope).acknowledge(
        *(
            Acknowledgment(id=f"{_PACK}{finding}", reason=reason)
            for reason, findings in KARPENTER_ACKNOWLEDGEMENTS.items()
            for finding in findings
        )
    )


CLUSTER_AUTOSCALER_ACKNOWLEDGEMENTS: dict[str, tuple[str, ...]] = {
    "Cluster Autoscaler's Auto Scaling and EC2 reads have no resource-level permissions; its two write actions "
    "are limited by condition to Auto Scaling groups tagged for this cluster's auto-discovery, whose names "
    "EKS generates.": (
        "AwsSolutions-IAM5[Resource::*]",
        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:autoscaling:<AWS::Region>:<AWS::AccountId>:"
        "autoScalingGroup:*:autoScalingGroupName/*]",
    ),
}
"""Acknowledged on the Cluster Autoscaler construct only."""
_NODEGROUP_READS = (
    "Cluster Autoscaler reads the labels, taints and node-template tags of this cluster's node groups "
    "(eks:DescribeNodegroup), whose names and ids it discovers."
)


def acknowledge_cluster_autoscaler(scope: IConstruct, *, cluster_name: str) -> None:
    """Acknowledge ``CLUSTER_AUTOSCALER_ACKNOWLEDGEMENTS`` and the reads of this cluster's node groups under
    ``scope`` (the Cluster Autoscaler construct)."""
    nodegroups = (
        f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:"
        f"nodegroup/{cluster_name}/*/*]"
    )
    Validations.of(scope).acknowledge(
        Acknowledgment(id=f"{_PACK}{nodegroups}", reason=_NODEGROUP_READS),
        *(
            Acknowledgment(id=f"{_PACK}{finding}", reason=reason)
            for reason, findings in CLUSTER_AUTOSCALER_ACKNOWLEDGEMENTS.items()
            for finding in findings
        ),
    )


def acknowledge_scale_in(scope: IConstruct, *, arns: list[str]) -> None:
    """The Capacity Block scale-in role updates only its pool's node groups, whose ids EKS generates."""
    Validations.of(scope).acknowledge(
        *(
            Acknowledgment(
                id=f"{_PACK}AwsSolutions-IAM5[Resource::{arn}]",
                reason="The scale-in schedule may update only this pool's node groups; EKS appends a generated id.",
            )
            for arn in arns
        )
    )


def acknowledged_findings() -> list[str]:
    return sorted(f for findings in CLUSTER_ACKNOWLEDGEMENTS.values() for f in findings)


def apply_nag(app: App, stacks: list[Stack]) -> None:
    """Run ``AwsSolutionsChecks`` on the whole app; synthesis fails on any unacknowledged error."""
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    acknowledgements = [
        Acknowledgment(id=f"{_PACK}{finding}", reason=reason)
        for reason, findings in CLUSTER_ACKNOWLEDGEMENTS.items()
        for finding in findings
    ]
    for stack in stacks:
        Validations.of(stack).acknowledge(*acknowledgements)
