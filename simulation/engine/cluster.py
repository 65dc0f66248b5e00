"""The environment's GPU nodes as the simulation sees them: per pool and zone, sizes and delays.

Node shapes come from the same catalog and capacity code ``make check`` uses; how many nodes
exist and can be reached for a gang, and how long a scale-up takes, from the pools' scaling modes
(``policy.infrastructure.node_pools``, as ``make check`` counts them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from catalog.device_classes import DEVICE_CLASSES, DeviceShape
from catalog.instances import INSTANCE_TYPES, InstanceType
from config.model import CapacityProvider, EnvironmentConfig, GpuPoolConfig
from policy.infrastructure import node_pools
from policy.infrastructure.capacity import ALLOCATABLE_MEMORY_FRACTION, SYSTEM_RESERVED_VCPUS, devices_per_node
from policy.infrastructure.device_classes import pool_serves
from simulation.engine.rules import Free

CLUSTER_AUTOSCALER_SCALE_DOWN_SECONDS = 600.0
"""Cluster Autoscaler's ``--scale-down-unneeded-time`` default (10 minutes): how long an empty
autoscaled node stays before it is removed."""


def node_instance(pool: GpuPoolConfig) -> InstanceType:
    """The instance type the model gives every node of ``pool``: its largest (GPUs, vCPUs, memory).

    ``make check`` counts the best size for each pod shape; for a pool of one size, or of sizes
    the largest dominates, the two agree."""
    return max((INSTANCE_TYPES[t] for t in pool.instance_types), key=lambda t: (t.gpus, t.vcpus, t.memory_gib, t.name))


def empty_node(instance: InstanceType, devices: int) -> Free:
    return (devices, instance.vcpus - SYSTEM_RESERVED_VCPUS, instance.memory_gib * ALLOCATABLE_MEMORY_FRACTION)


def idle_seconds(pool: GpuPoolConfig) -> float:
    """How long an empty scaled-up node stays: Karpenter's ``consolidate_after_minutes``, else
    Cluster Autoscaler's default."""
    if pool.provider is CapacityProvider.KARPENTER and pool.karpenter is not None:
        return pool.karpenter.consolidate_after_minutes * 60.0
    return CLUSTER_AUTOSCALER_SCALE_DOWN_SECONDS


class ScalingModel(Protocol):
    """Where node counts and delays come from: ``policy.infrastructure.node_pools`` unless a test pins its own."""

    def static_nodes_in_zone(self, pool: GpuPoolConfig, zone: str) -> int: ...
    def reachable_nodes_in_zone(
        self, env: EnvironmentConfig, pool: GpuPoolConfig, zone: str, *, preempting_pods: bool = False
    ) -> int: ...
    def reachable_nodes(self, env: EnvironmentConfig, pool: GpuPoolConfig, *, preempting_pods: bool = False) -> int: ...
    def scale_up_delay_seconds(self, env: EnvironmentConfig, pool: GpuPoolConfig) -> float: ...


@dataclass
class PoolZone:
    """A pool's share of one zone: its node shape, static and reachable node counts, scale-up delay."""

    index: int
    pool: GpuPoolConfig
    zone: str
    instance: InstanceType
    devices: int
    """Devices per node (whole GPUs, or MIG slices of the pool's profile)."""
    static: int
    reachable: int
    reachable_preempting: int
    """Reachable for pods whose PriorityClass preempts (an autoscaler may not scale up for them)."""
    delay_seconds: float
    idle_seconds: float
    serves: frozenset[DeviceShape]

    def reachable_for(self, *, preempting: bool) -> int:
        return self.reachable_preempting if preempting else self.reachable

    @property
    def gpus_per_device(self) -> float:
        return self.instance.gpus / self.devices if self.devices else 0.0

    @property
    def empty(self) -> Free:
        return empty_node(self.instance, self.devices)


@dataclass
class ClusterModel:
    zones: tuple[str, ...]
    pool_zones: list[PoolZone]
    pool_limits: dict[str, int]
    """Most nodes per pool over all its zones."""
    pool_limits_preempting: dict[str, int]
    """The same, for pods whose PriorityClass preempts."""
    serving: dict[DeviceShape, list[int]] = field(default_factory=dict)
    """Pool-zone indices whose nodes publish devices a DeviceClass selects, in pool then zone order."""

    def limit_for(self, pool: str, *, preempting: bool) -> int:
        return (self.pool_limits_preempting if preempting else self.pool_limits)[pool]


def cluster_model(env: EnvironmentConfig, *, scaling: ScalingModel | None = None) -> ClusterModel:
    model: ScalingModel = scaling or node_pools
    pool_zones: list[PoolZone] = []
    limits: dict[str, int] = {}
    limits_preempting: dict[str, int] = {}
    for pool in env.gpu_pools:
        serves = frozenset(shape for shape, spec in DEVICE_CLASSES.items() if pool_serves(pool, spec))
        if not serves:
            continue  # device-plugin pools publish no DeviceClass devices
        instance = node_instance(pool)
        devices = max(devices_per_node(instance, DEVICE_CLASSES[s]) for s in serves)
        reachable = {z: model.reachable_nodes_in_zone(env, pool, z) for z in pool.zones}
        preempting = {z: model.reachable_nodes_in_zone(env, pool, z, preempting_pods=True) for z in pool.zones}
        limits[pool.name] = model.reachable_nodes(env, pool)
        limits_preempting[pool.name] = model.reachable_nodes(env, pool, preempting_pods=True)
        for zone in pool.zones:
            pool_zones.append(
                PoolZone(
                    index=len(pool_zones),
                    pool=pool,
                    zone=zone,
                    instance=instance,
                    devices=devices,
                    static=model.static_nodes_in_zone(pool, zone),
                    reachable=reachable[zone],
                    reachable_preempting=preempting[zone],
                    delay_seconds=model.scale_up_delay_seconds(env, pool),
                    idle_seconds=idle_seconds(pool),
                    serves=serves,
                )
            )
    zone_order = {z: i for i, z in enumerate(env.network.zones)}
    serving = {
        shape: sorted(
            (pz.index for pz in pool_zones if shape in pz.serves),
            key=lambda i: (zone_order.get(pool_zones[i].zone, len(zone_order)), i),
        )
        for shape in DeviceShape
    }
    return ClusterModel(tuple(env.network.zones), pool_zones, limits, limits_preempting, serving)
