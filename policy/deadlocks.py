"""Static deadlock checks over one environment's whole rendered object set.

Each check is a pure function of the objects (and the environment, for capacity and
grants) returning ``Check`` verdicts: ``fail`` for a gang that can never start or an
object the cluster would drop, ``warn`` for one that may wait. ``run_checks`` runs them all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from catalog.device_classes import DEVICE_CLASSES, DRIVER_CLASS_NAMES, DeviceClassSpec
from catalog.instances import INSTANCE_TYPES
from catalog.labels import ELASTIC_ANNOTATION, POOL_LABEL
from catalog.priority_tiers import TIERS, PreemptionPolicy, Tier
from config.model import CapacityProvider, EnvironmentConfig, GpuPoolConfig
from policy.capacity import (
    PodShape,
    Reach,
    cluster_pod_capacity,
    node_pod_capacity,
    pods_per_node,
    zone_pod_capacity,
)
from policy.checks import Check, Status
from policy.device_classes import models_selected, pool_serves
from policy.gangs import SHARED_CLAIM, pools_serving
from policy.gate_fields import missing_gates, subject
from policy.gates import effective_gates
from policy.node_pools import autoscaler_blocker, max_nodes, reachable_nodes, scale_up_delay_seconds, static_nodes

Obj = dict[str, Any]
_CLASSES_BY_NAME = {spec.name: spec for spec in DEVICE_CLASSES.values()}
_TIER_BY_CLASS = {spec.priority_class: tier for tier, spec in TIERS.items()}
_SCARCE = {spec.priority_class for spec in TIERS.values() if spec.scarce}


PART_OF = "app.kubernetes.io/part-of"


def _ns(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("namespace", ""))


def _name(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("name", ""))


def _index(objects: Iterable[Obj], kind: str) -> dict[tuple[str, str], Obj]:
    return {(_ns(o), _name(o)): o for o in objects if o.get("kind") == kind}


def _gang_min(spec: dict[str, Any]) -> int | None:
    gang = spec.get("schedulingPolicy", {}).get("gang")
    return None if gang is None else int(gang.get("minCount", 0))


@dataclass(frozen=True)
class GpuDemand:
    """The GPU pods of one gang: their shape, their DeviceClass, how many must start together."""

    subject: str
    device_class: str
    pod: PodShape
    min_pods: int
    all_pods: int
    topology_key: str | None
    priority_class: str | None


def _quantity_gib(text: str) -> int:
    units = {"Gi": 1, "Mi": 1 / 1024, "Ti": 1024}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return int(float(text.removesuffix(suffix)) * factor)
    return int(int(text) / 2**30)


def _pod_resources(pod_spec: dict[str, Any]) -> tuple[int, int]:
    """CPU and memory (GiB) the pod's first container requests."""
    requests = pod_spec["containers"][0].get("resources", {}).get("requests", {})
    return int(float(requests.get("cpu", 1))), _quantity_gib(str(requests.get("memory", "1Gi")))


def _pod_gpu_shape(
    pod_spec: dict[str, Any], namespace: str, claims: dict[tuple[str, str], Obj]
) -> tuple[str, PodShape] | None:
    """(DeviceClass, shape) of a pod spec that claims devices through a ResourceClaimTemplate."""
    for claim in pod_spec.get("resourceClaims", []):
        if claim.get("name") == SHARED_CLAIM:
            continue  # allocated once per PodGroup, not per pod
        template = claims.get((namespace, claim.get("resourceClaimTemplateName", "")))
        if template is None:
            continue
        (request,) = template["spec"]["spec"]["devices"]["requests"][:1]
        exactly = request.get("exactly", {})
        shape = PodShape(int(exactly.get("count", 1)), *_pod_resources(pod_spec), pools=_pinned_pools(pod_spec))
        return str(exactly.get("deviceClassName")), shape
    return None


