"""Check: every gang fits the capacity its pools can reach, whole, in one topology domain."""

from __future__ import annotations

from catalog.device_classes import DeviceClassSpec
from catalog.instances import INSTANCE_TYPES
from catalog.priority_tiers import TIERS, PreemptionPolicy
from config.model import CapacityProvider, EnvironmentConfig, GpuPoolConfig
from policy.checks.demands import GpuDemand, gpu_demands, pod_gpu_shape, pod_resources
from policy.checks.objects import CLASSES_BY_NAME, TIER_BY_CLASS, Obj, fail, index_by_key, pods_by_group, warn
from policy.gangs.plan import pools_serving
from policy.gates.fields import subject
from policy.infrastructure.capacity import (
    PodShape,
    Reach,
    cluster_pod_capacity,
    node_pod_capacity,
    pods_per_node,
    zone_pod_capacity,
)
from policy.infrastructure.device_classes import pool_serves
from policy.infrastructure.node_pools import (
    autoscaler_blocker,
    max_nodes,
    reachable_nodes,
    scale_up_delay_seconds,
    static_nodes,
)
from policy.results import Check


def preempts(demand: GpuDemand) -> bool:
    """Whether the gang's PriorityClass preempts (what Cluster Autoscaler's DRA simulation cannot handle)."""
    tier = TIER_BY_CLASS.get(demand.priority_class or "")
    return tier is not None and TIERS[tier].preemption_policy is PreemptionPolicy.PREEMPT_LOWER_PRIORITY


def _capacity_detail(
    env: EnvironmentConfig, demand: GpuDemand, spec: DeviceClassSpec, reach: Reach = Reach.MAX_SIZE
) -> tuple[int, str]:
    preempting = preempts(demand)
    if demand.topology_key:
        by_zone = zone_pod_capacity(env, spec, demand.pod, reach=reach, preempting_pods=preempting)
        zone, best = max(sorted(by_zone.items()), key=lambda item: item[1])
        return best, f"the largest zone ({zone}) holds at most {best}"
    best = cluster_pod_capacity(env, spec, demand.pod, reach=reach, preempting_pods=preempting)
    return best, f"the cluster holds at most {best}"


def _unreachable(env: EnvironmentConfig, demand: GpuDemand, spec: DeviceClassSpec) -> Check:
    """A gang that fits the pools at max_size, but not the nodes that can really come to exist."""
    _, where = _capacity_detail(env, demand, spec, Reach.REACHABLE)
    domain = "one zone" if demand.topology_key else "the cluster"
    preempting = preempts(demand)
    blocked = [
        (pool, reason)
        for pool in pools_serving(env, spec)
        if reachable_nodes(env, pool, preempting_pods=preempting) < max_nodes(pool)
        and (reason := autoscaler_blocker(env, pool, preempting_pods=preempting)) is not None
    ]
    fixes = "; ".join(
        f"karpenter.mode: static on pool {pool.name}"
        if pool.provider is CapacityProvider.KARPENTER
        else f"scaling: static (min_size = max_size) on pool {pool.name}"
        for pool, _ in blocked
    )
    return fail(
        "capacity",
        demand.subject,
        f"gang needs {demand.min_pods} pods of {_shape_text(demand)} in {domain}, but no autoscaler will add the "
        f"nodes: {'; '.join(reason for _, reason in blocked)}; counting only nodes that can come to exist, "
        f"{where.replace('holds', 'can hold')}",
        f"make the nodes exist before the gang: {fixes}; or lower replicas",
        tuple(pool.name for pool, _ in blocked),
        "karpenter" if blocked and blocked[0][0].provider is CapacityProvider.KARPENTER else "scaling",
    )


def _scale_up_warning(env: EnvironmentConfig, demand: GpuDemand, spec: DeviceClassSpec) -> Check | None:
    """A gang of more than one node that waits for nodes added from zero: it may start late, or half-provisioned."""
    static, _ = _capacity_detail(env, demand, spec, Reach.STATIC)
    per_node = node_pod_capacity(env, spec, demand.pod)
    if static > 0 or demand.min_pods <= per_node:
        return None
    pools = [p for p in pools_serving(env, spec) if static_nodes(p) < reachable_nodes(env, p)]
    if not pools:
        return None
    minutes = max(scale_up_delay_seconds(env, p) for p in pools) / 60
    return warn(
        "capacity",
        demand.subject,
        f"gang of {demand.min_pods} pods of {_shape_text(demand)} waits for nodes added from zero in pool "
        f"{', '.join(p.name for p in pools)}; they come up one by one, so it may start about {minutes:.0f} minutes "
        "late, with the first nodes idle meanwhile",
        "keep the gang's nodes up: min_size covering the gang, or scaling: static",
    )


