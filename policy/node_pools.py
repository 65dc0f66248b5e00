"""How a GPU pool from config becomes node groups: names, zones, labels, sizes, user data."""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from catalog.labels import (
    DEVICE_MANAGEMENT_DEVICE_PLUGIN,
    DEVICE_MANAGEMENT_DRA,
    DEVICE_MANAGEMENT_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
    ROLE_LABEL,
)
from catalog.versions import NODEADM_API_VERSION
from config.model import GpuPoolConfig, Taint
from policy.gates import kubelet_feature_gates

_MIME_BOUNDARY = "==NODEADM=="


@dataclass(frozen=True)
class NodeGroupPlan:
    """One managed node group: a whole pool, or the pool's share in one zone."""

    construct_id: str
    name: str
    zones: tuple[str, ...]
    min_size: int
    max_size: int
    desired_size: int


def node_group_plans(pool: GpuPoolConfig, *, cluster_name: str) -> list[NodeGroupPlan]:
    """A zone-pinned pool gets one node group per zone (sizes per zone); otherwise one spanning all."""
    desired = pool.desired_size if pool.desired_size is not None else pool.min_size
    groups = [(z,) for z in pool.zones] if pool.zone_pinned else [pool.zones]
    return [
        NodeGroupPlan(
            construct_id=zones[0] if pool.zone_pinned else "all-zones",
            name=f"{cluster_name}-{pool.name}-{zones[0][-2:]}" if pool.zone_pinned else f"{cluster_name}-{pool.name}",
            zones=zones,
            min_size=pool.min_size,
            max_size=pool.max_size,
            desired_size=desired,
        )
        for zones in groups
    ]


def max_nodes_in_zone(pool: GpuPoolConfig, zone: str) -> int:
    """Most nodes the pool can run in ``zone``: ``max_size`` applies per zone when the pool is
    zone-pinned (one node group or NodePool per zone), and to the whole pool otherwise, all of
    which may land in one zone."""
    return pool.max_size if zone in pool.zones else 0


def max_nodes(pool: GpuPoolConfig) -> int:
    """Most nodes the pool can run across all its zones."""
    return pool.max_size * (len(pool.zones) if pool.zone_pinned else 1)


def device_management(pool: GpuPoolConfig) -> str:
    return DEVICE_MANAGEMENT_DRA if pool.dra else DEVICE_MANAGEMENT_DEVICE_PLUGIN


def gpu_node_labels(pool: GpuPoolConfig) -> dict[str, str]:
    """Pool labels plus the platform's own; the platform's win, so a pool cannot mislabel itself."""
    labels = {
        **pool.labels,
        POOL_LABEL: pool.name,
        ROLE_LABEL: "gpu",
        DEVICE_MANAGEMENT_LABEL: device_management(pool),
    }
    if pool.mig_profile is not None:
        labels[MIG_CONFIG_LABEL] = f"all-{pool.mig_profile}"
    return labels


def node_config_user_data(kubelet_gates: tuple[str, ...]) -> str:
    """MIME multipart user data carrying a nodeadm ``NodeConfig`` with the kubelet feature gates.

    Managed node groups merge this part with the NodeConfig EKS generates for the cluster.
    """
    node_config = {
        "apiVersion": NODEADM_API_VERSION,
        "kind": "NodeConfig",
        "spec": {"kubelet": {"config": {"featureGates": kubelet_feature_gates(kubelet_gates)}}},
    }
    body = yaml.safe_dump(node_config, sort_keys=True)
    return (
        "MIME-Version: 1.0\n"
        f'Content-Type: multipart/mixed; boundary="{_MIME_BOUNDARY}"\n\n'
        f"--{_MIME_BOUNDARY}\n"
        "Content-Type: application/node.eks.aws\n\n"
        f"{body}\n"
        f"--{_MIME_BOUNDARY}--\n"
    )


def tolerations_for(taints: tuple[Taint, ...]) -> list[dict[str, str]]:
    """Kubernetes tolerations that admit pods onto nodes with these taints."""
    unique = {(t.key, t.value, t.effect.value) for t in taints}
    return [
        {"key": key, "operator": "Equal", "value": value, "effect": effect}
        if value
        else {"key": key, "operator": "Exists", "effect": effect}
        for key, value, effect in sorted(unique)
    ]