def _pinned_pools(pod_spec: dict[str, Any]) -> tuple[str, ...]:
    """Pools a required node affinity on the pool label keeps the pod to (``policy.efa.efa_placement``)."""
    required = (
        pod_spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    for term in (required or {}).get("nodeSelectorTerms", [])[:1]:
        for expression in term.get("matchExpressions", []):
            if expression.get("key") == POOL_LABEL and expression.get("operator") == "In":
                return tuple(expression.get("values", []))
    return ()


def pods(objects: Iterable[Obj]) -> list[Obj]:
    """Pods as the API server will see them: the rendered ones and those each StatefulSet creates."""
    found = []
    for obj in objects:
        if obj.get("kind") == "Pod":
            found.append(obj)
        elif obj.get("kind") == "StatefulSet":
            template = obj["spec"]["template"]
            for ordinal in range(int(obj["spec"].get("replicas", 1))):
                metadata = {**template.get("metadata", {}), "namespace": _ns(obj), "name": f"{_name(obj)}-{ordinal}"}
                found.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})
    return found


def _pods_by_group(objects: list[Obj]) -> dict[tuple[str, str], list[Obj]]:
    """Pods per (namespace, PodGroup) they join through ``spec.schedulingGroup``."""
    members: dict[tuple[str, str], list[Obj]] = defaultdict(list)
    for pod in pods(objects):
        group = pod["spec"].get("schedulingGroup", {}).get("podGroupName")
        if group:
            members[(_ns(pod), group)].append(pod)
    return members


def _root(
    key: tuple[str, str], groups: dict[tuple[str, str], Obj], composites: dict[tuple[str, str], Obj]
) -> tuple[str, str]:
    """The topmost CompositePodGroup above a PodGroup (or the group itself), following parents."""
    namespace, seen = key[0], {key}
    parent = groups[key]["spec"].get("parentCompositePodGroupName")
    while parent and (namespace, parent) not in seen:
        key = (namespace, parent)
        seen.add(key)
        parent = composites.get(key, {}).get("spec", {}).get("parentCompositePodGroupName")
    return key


def gpu_demands(objects: list[Obj]) -> list[GpuDemand]:
    """GPU demand per gang: a root PodGroup, a CompositePodGroup tree, or a Job with ``spec.scheduling``."""
    claims = _index(objects, "ResourceClaimTemplate")
    groups = _index(objects, "PodGroup")
    composites = _index(objects, "CompositePodGroup")
    pods_by_group = _pods_by_group(objects)
    # Gang root: the topmost CompositePodGroup above the group, else the PodGroup itself.
    members: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for key in groups:
        members[_root(key, groups, composites)].append(key)
    demands = []
    for root, group_keys in sorted(members.items()):
        root_obj = composites.get(root) or groups.get(root) or {}
        spec = root_obj.get("spec", {})
        topology = spec.get("schedulingConstraints", {}).get("topology", [])
        shapes: dict[tuple[str, PodShape], list[int]] = defaultdict(lambda: [0, 0])
        for key in group_keys:
            shaped = [_pod_gpu_shape(p["spec"], key[0], claims) for p in pods_by_group.get(key, [])]
            gpu_shapes = [found for found in shaped if found is not None]
            minimum = _gang_min(groups[key]["spec"])
            # CPU-only members (launcher, driver) count towards minCount first; the rest must be GPU pods.
            min_gpu_pods = 0 if minimum is None else max(0, minimum - (len(shaped) - len(gpu_shapes)))
            for index, found in enumerate(gpu_shapes):
                counts = shapes[found]
                counts[1] += 1
                counts[0] += index < min_gpu_pods
        for (device_class, shape), (min_pods, all_pods) in shapes.items():
            demands.append(
                GpuDemand(
                    subject(root_obj) if root_obj else f"PodGroup/{root[0]}/{root[1]}",
                    device_class,
                    shape,
                    min_pods,
                    all_pods,
                    topology[0]["key"] if topology else None,
                    spec.get("priorityClassName"),
                )
            )
    demands += _fallback_demands(objects, claims)
    for job in (o for o in objects if o.get("kind") == "Job" and "scheduling" in o.get("spec", {})):
        job_shape = _pod_gpu_shape(job["spec"]["template"]["spec"], _ns(job), claims)
        if job_shape is None:
            continue
        scheduling = job["spec"]["scheduling"]
        topology = scheduling.get("schedulingConstraints", {}).get("topology", [])
        parallelism = int(job["spec"].get("parallelism", 1))
        demands.append(
            GpuDemand(
                subject(job),
                job_shape[0],
                job_shape[1],
                _gang_min(scheduling) or parallelism,
                parallelism,
                topology[0]["key"] if topology else None,
                job["spec"]["template"]["spec"].get("priorityClassName"),
            )
        )
    return demands