def _pool_names(pools: list[GpuPoolConfig]) -> str:
    """``pool h100`` or ``pools h100, a100``: the pools a capacity finding is about."""
    return ("pool " if len(pools) == 1 else "pools ") + ", ".join(p.name for p in pools)


def _shape_text(demand: GpuDemand) -> str:
    return _shape_text_of(demand.device_class, demand.pod)


def _shape_text_of(device_class: str, pod: PodShape) -> str:
    return f"{pod.devices} x {device_class}, {pod.cpu} CPU, {pod.memory_gib}Gi"


def check_capacity(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    found = []
    for demand in gpu_demands(objects):
        spec = CLASSES_BY_NAME.get(demand.device_class)
        if spec is None or not pools_serving(env, spec):
            continue  # reported by check_device_classes
        best, where = _capacity_detail(env, demand, spec)
        domain = "one zone" if demand.topology_key else "the cluster"
        reachable, reachable_where = _capacity_detail(env, demand, spec, Reach.REACHABLE)
        serving = pools_serving(env, spec)
        names = _pool_names(serving)
        if node_pod_capacity(env, spec, demand.pod) == 0:
            types = ", ".join(sorted({t for p in serving for t in p.instance_types}))
            found.append(
                fail(
                    "capacity",
                    demand.subject,
                    f"no node can hold one Pod of {_shape_text(demand)}: no instance type of {names} ({types}) "
                    "has room for it",
                    f"use a larger instance type in {names}, or lower the per-replica request (gpus_per_replica, "
                    "cpu_per_replica, memory_gib_per_replica)",
                    tuple(p.name for p in serving),
                    "instance_types",
                )
            )
        elif demand.min_pods > best:
            found.append(
                fail(
                    "capacity",
                    demand.subject,
                    f"gang needs {demand.min_pods} pods of {_shape_text(demand)} in {domain}; {where} ({names})",
                    f"raise max_size of {names}{' in that zone' if demand.topology_key else ''}, or lower replicas",
                    tuple(p.name for p in serving),
                )
            )
        elif demand.min_pods > reachable:
            found.append(_unreachable(env, demand, spec))
        elif demand.all_pods > reachable:
            found.append(
                warn(
                    "capacity",
                    demand.subject,
                    f"all {demand.all_pods} pods of {_shape_text(demand)} do not fit in {domain} "
                    f"({reachable_where}); only the gang minimum {demand.min_pods} does",
                    f"raise max_size of {names}, or lower replicas",
                )
            )
        elif (warning := _scale_up_warning(env, demand, spec)) is not None:
            found.append(warning)
    return found + _shared_claim_capacity(env, objects)


def _shared_claim_capacity(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    """A PodGroup-level claim on node-local devices pins every pod of the group to the node holding them."""
    claims = index_by_key(objects, "ResourceClaimTemplate")
    groups = index_by_key(objects, "PodGroup")
    found = []
    for key, pods in sorted(pods_by_group(objects).items()):
        group = groups.get(key)
        shared = (group or {}).get("spec", {}).get("resourceClaims") or []
        template = claims.get((key[0], shared[0].get("resourceClaimTemplateName", ""))) if shared else None
        if group is None or template is None:
            continue
        shared_class = template["spec"]["spec"]["devices"]["requests"][0].get("exactly", {}).get("deviceClassName")
        shared_spec = CLASSES_BY_NAME.get(str(shared_class))
        if shared_spec is None:
            continue
        own = pod_gpu_shape(pods[0]["spec"], key[0], claims)
        cpu, memory_gib = pod_resources(pods[0]["spec"])
        if own is not None and own[0] != shared_spec.name:
            own_spec = CLASSES_BY_NAME.get(own[0])
            both = [p for p in env.gpu_pools if own_spec and pool_serves(p, own_spec) and pool_serves(p, shared_spec)]
            per_node = (
                max(
                    (pods_per_node(INSTANCE_TYPES[t], own_spec, own[1]) for p in both for t in p.instance_types),
                    default=0,
                )
                if own_spec
                else 0
            )
        else:
            devices = own[1].devices if own is not None else 0
            per_node = node_pod_capacity(env, shared_spec, PodShape(devices, cpu, memory_gib))
        if len(pods) > per_node:
            found.append(
                fail(
                    "capacity",
                    subject(group),
                    f"its PodGroup-level claim on {shared_spec.name} pins all {len(pods)} pods of the group to "
                    f"one node, but at most {per_node} of them fit on a node that holds it",
                    "drop shared_devices, or make the group fit one node",
                )
            )
    return found
