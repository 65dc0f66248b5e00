"""How a GPU pool from config becomes node groups: names, zones, labels, sizes, user data, and
how many of its nodes exist before a gang arrives, and how many can come to exist at all."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, timedelta

import yaml

from addons.cluster_autoscaler.pin import NODE_READY_SECONDS, SCALE_UP_DECISION_SECONDS
from addons.karpenter.pin import KARPENTER_RELEASES
from addons.karpenter.settings import KarpenterMode, KarpenterPoolConfig
from catalog.efa import EFA_LABEL, EFA_SUPPORT
from catalog.labels import (
    DEVICE_MANAGEMENT_DEVICE_PLUGIN,
    DEVICE_MANAGEMENT_DRA,
    DEVICE_MANAGEMENT_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
    ROLE_LABEL,
)
from catalog.versions import NODEADM_API_VERSION
from config.model import CapacityProvider, CapacityType, EnvironmentConfig, GpuPoolConfig, PoolScaling, Taint
from policy.gates.rules import kubelet_feature_gates

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


SCALE_IN_MINUTES_BEFORE_END = 60
"""Default lead time of a Capacity Block's scale-in before the block ends."""


@dataclass(frozen=True)
class ScheduledScaleIn:
    """Scale one Capacity Block node group to 0 nodes at a fixed time, before its block ends."""

    nodegroup_name: str
    max_size: int
    schedule_expression: str
    """EventBridge Scheduler one-time expression, ``at(yyyy-mm-ddThh:mm:ss)`` in UTC."""


def capacity_block_scale_ins(pool: GpuPoolConfig, *, cluster_name: str) -> list[ScheduledScaleIn]:
    """The schedules that empty a Capacity Block pool's node groups ``scale_in_minutes_before_end`` before
    ``ends_at`` (EKS capacity-blocks-mng: scale to 0 before the block ends); none without ``ends_at``."""
    ends_at = pool.capacity.ends_at
    if ends_at is None:
        return []
    utc = ends_at.astimezone(UTC) if ends_at.tzinfo else ends_at.replace(tzinfo=UTC)
    at = utc - timedelta(minutes=pool.capacity.scale_in_minutes_before_end or SCALE_IN_MINUTES_BEFORE_END)
    expression = f"at({at.strftime('%Y-%m-%dT%H:%M:%S')})"
    return [
        ScheduledScaleIn(plan.name, plan.max_size, expression)
        for plan in node_group_plans(pool, cluster_name=cluster_name)
    ]


