"""How many gang pods a topology domain can hold: from pool sizes, instance shapes and devices.

Two counts per domain. ``Reach.MAX_SIZE``: every pool at ``max_size``, an upper bound from
configuration. ``Reach.REACHABLE`` (the default): only nodes that can really come to exist,
the static nodes plus autoscaler headroom where an autoscaler can add nodes for the pods
(``policy.infrastructure.node_pools.reachable_nodes_in_zone``). A gang that does not fit the reachable count
waits forever: an error before deploy instead of a Pending mystery.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from catalog.device_classes import DeviceClassSpec
from catalog.instances import INSTANCE_TYPES, InstanceType
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.device_classes import models_selected, pool_serves
from policy.infrastructure.node_pools import (
    max_nodes,
    max_nodes_in_zone,
    reachable_nodes,
    reachable_nodes_in_zone,
    static_nodes,
    static_nodes_in_zone,
)

SYSTEM_RESERVED_VCPUS = 1
"""vCPU kept for the kubelet, container runtime and daemon sets on every GPU node."""
ALLOCATABLE_MEMORY_FRACTION = 0.9
"""Share of node memory left for pods after kube-reserved and eviction thresholds."""
MIG_SLICES_PER_GPU = {"1g": 7, "2g": 3, "3g": 2, "4g": 1, "7g": 1}


@dataclass(frozen=True)
class PodShape:
    """What one GPU pod of a gang asks for."""

    devices: int
    cpu: int
    memory_gib: int
    pools: tuple[str, ...] = ()
    """Pools the pod is pinned to by node affinity (``policy.infrastructure.efa.efa_placement``);
    empty: any serving pool."""

    def lands_on(self, pool: GpuPoolConfig, spec: DeviceClassSpec) -> bool:
        """Whether the pod can be placed on ``pool``'s nodes: the pool serves its class and it is not pinned away."""
        return pool_serves(pool, spec) and (not self.pools or pool.name in self.pools)


def devices_per_node(instance: InstanceType, spec: DeviceClassSpec) -> int:
    """Devices of ``spec``'s class one node offers: whole GPUs, or MIG slices of the class's profile."""
    if instance.gpu_model not in models_selected(spec):
        return 0
    if spec.mig_profile is None:
        return instance.gpus
    return instance.gpus * MIG_SLICES_PER_GPU[spec.mig_profile.split(".", 1)[0]]


def pods_per_node(instance: InstanceType, spec: DeviceClassSpec, pod: PodShape) -> int:
    cpu = instance.vcpus - SYSTEM_RESERVED_VCPUS
    memory = instance.memory_gib * ALLOCATABLE_MEMORY_FRACTION
    limits = [cpu // pod.cpu, int(memory // pod.memory_gib)]
    if pod.devices:
        limits.append(devices_per_node(instance, spec) // pod.devices)
    return max(0, min(limits))


class Reach(Enum):
    """Which nodes a capacity count includes."""

    STATIC = "static"
    """Nodes that exist before a gang arrives."""
    REACHABLE = "reachable"
    """Static nodes plus what an autoscaler can add for the pods."""
    MAX_SIZE = "max_size"
    """Every pool at ``max_size``."""


def _zone_nodes(env: EnvironmentConfig, pool: GpuPoolConfig, zone: str, reach: Reach, preempting_pods: bool) -> int:
    if reach is Reach.MAX_SIZE:
        return max_nodes_in_zone(pool, zone)
    if reach is Reach.STATIC:
        return static_nodes_in_zone(pool, zone)
    return reachable_nodes_in_zone(env, pool, zone, preempting_pods=preempting_pods)


def _pool_nodes(env: EnvironmentConfig, pool: GpuPoolConfig, reach: Reach, preempting_pods: bool) -> int:
    if reach is Reach.MAX_SIZE:
        return max_nodes(pool)
    if reach is Reach.STATIC:
        return static_nodes(pool)
    return reachable_nodes(env, pool, preempting_pods=preempting_pods)


def zone_pod_capacity(
    env: EnvironmentConfig,
    spec: DeviceClassSpec,
    pod: PodShape,
    *,
    reach: Reach = Reach.REACHABLE,
    preempting_pods: bool = False,
) -> dict[str, int]:
    """Most pods of ``pod``'s shape each zone can hold at once."""
    capacity = dict.fromkeys(env.network.zones, 0)
    for pool in env.gpu_pools:
        if not pod.lands_on(pool, spec):
            continue
        per_node = max(pods_per_node(INSTANCE_TYPES[t], spec, pod) for t in pool.instance_types)
        for zone in pool.zones:
            capacity[zone] = capacity.get(zone, 0) + _zone_nodes(env, pool, zone, reach, preempting_pods) * per_node
    return capacity


def cluster_pod_capacity(
    env: EnvironmentConfig,
    spec: DeviceClassSpec,
    pod: PodShape,
    *,
    reach: Reach = Reach.REACHABLE,
    preempting_pods: bool = False,
) -> int:
    """Most pods of ``pod``'s shape the whole cluster can hold (no topology constraint)."""
    total = 0
    for pool in env.gpu_pools:
        if not pod.lands_on(pool, spec):
            continue
        per_node = max(pods_per_node(INSTANCE_TYPES[t], spec, pod) for t in pool.instance_types)
        total += _pool_nodes(env, pool, reach, preempting_pods) * per_node
    return total


def node_pod_capacity(env: EnvironmentConfig, spec: DeviceClassSpec, pod: PodShape) -> int:
    """Most pods of ``pod``'s shape one node of any serving pool can hold."""
    return max(
        (
            pods_per_node(INSTANCE_TYPES[t], spec, pod)
            for p in env.gpu_pools
            if pod.lands_on(p, spec)
            for t in p.instance_types
        ),
        default=0,
    )