def _zone_affinity_key(pod_spec: dict[str, Any]) -> str | None:
    """The topology key of a required Pod affinity (the fallback form of ``topology: zone``)."""
    terms = (
        pod_spec.get("affinity", {}).get("podAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", [])
    )
    return str(terms[0]["topologyKey"]) if terms else None


def _fallback_demands(objects: list[Obj], claims: dict[tuple[str, str], Obj]) -> list[GpuDemand]:
    """GPU demand of each fallback-form run: its GPU Pods outside any PodGroup (bare, from a StatefulSet, or
    from a Job without ``spec.scheduling``), grouped by the run's ``app.kubernetes.io/part-of`` label.

    Nothing makes them start together, but the run's launcher or rendezvous waits for every one of them,
    so every Pod must fit: a run that cannot fit whole holds the GPUs of its started Pods for nothing.
    """
    runs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for pod in pods(objects):
        if not pod["spec"].get("schedulingGroup"):
            runs[(_ns(pod), pod["metadata"].get("labels", {}).get(PART_OF, ""))].append(pod["spec"])
    for job in (o for o in objects if o.get("kind") == "Job" and "scheduling" not in o.get("spec", {})):
        template = job["spec"]["template"]
        part_of = template.get("metadata", {}).get("labels", {}).get(PART_OF, _name(job))
        runs[(_ns(job), part_of)] += [template["spec"]] * int(job["spec"].get("parallelism", 1))
    demands = []
    for (namespace, part_of), specs in sorted(runs.items()):
        shapes: dict[tuple[str, PodShape], list[dict[str, Any]]] = defaultdict(list)
        for spec in specs:
            found = _pod_gpu_shape(spec, namespace, claims)
            if found is not None:
                shapes[found].append(spec)
        for (device_class, shape), members in shapes.items():
            demands.append(
                GpuDemand(
                    f"Pods/{namespace}/{part_of}",
                    device_class,
                    shape,
                    len(members),
                    len(members),
                    _zone_affinity_key(members[0]),
                    members[0].get("priorityClassName"),
                )
            )
    return demands


def _fail(
    check: str, obj_subject: str, detail: str, fix: str, pools: tuple[str, ...] = (), pool_field: str = "max_size"
) -> Check:
    return Check(check, obj_subject, Status.FAIL, detail, fix, pools, pool_field)


def _warn(check: str, obj_subject: str, detail: str, fix: str) -> Check:
    return Check(check, obj_subject, Status.WARN, detail, fix)


