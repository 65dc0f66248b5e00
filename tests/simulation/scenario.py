"""Small environments and gangs whose schedules can be worked out by hand."""

from __future__ import annotations

from typing import Any

from catalog.device_classes import DeviceShape
from catalog.priority_tiers import Tier
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.environment.load import parse_environment
from policy.infrastructure.capacity import PodShape
from simulation.engine.cluster import ClusterModel, cluster_model
from simulation.engine.jobs import JobRequest
from tests.helpers.environments import workload_aware_data

NODE_POD = PodShape(8, 180, 1800)
"""Eight GPUs and most of a p5.48xlarge: one pod per node."""
ZONES = ["us-west-2a", "us-west-2b"]


def sizes(*, min_size: int, max_size: int) -> dict[str, Any]:
    """Pool sizes, with ``scaling: autoscaled`` where the model has scaling modes and the sizes differ."""
    found: dict[str, Any] = {"min_size": min_size, "max_size": max_size}
    if "scaling" in GpuPoolConfig.model_fields and min_size < max_size:
        found["scaling"] = "autoscaled"
    return found


def environment(pools: list[dict[str, Any]], *, topology: bool = True) -> EnvironmentConfig:
    gates = ["GenericWorkload", "TopologyAwareWorkloadScheduling"] if topology else ["GenericWorkload"]
    extra: dict[str, Any] = {}
    if "cluster_autoscaler" in EnvironmentConfig.model_fields:
        extra["cluster_autoscaler"] = {"acknowledge_version_skew": True}
    # Gangs as gangs: a control plane that serves the Workload API (acknowledged, EKS 1.37 does not).
    return parse_environment(
        workload_aware_data(
            {
                **extra,
                "name": "scenario",
                "region": "us-west-2",
                "cluster": {"name": "scenario", "public_access_cidrs": ["203.0.113.0/24"]},
                "network": {"availability_zones": ZONES},
                "gpu_pools": pools,
                "platform": {
                    "device_classes": ["h100-80gb", "h200", "l4", "hopper-or-newer", "mig-1g-10gb"],
                    "teams": {
                        "research": {"namespace": "research", "tiers": ["deadline", "standard", "opportunistic"]}
                    },
                },
            },
            control_plane=gates,
            kubelet=(),
        )
    )


def h100_pool(*, min_size: int, max_size: int, zones: list[str] = ZONES, **extra: Any) -> dict[str, Any]:
    return {
        "name": "h100",
        "instance_types": ["p5.48xlarge"],
        "zones": zones,
        **sizes(min_size=min_size, max_size=max_size),
        **extra,
    }


def gang(
    name: str,
    pods: int,
    *,
    tier: Tier = Tier.STANDARD,
    at_minutes: float = 0.0,
    minutes: float | None = 60.0,
    zone: bool = True,
    device_class: DeviceShape = DeviceShape.H100_80GB,
    pod: PodShape = NODE_POD,
    optional: int = 0,
) -> JobRequest:
    return JobRequest(
        name=name,
        namespace="research",
        template="gang",
        job_class=name,
        tier=tier,
        device_class=device_class,
        required=(pod,) * pods,
        optional=(pod,) * optional,
        topology_zone=zone,
        arrival_seconds=at_minutes * 60,
        duration_seconds=None if minutes is None else minutes * 60,
    )


SCALE_UP_SECONDS = 600.0


class PinnedScaling:
    """Node counts the scenarios are worked out with, whatever the environment's scaling model
    becomes: ``min_size`` nodes exist per zone, ``max_size`` per zone can be reached, a scale-up
    takes ten minutes."""

    def static_nodes_in_zone(self, pool: GpuPoolConfig, zone: str) -> int:
        return pool.min_size if zone in pool.zones else 0

    def reachable_nodes_in_zone(
        self, env: EnvironmentConfig, pool: GpuPoolConfig, zone: str, *, preempting_pods: bool = False
    ) -> int:
        return pool.max_size if zone in pool.zones else 0

    def reachable_nodes(self, env: EnvironmentConfig, pool: GpuPoolConfig, *, preempting_pods: bool = False) -> int:
        return pool.max_size * (len(pool.zones) if pool.zone_pinned else 1)

    def scale_up_delay_seconds(self, env: EnvironmentConfig, pool: GpuPoolConfig) -> float:
        return SCALE_UP_SECONDS if pool.min_size < pool.max_size else 0.0


def cluster(env: EnvironmentConfig) -> ClusterModel:
    return cluster_model(env, scaling=PinnedScaling())
