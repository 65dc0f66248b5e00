"""cdk-nag AwsSolutions checks, with every acknowledged finding and its reason in one place.

cdk-nag 3 reports each finding separately (``Rule[finding]``), so acknowledgements name
the finding, not just the rule: a new managed policy or wildcard shows up as an error.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, App, Stack, Validations
from cdk_nag import AwsSolutionsChecks

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
