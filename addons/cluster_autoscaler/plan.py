"""Cluster Autoscaler from config, as plain data: chart values, IAM policy, node-template tags.

Pure functions with no CDK import; ``addons.cluster_autoscaler.construct`` deploys them. Sources:
``cluster-autoscaler/cloudprovider/aws/README.md`` (auto-discovery, IAM policy, node templates)
and the chart's ``values.yaml`` (9.59.1), summarised in ``../shared/reference/cluster-autoscaler-chart-*/NOTES.md``.
"""

from __future__ import annotations

from typing import Any

import yaml

from addons.cluster_autoscaler.pin import (
    ACCELERATOR_LABEL,
    CLUSTER_AUTOSCALER_IMAGE,
    CLUSTER_AUTOSCALER_RELEASES,
    CLUSTER_AUTOSCALER_SERVICE_ACCOUNT,
    DISCOVERY_TAG_ENABLED,
    NODE_TEMPLATE_TAG,
    SAFE_TO_EVICT_ANNOTATION,
    discovery_tag,
)
from catalog.efa import EFA_PREALLOCATED_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE
from catalog.instances import INSTANCE_TYPES
from catalog.labels import DO_NOT_DISRUPT_ANNOTATION, ROLE_LABEL
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.iam.documents import VERSION
from policy.infrastructure.node_pools import (
    autoscaled_pools,
    efa_interfaces_per_node,
    gpu_node_labels,
    node_group_plans,
)

GANG_POD_ANNOTATIONS = {DO_NOT_DISRUPT_ANNOTATION: "true", SAFE_TO_EVICT_ANNOTATION: "false"}
"""On every gang pod: neither Karpenter nor Cluster Autoscaler removes a node a gang runs on (a bare Pod
already blocks Cluster Autoscaler's scale-down; a Job's pods would not without the annotation)."""
GPU_RESOURCE = "nvidia.com/gpu"


def accelerator_labels(pool: GpuPoolConfig) -> dict[str, str]:
    """``k8s.amazonaws.com/accelerator`` on autoscaled GPU nodes: Cluster Autoscaler then waits for a new
    node's GPUs instead of scaling up again while they are still being published (AWS README)."""
    model = INSTANCE_TYPES[pool.instance_types[0]].gpu_model
    return {ACCELERATOR_LABEL: model.value.lower()} if model is not None else {}


def node_template_tags(pool: GpuPoolConfig) -> dict[str, str]:
    """Tags on an autoscaled node group that describe the node Cluster Autoscaler would add from zero.

    Cluster Autoscaler reads a managed node group's labels, taints and these ``resources/*`` tags with
    ``eks:DescribeNodegroup`` (the node group's own tags win over its Auto Scaling group's). GPUs come from
    the instance type; EFA interfaces and the EFA driver's huge pages only from here. Labels and taints are
    tagged too, for any reader of the group's tags.
    """
    tags = {f"{NODE_TEMPLATE_TAG}/label/{key}": value for key, value in gpu_node_labels(pool).items()}
    tags |= {f"{NODE_TEMPLATE_TAG}/label/{key}": value for key, value in accelerator_labels(pool).items()}
    for taint in pool.taints:
        tags[f"{NODE_TEMPLATE_TAG}/taint/{taint.key}"] = f"{taint.value}:{taint.effect.value}"
    if pool.device_plugin:
        gpus = min(INSTANCE_TYPES[t].gpus for t in pool.instance_types)
        tags[f"{NODE_TEMPLATE_TAG}/resources/{GPU_RESOURCE}"] = str(gpus)
    efa = efa_interfaces_per_node(pool)
    if efa:
        tags[f"{NODE_TEMPLATE_TAG}/resources/{EFA_RESOURCE}"] = str(efa)
        # EFA pods request the huge pages the EFA driver pre-allocates; a template without them fits none.
        tags[f"{NODE_TEMPLATE_TAG}/resources/{HUGEPAGES_RESOURCE}"] = f"{2 * EFA_PREALLOCATED_HUGEPAGES}Mi"
    return dict(sorted(tags.items()))