def check_feature_gates(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    gates_on = effective_gates(env.feature_gates.control_plane)
    return [
        _fail(
            "feature-gates",
            m.subject,
            f"field {m.field} needs feature gate {m.gate}, which the cluster lacks",
            f"add {m.gate} to feature_gates.control_plane (if the cluster provides it) or stop using the field",
        )
        for m in missing_gates(objects, gates_on)
    ]


def check_references(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    del env
    groups = _index(objects, "PodGroup")
    workloads = _index(objects, "Workload")
    composites = _index(objects, "CompositePodGroup")
    found: list[Check] = []
    for obj in [o for o in objects if o.get("kind") != "Pod"] + pods(objects):
        kind, ns = obj.get("kind"), _ns(obj)
        if kind == "Pod":
            group = obj["spec"].get("schedulingGroup", {}).get("podGroupName")
            if group and (ns, group) not in groups:
                found.append(
                    _fail(
                        "references",
                        subject(obj),
                        f"spec.schedulingGroup.podGroupName {group!r} "
                        "names no PodGroup in its namespace; the Pod would stay Pending",
                        f"create PodGroup {group} in {ns} or fix the name",
                    )
                )
        if kind in ("PodGroup", "CompositePodGroup"):
            ref = obj["spec"].get("workloadRef")
            if ref is not None:
                workload = workloads.get((ns, ref.get("workloadName", "")))
                if workload is None:
                    found.append(
                        _fail(
                            "references",
                            subject(obj),
                            f"spec.workloadRef names Workload {ref.get('workloadName')!r}, which does not exist",
                            "create the Workload first or fix workloadRef",
                        )
                    )
                elif ref.get("templateName") not in _template_names(workload):
                    found.append(
                        _fail(
                            "references",
                            subject(obj),
                            f"spec.workloadRef.templateName "
                            f"{ref.get('templateName')!r} is not a template of {_name(workload)}",
                            f"use one of {sorted(_template_names(workload))}",
                        )
                    )
            parent = obj["spec"].get("parentCompositePodGroupName")
            if parent and (ns, parent) not in composites:
                found.append(
                    _fail(
                        "references",
                        subject(obj),
                        f"spec.parentCompositePodGroupName {parent!r} "
                        "names no CompositePodGroup in its namespace; the group would never schedule",
                        f"create CompositePodGroup {parent} in {ns} or fix the name",
                    )
                )
    return found


def _template_names(workload: Obj) -> set[str]:
    names: set[str] = set()
    stack = list(workload["spec"].get("compositePodGroupTemplates", []))
    names |= {t["name"] for t in workload["spec"].get("podGroupTemplates", [])}
    while stack:
        template = stack.pop()
        names.add(template["name"])
        names |= {t["name"] for t in template.get("podGroupTemplates", [])}
        stack += template.get("compositePodGroupTemplates", [])
    return names


def check_gang_size(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    del env
    workloads = _index(objects, "Workload")
    members = {key: len(pods) for key, pods in _pods_by_group(objects).items()}
    found = []
    for (ns, name), group in _index(objects, "PodGroup").items():
        minimum = _gang_min(group["spec"])
        if minimum is None:
            continue
        replicas = members.get((ns, name), 0)
        if minimum > replicas:
            found.append(
                _fail(
                    "gang-size",
                    subject(group),
                    f"gang minCount {minimum} exceeds the {replicas} pods that join the group; it can never start",
                    "lower minCount or add pods",
                )
            )
        elif minimum < replicas:
            workload = workloads.get((ns, group["spec"].get("workloadRef", {}).get("workloadName", "")), {})
            if workload.get("metadata", {}).get("annotations", {}).get(ELASTIC_ANNOTATION) != "true":
                found.append(
                    _fail(
                        "gang-size",
                        subject(group),
                        f"gang minCount {minimum} is below its {replicas} pods without an elastic acknowledgement",
                        f"set elastic: true in the run, or annotate the Workload {ELASTIC_ANNOTATION}: 'true'",
                    )
                )
    children: dict[tuple[str, str], int] = defaultdict(int)
    for obj in objects:
        if obj.get("kind") in ("PodGroup", "CompositePodGroup"):
            parent = obj["spec"].get("parentCompositePodGroupName")
            if parent:
                children[(_ns(obj), parent)] += 1
    for key, composite in _index(objects, "CompositePodGroup").items():
        gang = composite["spec"].get("schedulingPolicy", {}).get("gang")
        if gang is not None and int(gang.get("minGroupCount", 0)) > children[key]:
            found.append(
                _fail(
                    "gang-size",
                    subject(composite),
                    f"gang minGroupCount {gang.get('minGroupCount')} exceeds its {children[key]} child groups; "
                    "it can never start",
                    "lower minGroupCount or add child groups",
                )
            )
    for job in (o for o in objects if o.get("kind") == "Job" and "scheduling" in o.get("spec", {})):
        minimum = _gang_min(job["spec"]["scheduling"])
        parallelism = int(job["spec"].get("parallelism", 1))
        if minimum is not None and minimum > parallelism:
            found.append(
                _fail(
                    "gang-size",
                    subject(job),
                    f"gang minCount {minimum} exceeds parallelism {parallelism}; the Job can never start",
                    "set minCount <= parallelism",
                )
            )
    return found


def check_device_classes(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    found = []
    for template in (o for o in objects if o.get("kind") == "ResourceClaimTemplate"):
        for request in template["spec"]["spec"]["devices"]["requests"]:
            name = request.get("exactly", {}).get("deviceClassName", "")
            spec = _CLASSES_BY_NAME.get(name)
            if spec is None:
                detail = (
                    "uses the driver's own class"
                    if name in DRIVER_CLASS_NAMES
                    else "uses a DeviceClass the platform does not publish"
                )
                found.append(
                    _fail(
                        "device-classes",
                        subject(template),
                        f"{detail} {name!r}",
                        "request a platform DeviceClass (<shape>.gpu-platform.io)",
                    )
                )
            elif not pools_serving(env, spec):
                models = ", ".join(sorted(m.value for m in models_selected(spec))) or "none"
                shape = f"MIG {spec.mig_profile} slices of" if spec.mig_profile else "GPU models"
                fix = (
                    f"add a DRA pool of those GPUs with mig_profile: {spec.mig_profile}"
                    if spec.mig_profile
                    else "add a DRA GPU pool with a matching instance type or use another DeviceClass"
                )
                found.append(
                    _fail(
                        "device-classes",
                        subject(template),
                        f"DeviceClass {name} selects {shape} ({models}) that no DRA pool of {env.name} provides; "
                        "claims would never allocate",
                        fix,
                    )
                )
    return found


def _preempts(demand: GpuDemand) -> bool:
    """Whether the gang's PriorityClass preempts (what Cluster Autoscaler's DRA simulation cannot handle)."""
    tier = _TIER_BY_CLASS.get(demand.priority_class or "")
    return tier is not None and TIERS[tier].preemption_policy is PreemptionPolicy.PREEMPT_LOWER_PRIORITY


def _capacity_detail(
    env: EnvironmentConfig, demand: GpuDemand, spec: DeviceClassSpec, reach: Reach = Reach.MAX_SIZE
) -> tuple[int, str]:
    preempting = _preempts(demand)
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
    preempting = _preempts(demand)
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
    return _fail(
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
    return _warn(
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
        spec = _CLASSES_BY_NAME.get(demand.device_class)
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
                _fail(
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
                _fail(
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
                _warn(
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
    claims = _index(objects, "ResourceClaimTemplate")
    groups = _index(objects, "PodGroup")
    found = []
    for key, pods in sorted(_pods_by_group(objects).items()):
        group = groups.get(key)
        shared = (group or {}).get("spec", {}).get("resourceClaims") or []
        template = claims.get((key[0], shared[0].get("resourceClaimTemplateName", ""))) if shared else None
        if group is None or template is None:
            continue
        shared_class = template["spec"]["spec"]["devices"]["requests"][0].get("exactly", {}).get("deviceClassName")
        shared_spec = _CLASSES_BY_NAME.get(str(shared_class))
        if shared_spec is None:
            continue
        own = _pod_gpu_shape(pods[0]["spec"], key[0], claims)
        cpu, memory_gib = _pod_resources(pods[0]["spec"])
        if own is not None and own[0] != shared_spec.name:
            own_spec = _CLASSES_BY_NAME.get(own[0])
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
                _fail(
                    "capacity",
                    subject(group),
                    f"its PodGroup-level claim on {shared_spec.name} pins all {len(pods)} pods of the group to "
                    f"one node, but at most {per_node} of them fit on a node that holds it",
                    "drop shared_devices, or make the group fit one node",
                )
            )
    return found


def _tolerates(tolerations: list[dict[str, Any]], pool: GpuPoolConfig) -> bool:
    def covered(key: str, value: str, effect: str) -> bool:
        return any(
            t.get("key") in (key, None)
            and t.get("effect") in (effect, None)
            and (t.get("operator") == "Exists" or t.get("value", "") == value)
            for t in tolerations
        )

    return all(covered(t.key, t.value, t.effect.value) for t in pool.taints if t.effect.value != "PreferNoSchedule")


def check_tolerations(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    claims = _index(objects, "ResourceClaimTemplate")
    found = []
    for obj in objects:
        if obj.get("kind") == "Pod":
            pod_spec = obj["spec"]
        elif obj.get("kind") in ("Job", "StatefulSet"):
            pod_spec = obj["spec"]["template"]["spec"]
        else:
            continue
        shape = _pod_gpu_shape(pod_spec, _ns(obj), claims)
        spec = _CLASSES_BY_NAME.get(shape[0]) if shape else None
        if spec is None:
            continue
        pools = pools_serving(env, spec)
        if pools and not any(_tolerates(pod_spec.get("tolerations", []), p) for p in pools):
            taints = sorted({f"{t.key}={t.value}:{t.effect.value}" for p in pools for t in p.taints})
            found.append(
                _fail(
                    "tolerations",
                    subject(obj),
                    f"needs {spec.name} but tolerates the taints of no pool that serves it ({', '.join(taints)})",
                    "add tolerations for those taints",
                )
            )
    return found


def _priority_classes(obj: Obj) -> set[str]:
    spec = obj.get("spec", {})
    if obj.get("kind") in ("Job", "StatefulSet"):
        spec = spec.get("template", {}).get("spec", {})
    names = {spec.get("priorityClassName")} if spec.get("priorityClassName") else set()
    stack = [*spec.get("podGroupTemplates", []), *spec.get("compositePodGroupTemplates", [])]
    while stack:
        template = stack.pop()
        if template.get("priorityClassName"):
            names.add(template["priorityClassName"])
        stack += [*template.get("podGroupTemplates", []), *template.get("compositePodGroupTemplates", [])]
    return names


def check_priority_tiers(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    granted: dict[str, set[Tier]] = defaultdict(set)
    for team in env.platform.teams.values():
        granted[team.namespace] |= set(team.tiers)
    for namespace in env.platform.platform_namespaces:
        granted[namespace].add(Tier.CRITICAL)
    found = []
    for obj in objects:
        for name in sorted(_priority_classes(obj)):
            tier = _TIER_BY_CLASS.get(name)
            if tier is None:
                found.append(
                    _fail(
                        "priority-tiers",
                        subject(obj),
                        f"priorityClassName {name!r} is not a platform tier",
                        f"use one of {', '.join(t.priority_class for t in TIERS.values())}",
                    )
                )
            elif tier not in granted.get(_ns(obj), set()):
                found.append(
                    _fail(
                        "priority-tiers",
                        subject(obj),
                        f"tier {tier.value} is not granted to namespace {_ns(obj)}",
                        "use a granted tier or grant it under platform.teams",
                    )
                )
    return found


def check_competition(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    """High-priority gangs of one DeviceClass whose sum exceeds a domain preempt each other or wait."""
    by_class: dict[str, list[GpuDemand]] = defaultdict(list)
    for demand in gpu_demands(objects):
        if demand.priority_class in _SCARCE:
            by_class[demand.device_class].append(demand)
    found = []
    for device_class, demands in sorted(by_class.items()):
        spec = _CLASSES_BY_NAME.get(device_class)
        if spec is None or len(demands) < 2 or not pools_serving(env, spec):
            continue
        pod = max((d.pod for d in demands), key=lambda p: (p.devices, p.cpu, p.memory_gib))
        needed = sum(d.min_pods for d in demands)
        preempting = any(_preempts(d) for d in demands)
        zone_best = max(zone_pod_capacity(env, spec, pod, preempting_pods=preempting).values())
        if needed > zone_best:
            names = ", ".join(sorted(d.subject for d in demands))
            found.append(
                _warn(
                    "competition",
                    device_class,
                    f"high-priority gangs need {needed} pods together but one zone holds {zone_best}: {names}",
                    "stagger them, or add capacity",
                )
            )
    return found


CHECKS: tuple[Callable[[EnvironmentConfig, list[Obj]], list[Check]], ...] = (
    check_feature_gates,
    check_references,
    check_gang_size,
    check_device_classes,
    check_capacity,
    check_tolerations,
    check_priority_tiers,
    check_competition,
)


def run_checks(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    """Every finding, plus one ``ok`` line per check that found nothing."""
    results: list[Check] = []
    for check in CHECKS:
        findings = check(env, objects)
        name = check.__name__.removeprefix("check_").replace("_", "-")
        results += findings or [Check(name, env.name, Status.OK, f"{len(objects)} objects checked")]
    return results
