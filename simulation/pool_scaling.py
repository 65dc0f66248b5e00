"""How many nodes a pool has and can get per zone, and how long a scale-up takes.

The simulation asks only this module, so there is one place to follow the environment's
scaling model. It answers from the sizes the environment declares today: ``min_size``
(``desired_size``) nodes exist, ``max_size`` is reachable (``policy.node_pools.max_nodes_in_zone``,
as ``make check`` counts it). Replaced by ``policy.node_pools``'s functions of the same names
once pools declare their scaling mode (as is ``reachable_nodes``, the whole pool's count).
"""

from __future__ import annotations

from config.karpenter import KarpenterMode
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.node_pools import max_nodes, max_nodes_in_zone

DEFAULT_SCALE_UP_DELAY_SECONDS = 600.0
"""From an unschedulable gang to Ready GPU nodes publishing devices: instance launch, AL2023
NVIDIA boot, node join and the DRA driver's ResourceSlices. No figure is documented by AWS;
ten minutes is a middle value for p5-class nodes and the same for both autoscalers."""


def static_nodes_in_zone(pool: GpuPoolConfig, zone: str) -> int:
    """Nodes that exist before any gang arrives: ``desired_size`` (default ``min_size``) per zone when
    zone-pinned; otherwise the pool's nodes spread over its zones in order, the first zones taking
    the remainder."""
    if zone not in pool.zones:
        return 0
    desired = pool.desired_size if pool.desired_size is not None else pool.min_size
    if pool.karpenter is not None and pool.karpenter.mode is KarpenterMode.STATIC:
        desired = pool.max_size  # a static NodePool holds ``max_size`` replicas
    if pool.zone_pinned:
        return desired
    share, rest = divmod(desired, len(pool.zones))
    return share + (1 if pool.zones.index(zone) < rest else 0)


def reachable_nodes_in_zone(
    env: EnvironmentConfig, pool: GpuPoolConfig, zone: str, *, preempting_pods: bool = False
) -> int:
    """Most nodes the pool can have in ``zone`` (at least the static ones). ``preempting_pods``: for pods
    whose PriorityClass preempts (the same today)."""
    del env, preempting_pods  # the scaling mode (which autoscaler is installed) decides this once pools declare it
    return max(max_nodes_in_zone(pool, zone), static_nodes_in_zone(pool, zone))


def reachable_nodes(env: EnvironmentConfig, pool: GpuPoolConfig, *, preempting_pods: bool = False) -> int:
    """Most nodes the pool can have over all its zones (at least the static ones)."""
    del env, preempting_pods
    return max(max_nodes(pool), sum(static_nodes_in_zone(pool, z) for z in pool.zones))


def scale_up_delay_seconds(env: EnvironmentConfig, pool: GpuPoolConfig) -> float:
    """Seconds from an unschedulable gang to new nodes of ``pool`` being usable."""
    del env, pool  # one documented default until pools declare their scaling mode
    return DEFAULT_SCALE_UP_DELAY_SECONDS
