"""IAM policy documents of the Karpenter controller, as in Karpenter's getting-started template.

Six scoped policies (node lifecycle, IAM integration, EKS integration, interruption queue,
zonal shift, resource discovery): launches and deletions are limited to resources tagged
for this cluster and a NodePool, instance profiles to this cluster's EC2NodeClasses, and
``Resource: "*"`` appears only for read-only calls that have no resource-level permissions
(EC2 Describe*, pricing, instance-profile listing, zonal-shift status). Arguments may be
CloudFormation tokens (partition, region, account, ARNs); the cluster name must be literal
because it is part of condition keys. Source:
https://github.com/aws/karpenter-provider-aws/blob/main/website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml
"""

from __future__ import annotations

from typing import Any

from policy.iam.documents import VERSION, policy_document


def node_lifecycle_policy(*, cluster_name: str, partition: str, region: str) -> dict[str, Any]:
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster_name}": "owned"}
    request_owned = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster_name}": "owned",
        "aws:RequestTag/eks:eks-cluster-name": cluster_name,
    }
    tagged_kinds = ["fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request"]
    return policy_document(
        {
            "Sid": "AllowScopedEC2InstanceAccessActions",
            "Effect": "Allow",
            "Resource": [
                f"{ec2}::image/*",
                f"{ec2}::snapshot/*",
                f"{ec2}:*:security-group/*",
                f"{ec2}:*:subnet/*",
                f"{ec2}:*:capacity-reservation/*",
                f"{ec2}:*:placement-group/*",
            ],
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
        },
        {
            "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
            "Effect": "Allow",
            "Resource": f"{ec2}:*:launch-template/*",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Condition": {"StringEquals": owned, "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}},
        },
        {
            "Sid": "AllowScopedEC2InstanceActionsWithTags",
            "Effect": "Allow",
            "Resource": [f"{ec2}:*:{kind}/*" for kind in tagged_kinds],
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Condition": {
                "StringEquals": request_owned,
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceCreationTagging",
            "Effect": "Allow",
            "Resource": [f"{ec2}:*:{kind}/*" for kind in tagged_kinds],
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": {
                    **request_owned,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceTagging",
            "Effect": "Allow",
            "Resource": f"{ec2}:*:instance/*",
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": owned,
                "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster_name},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        },
        {
            "Sid": "AllowScopedDeletion",
            "Effect": "Allow",
            "Resource": [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Condition": {"StringEquals": owned, "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}},
        },
    )


def iam_integration_policy(
    *, cluster_name: str, partition: str, region: str, account_id: str, node_role_arn: str
) -> dict[str, Any]:
    profiles = f"arn:{partition}:iam::{account_id}:instance-profile/*"
    request_tags = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster_name}": "owned",
        "aws:RequestTag/eks:eks-cluster-name": cluster_name,
        "aws:RequestTag/topology.kubernetes.io/region": region,
    }
    resource_tags = {
        f"aws:ResourceTag/kubernetes.io/cluster/{cluster_name}": "owned",
        "aws:ResourceTag/topology.kubernetes.io/region": region,
    }
    return policy_document(
        {
            "Sid": "AllowPassingInstanceRole",
            "Effect": "Allow",
            "Resource": node_role_arn,
            "Action": "iam:PassRole",
            "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        },
        {
            "Sid": "AllowScopedInstanceProfileCreationActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": ["iam:CreateInstanceProfile"],
            "Condition": {
                "StringEquals": request_tags,
                "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileTagActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": ["iam:TagInstanceProfile"],
            "Condition": {
                "StringEquals": {**resource_tags, **request_tags},
                "StringLike": {
                    "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                },
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": [
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            "Condition": {
                "StringEquals": resource_tags,
                "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
    )


def eks_integration_policy(*, cluster_arn: str) -> dict[str, Any]:
    return policy_document(
        {
            "Sid": "AllowAPIServerEndpointDiscovery",
            "Effect": "Allow",
            "Resource": cluster_arn,
            "Action": "eks:DescribeCluster",
        }
    )


def interruption_policy(*, queue_arn: str) -> dict[str, Any]:
    return policy_document(
        {
            "Sid": "AllowInterruptionQueueActions",
            "Effect": "Allow",
            "Resource": queue_arn,
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
        }
    )


def zonal_shift_policy(*, cluster_arn: str) -> dict[str, Any]:
    return policy_document(
        {
            "Sid": "AllowZonalShiftStatusReadOnly",
            "Effect": "Allow",
            "Resource": "*",
            "Action": ["arc-zonal-shift:GetManagedResource"],
            "Condition": {"StringEquals": {"arc-zonal-shift:ResourceIdentifier": cluster_arn}},
        }
    )


def resource_discovery_policy(*, partition: str, region: str, account_id: str) -> dict[str, Any]:
    return policy_document(
        {
            "Sid": "AllowRegionalReadActions",
            "Effect": "Allow",
            "Resource": "*",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
        },
        {
            "Sid": "AllowSSMReadActions",
            "Effect": "Allow",
            "Resource": f"arn:{partition}:ssm:{region}::parameter/aws/service/*",
            "Action": "ssm:GetParameter",
        },
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
        {
            "Sid": "AllowUnscopedInstanceProfileListAction",
            "Effect": "Allow",
            "Resource": "*",
            "Action": "iam:ListInstanceProfiles",
        },
        {
            "Sid": "AllowInstanceProfileReadActions",
            "Effect": "Allow",
            "Resource": f"arn:{partition}:iam::{account_id}:instance-profile/*",
            "Action": "iam:GetInstanceProfile",
        },
    )


def controller_policies(
    *,
    cluster_name: str,
    partition: str,
    region: str,
    account_id: str,
    cluster_arn: str,
    node_role_arn: str,
    queue_arn: str,
) -> dict[str, dict[str, Any]]:
    """Every controller policy by the logical name the reference template gives it."""
    return {
        "NodeLifecyclePolicy": node_lifecycle_policy(cluster_name=cluster_name, partition=partition, region=region),
        "IAMIntegrationPolicy": iam_integration_policy(
            cluster_name=cluster_name,
            partition=partition,
            region=region,
            account_id=account_id,
            node_role_arn=node_role_arn,
        ),
        "EKSIntegrationPolicy": eks_integration_policy(cluster_arn=cluster_arn),
        "InterruptionPolicy": interruption_policy(queue_arn=queue_arn),
        "ZonalShiftPolicy": zonal_shift_policy(cluster_arn=cluster_arn),
        "ResourceDiscoveryPolicy": resource_discovery_policy(partition=partition, region=region, account_id=account_id),
    }


def interruption_queue_policy(*, queue_arn: str, rule_arns: list[str]) -> dict[str, Any]:
    """Only this stack's EventBridge rules may send; every non-TLS request is denied.

    Tighter than the reference, which lets any EventBridge rule (and SQS) send: we name
    our rules with ``aws:SourceArn``.
    """
    return {
        "Version": VERSION,
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Sid": "AllowInterruptionRules",
                "Effect": "Allow",
                "Principal": {"Service": "events.amazonaws.com"},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
                "Condition": {"ArnEquals": {"aws:SourceArn": rule_arns}},
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "sqs:*",
                "Resource": queue_arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            },
        ],
    }
