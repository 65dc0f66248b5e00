"""Check: gangs that compete for the same scarce pool can each start, in tier order."""

from __future__ import annotations

from collections import defaultdict

from config.model import EnvironmentConfig
from policy.checks.capacity import preempts
from policy.checks.demands import GpuDemand, gpu_demands
from policy.checks.objects import CLASSES_BY_NAME, SCARCE, Obj, warn
from policy.gangs.plan import pools_serving
from policy.infrastructure.capacity import (
    zone_pod_capacity,
)
from policy.results import Check


def check_competition(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    """High-priority gangs of one DeviceClass whose sum exceeds a domain preempt each other or wait."""
    by_class: dict[str, list[GpuDemand]] = defaultdict(list)
    for demand in gpu_demands(objects):
        if demand.priority_class in SCARCE:
            by_class[demand.device_class].append(demand)
    found = []
    for device_class, demands in sorted(by_class.items()):
        spec = CLASSES_BY_NAME.get(device_class)
        if spec is None or len(demands) < 2 or not pools_serving(env, spec):
            continue
        pod = max((d.pod for d in demands), key=lambda p: (p.devices, p.cpu, p.memory_gib))
        needed = sum(d.min_pods for d in demands)
        preempting = any(preempts(d) for d in demands)
        zone_best = max(zone_pod_capacity(env, spec, pod, preempting_pods=preempting).values())
        if needed > zone_best:
            names = ", ".join(sorted(d.subject for d in demands))
            found.append(
                warn(
                    "competition",
                    device_class,
                    f"high-priority gangs need {needed} pods together but one zone holds {zone_best}: {names}",
                    "stagger them, or add capacity",
                )
            )
    return found
