"""How many gang pods a topology domain can hold at most: from pool sizes, instance shapes and devices.

Upper bounds from configuration (every pool at ``max_size``), so a gang that does not
fit here can never be placed: an error before deploy instead of a Pending mystery.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.device_classes import DeviceClassSpec
from catalog.instances import INSTANCE_TYPES, InstanceType
from config.model import EnvironmentConfig
from policy.device_classes import models_selected, pool_serves
from policy.node_pools import max_nodes, max_nodes_in_zone

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


def zone_pod_capacity(env: EnvironmentConfig, spec: DeviceClassSpec, pod: PodShape) -> dict[str, int]:
    """Most pods of ``pod``'s shape each zone can hold at once."""
    capacity = dict.fromkeys(env.network.zones, 0)
    for pool in env.gpu_pools:
        if not pool_serves(pool, spec):
            continue
        per_node = max(pods_per_node(INSTANCE_TYPES[t], spec, pod) for t in pool.instance_types)
        for zone in pool.zones:
            capacity[zone] = capacity.get(zone, 0) + max_nodes_in_zone(pool, zone) * per_node
    return capacity


def cluster_pod_capacity(env: EnvironmentConfig, spec: DeviceClassSpec, pod: PodShape) -> int:
    """Most pods of ``pod``'s shape the whole cluster can hold (no topology constraint)."""
    total = 0
    for pool in env.gpu_pools:
        if not pool_serves(pool, spec):
            continue
        per_node = max(pods_per_node(INSTANCE_TYPES[t], spec, pod) for t in pool.instance_types)
        total += max_nodes(pool) * per_node
    return total


def node_pod_capacity(env: EnvironmentConfig, spec: DeviceClassSpec, pod: PodShape) -> int:
    """Most pods of ``pod``'s shape one node of any serving pool can hold."""
    return max(
        (
            pods_per_node(INSTANCE_TYPES[t], spec, pod)
            for p in env.gpu_pools
            if pool_serves(p, spec)
            for t in p.instance_types
        ),
        default=0,
    )