def node_group_plans(pool: GpuPoolConfig, *, cluster_name: str) -> list[NodeGroupPlan]:
    """A zone-pinned pool gets one node group per zone (sizes per zone); otherwise one spanning all."""
    desired = pool.desired_size if pool.desired_size is not None else pool.min_size
    if pool_scaling(pool) is PoolScaling.STATIC:
        desired = pool.max_size
    groups = [(z,) for z in pool.zones] if pool.zone_pinned else [pool.zones]
    return [
        NodeGroupPlan(
            construct_id=zones[0] if pool.zone_pinned else "all-zones",
            name=f"{cluster_name}-{pool.name}-{zones[0][-2:]}" if pool.zone_pinned else f"{cluster_name}-{pool.name}",
            zones=zones,
            min_size=pool.max_size if pool_scaling(pool) is PoolScaling.STATIC else pool.min_size,
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


def pool_scaling(pool: GpuPoolConfig) -> PoolScaling | None:
    """How a managed node group pool scales (``static`` unless it says ``autoscaled``); ``None`` for a
    Karpenter pool, whose ``karpenter.mode`` decides."""
    if pool.provider is CapacityProvider.KARPENTER:
        return None
    return pool.scaling or PoolScaling.STATIC


def _karpenter_mode(pool: GpuPoolConfig) -> KarpenterMode:
    return (pool.karpenter or KarpenterPoolConfig()).mode


def autoscaled_pools(env: EnvironmentConfig) -> tuple[GpuPoolConfig, ...]:
    """Managed node group pools Cluster Autoscaler scales; it is installed only when there are any."""
    return tuple(p for p in env.gpu_pools if pool_scaling(p) is PoolScaling.AUTOSCALED)


def _per_zone(pool: GpuPoolConfig, nodes: int) -> int:
    """Nodes of a node group (or NodePool) counted in one of its zones: all of them when zone-pinned;
    otherwise the share an Auto Scaling group's zone balancing guarantees each zone."""
    return nodes if pool.zone_pinned else nodes // len(pool.zones)


def static_nodes_in_zone(pool: GpuPoolConfig, zone: str) -> int:
    """Nodes of the pool in ``zone`` that exist before any gang arrives: a static node group's size, an
    autoscaled group's ``min_size``, a static NodePool's ``replicas``; none for a dynamic NodePool."""
    if zone not in pool.zones:
        return 0
    if pool.provider is CapacityProvider.KARPENTER:
        return _per_zone(pool, pool.max_size) if _karpenter_mode(pool) is KarpenterMode.STATIC else 0
    return _per_zone(pool, pool.max_size if pool_scaling(pool) is PoolScaling.STATIC else pool.min_size)


def static_nodes(pool: GpuPoolConfig) -> int:
    """Nodes of the whole pool that exist before any gang arrives (see ``static_nodes_in_zone``)."""
    if pool.provider is CapacityProvider.KARPENTER:
        per_group = pool.max_size if _karpenter_mode(pool) is KarpenterMode.STATIC else 0
    else:
        per_group = pool.max_size if pool_scaling(pool) is PoolScaling.STATIC else pool.min_size
    return per_group * (len(pool.zones) if pool.zone_pinned else 1)


def autoscaler_blocker(env: EnvironmentConfig, pool: GpuPoolConfig, *, preempting_pods: bool = False) -> str | None:
    """Why no autoscaler adds nodes to the pool for its GPU pods, or ``None`` when one does.

    Cluster Autoscaler builds a node from an empty group without ResourceSlices on AWS, so pods that get
    GPUs only through a ResourceClaim never scale a DRA group up from zero (1 -> N works); and its DRA
    simulation does not support pods with ``preemptionPolicy: PreemptLowerPriority`` (kubernetes/autoscaler
    ``cluster-autoscaler/docs/dra_support.md``, "Limitations"). No released Karpenter provisions for such
    pods (aws/karpenter-provider-aws#9519): a release row must say DRA and be verified.
    """
    if pool.provider is CapacityProvider.KARPENTER:
        if _karpenter_mode(pool) is KarpenterMode.STATIC:
            return f"pool {pool.name} is a static NodePool of {pool.max_size} nodes"
        release = KARPENTER_RELEASES.get(env.karpenter.version)
        if pool.dra and not (release is not None and release.dra and release.verified):
            return (
                f"pool {pool.name} is a dynamic Karpenter pool, and no verified Karpenter release provisions nodes "
                "for pods that ask for GPUs only through a ResourceClaim"
            )
        return None
    if pool_scaling(pool) is PoolScaling.STATIC:
        return f"pool {pool.name} is static at {pool.max_size} nodes{' per zone' if pool.zone_pinned else ''}"
    if pool.dra and pool.min_size == 0:
        return (
            f"pool {pool.name} is autoscaled from 0 nodes, and Cluster Autoscaler cannot scale a DRA group up from "
            "zero on AWS"
        )
    if pool.dra and preempting_pods:
        return (
            f"pool {pool.name} is autoscaled, and Cluster Autoscaler's DRA simulation does not support pods with "
            "preemptionPolicy PreemptLowerPriority"
        )
    return None


def reachable_nodes_in_zone(
    env: EnvironmentConfig, pool: GpuPoolConfig, zone: str, *, preempting_pods: bool = False
) -> int:
    """Nodes of the pool in ``zone`` that can really come to exist: the static nodes, plus the autoscaled or
    Karpenter headroom only when an autoscaler is installed for the pool and can scale it for its pods
    (``autoscaler_blocker``). ``preempting_pods``: the pods' PriorityClass preempts."""
    if zone not in pool.zones:
        return 0
    if autoscaler_blocker(env, pool, preempting_pods=preempting_pods) is not None:
        return static_nodes_in_zone(pool, zone)
    if pool.provider is CapacityProvider.KARPENTER:
        return max_nodes_in_zone(pool, zone)  # Karpenter places a non-pinned pool's nodes where the pods need them
    return _per_zone(pool, pool.max_size)


def reachable_nodes(env: EnvironmentConfig, pool: GpuPoolConfig, *, preempting_pods: bool = False) -> int:
    """Nodes of the whole pool that can really come to exist (see ``reachable_nodes_in_zone``)."""
    if autoscaler_blocker(env, pool, preempting_pods=preempting_pods) is None:
        return max_nodes(pool)
    return static_nodes(pool)


def scale_up_delay_seconds(env: EnvironmentConfig, pool: GpuPoolConfig) -> float:
    """Typical time from a pending pod to a Ready node added for it: 0 where every node already exists,
    otherwise Cluster Autoscaler's decision bound plus its node-provisioning figure
    (``addons.cluster_autoscaler.pin``); Karpenter nodes boot the same AMI and drivers."""
    del env
    static = (
        _karpenter_mode(pool) is KarpenterMode.STATIC
        if pool.provider is CapacityProvider.KARPENTER
        else pool_scaling(pool) is PoolScaling.STATIC
    )
    return 0.0 if static else SCALE_UP_DECISION_SECONDS + NODE_READY_SECONDS


def efa_enabled(pool: GpuPoolConfig) -> bool:
    """``efa`` as set, else on when every instance type of the pool supports EFA (and, for a Karpenter
    pool, one EC2NodeClass interface layout fits every type it may launch: ``karpenter_efa_problem``)."""
    if pool.efa is not None:
        return pool.efa
    if not all(t in EFA_SUPPORT for t in pool.instance_types):
        return False
    return pool.provider is not CapacityProvider.KARPENTER or karpenter_efa_problem(pool) is None


def karpenter_efa_problem(pool: GpuPoolConfig) -> tuple[str, str] | None:
    """Why a Karpenter pool cannot carry EFA, as ``(problem, fix)``; ``None`` when it can.

    Karpenter's EC2NodeClass ``spec.networkInterfaces`` (since Karpenter 1.11; in the reference CRD, of
    Karpenter main 2026-08-21, ``interfaceType`` is ``interface`` or ``efa-only``) gives every instance
    it launches one fixed layout, so every type the pool may launch must take the same EFA interfaces,
    all ``efa-only``. And only static NodePools: EFA pods request ``hugepages-2Mi``, which Karpenter's
    instance types do not model (kubernetes-sigs/karpenter#751, open; aws/karpenter-provider-aws#3315), so
    a dynamic pool would never launch a node for them; a static pool's nodes exist before the pods do.
    """
    if _karpenter_mode(pool) is not KarpenterMode.STATIC:
        return (
            "EFA pods request the EFA driver's hugepages-2Mi, which Karpenter cannot provision for "
            "(kubernetes-sigs/karpenter#751), so a dynamic pool would never launch their nodes",
            "set karpenter.mode: static (every node exists before the pods), or set efa: false",
        )
    families = pool.karpenter.instance_families if pool.karpenter is not None else ()
    if families:
        return (
            f"karpenter.instance_families {list(families)} lets Karpenter launch any size of the families, "
            "and the sizes differ in EFA interfaces or have none",
            "list the EFA sizes in instance_types and drop karpenter.instance_families, or set efa: false",
        )
    missing = [t for t in pool.instance_types if t not in EFA_SUPPORT]
    if missing:
        return (
            f"{missing[0]} has no EFA interfaces",
            "use EFA instance types only (catalog/efa.py), or set efa: false",
        )
    layouts = {EFA_SUPPORT[t] for t in pool.instance_types}
    if len(layouts) > 1:
        counts = ", ".join(f"{t} {EFA_SUPPORT[t].efa_interfaces}" for t in pool.instance_types)
        return (
            f"one EC2NodeClass carries one network interface layout, but the types take different EFA "
            f"interfaces ({counts})",
            "give each EFA layout its own Karpenter pool, or set efa: false",
        )
    (layout,) = layouts
    if not layout.efa_only or layout.efa_interfaces != layout.network_cards:
        return (
            "Karpenter's EC2NodeClass offers only efa-only EFA interfaces, one on every network card",
            "use a managed node group for this instance type, or set efa: false",
        )
    return None


def efa_interfaces_per_node(pool: GpuPoolConfig) -> int:
    """EFA interfaces each node of the pool carries (one per network card; the fewest over its types)."""
    if not efa_enabled(pool):
        return 0
    return min(EFA_SUPPORT[t].efa_interfaces for t in pool.instance_types)


def placement_group_enabled(pool: GpuPoolConfig) -> bool:
    """A cluster placement group per zone: ``placement_group`` as set, else on for zone-pinned EFA node
    group pools except Capacity Blocks (Karpenter pools get none: the kit builds placement groups into
    launch templates only). A block's instances sit where the block was reserved: forcing them into
    another group fails with insufficient capacity (terraform-aws-eks #3730)."""
    if pool.placement_group is not None:
        return pool.placement_group
    return (
        pool.provider is CapacityProvider.MANAGED_NODE_GROUP
        and efa_enabled(pool)
        and pool.zone_pinned
        and pool.capacity.type is not CapacityType.CAPACITY_BLOCK
    )


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
    if efa_enabled(pool):
        labels[EFA_LABEL] = "true"
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