def expander_priorities(env: EnvironmentConfig) -> str:
    """Priority expander: where a pending gang fits several autoscaled groups, the pool listed first in
    ``gpu_pools`` wins (a gang that asks for one pool's DeviceClass or taints fits only that pool's groups).
    Managed node groups name their Auto Scaling group ``eks-<node group name>-<uuid>``. Rendered as the
    YAML text the expander reads: its keys must be integers, which a values map would turn into strings."""
    pools = autoscaled_pools(env)
    priorities: dict[int, list[str]] = {1: [".*"]}
    for rank, pool in enumerate(pools):
        names = [plan.name for plan in node_group_plans(pool, cluster_name=env.cluster.name)]
        priorities[10 * (len(pools) - rank) + 10] = [f"^eks-{name}-.*" for name in names]
    return yaml.safe_dump(priorities, sort_keys=True)


def cluster_autoscaler_values(env: EnvironmentConfig) -> dict[str, Any]:
    """Values for chart ``cluster-autoscaler``: auto-discovery of this cluster's groups, the pinned image,
    the service account Pod Identity binds, the system nodes, the priority expander, and scale-down
    settings for training (a node running gang pods is never removed: they carry ``safe-to-evict: false``)."""
    release = CLUSTER_AUTOSCALER_RELEASES[env.cluster_autoscaler.version]
    return {
        "cloudProvider": "aws",
        "awsRegion": env.region,
        "autoDiscovery": {"clusterName": env.cluster.name},
        "image": {"repository": CLUSTER_AUTOSCALER_IMAGE, "tag": release.image_tag},
        "rbac": {"serviceAccount": {"create": True, "name": CLUSTER_AUTOSCALER_SERVICE_ACCOUNT}},
        "nodeSelector": {ROLE_LABEL: "system"},
        "expanderPriorities": expander_priorities(env),
        "extraArgs": {
            "expander": "priority,least-waste",
            "balance-similar-node-groups": False,
            "skip-nodes-with-local-storage": False,
            "scale-down-unneeded-time": f"{env.cluster_autoscaler.scale_down_unneeded_minutes}m",
            "max-node-provision-time": "15m0s",
        },
    }


def cluster_autoscaler_policy(*, cluster_name: str, partition: str, region: str, account_id: str) -> dict[str, Any]:
    """The AWS README's full-feature policy, with the two write actions limited to Auto Scaling groups
    tagged for this cluster's auto-discovery and ``DescribeNodegroup`` to this cluster's node groups.
    The read actions have no resource-level permissions."""
    groups = f"arn:{partition}:autoscaling:{region}:{account_id}:autoScalingGroup:*:autoScalingGroupName/*"
    owned = {
        f"aws:ResourceTag/{discovery_tag(cluster_name)}": "owned",
        f"aws:ResourceTag/{DISCOVERY_TAG_ENABLED}": "true",
    }
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Sid": "DescribeScalingInputs",
                "Effect": "Allow",
                "Action": [
                    "autoscaling:DescribeAutoScalingGroups",
                    "autoscaling:DescribeAutoScalingInstances",
                    "autoscaling:DescribeLaunchConfigurations",
                    "autoscaling:DescribeScalingActivities",
                    "autoscaling:DescribeTags",
                    "ec2:DescribeImages",
                    "ec2:DescribeInstanceTypes",
                    "ec2:DescribeLaunchTemplateVersions",
                    "ec2:GetInstanceTypesFromInstanceRequirements",
                ],
                "Resource": "*",
            },
            {
                "Sid": "ScaleThisClustersGroups",
                "Effect": "Allow",
                "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
                "Resource": groups,
                "Condition": {"StringEquals": owned},
            },
            {
                "Sid": "ReadThisClustersNodegroups",
                "Effect": "Allow",
                "Action": "eks:DescribeNodegroup",
                "Resource": f"arn:{partition}:eks:{region}:{account_id}:nodegroup/{cluster_name}/*/*",
            },
        ],
    }
