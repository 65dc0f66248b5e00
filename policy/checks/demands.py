"""GPU demands: what each gang (or fallback run) asks of the cluster's pools, read from its Pods."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from catalog.labels import POOL_LABEL
from policy.checks.objects import (
    PART_OF,
    Obj,
    gang_min,
    index_by_key,
    name_of,
    namespace_of,
    pods,
    pods_by_group,
    root_of,
)
from policy.gangs.shapes import SHARED_CLAIM
from policy.gates.fields import subject
from policy.infrastructure.capacity import (
    PodShape,
)


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


def pod_resources(pod_spec: dict[str, Any]) -> tuple[int, int]:
    """CPU and memory (GiB) the pod's first container requests."""
    requests = pod_spec["containers"][0].get("resources", {}).get("requests", {})
    return int(float(requests.get("cpu", 1))), _quantity_gib(str(requests.get("memory", "1Gi")))


def pod_gpu_shape(
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
        shape = PodShape(int(exactly.get("count", 1)), *pod_resources(pod_spec), pools=_pinned_pools(pod_spec))
        return str(exactly.get("deviceClassName")), shape
    return None


def _pinned_pools(pod_spec: dict[str, Any]) -> tuple[str, ...]:
    """Pools a required node affinity on the pool label keeps the pod to
    (``policy.infrastructure.efa.efa_placement``)."""
    required = (
        pod_spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    for term in (required or {}).get("nodeSelectorTerms", [])[:1]:
        for expression in term.get("matchExpressions", []):
            if expression.get("key") == POOL_LABEL and expression.get("operator") == "In":
                return tuple(expression.get("values", []))
    return ()


def gpu_demands(objects: list[Obj]) -> list[GpuDemand]:
    """GPU demand per gang: a root PodGroup, a CompositePodGroup tree, or a Job with ``spec.scheduling``."""
    claims = index_by_key(objects, "ResourceClaimTemplate")
    groups = index_by_key(objects, "PodGroup")
    composites = index_by_key(objects, "CompositePodGroup")
    grouped = pods_by_group(objects)
    # Gang root: the topmost CompositePodGroup above the group, else the PodGroup itself.
    members: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for key in groups:
        members[root_of(key, groups, composites)].append(key)
    demands = []
    for root, group_keys in sorted(members.items()):
        root_obj = composites.get(root) or groups.get(root) or {}
        spec = root_obj.get("spec", {})
        topology = spec.get("schedulingConstraints", {}).get("topology", [])
        shapes: dict[tuple[str, PodShape], list[int]] = defaultdict(lambda: [0, 0])
        for key in group_keys:
            shaped = [pod_gpu_shape(p["spec"], key[0], claims) for p in grouped.get(key, [])]
            gpu_shapes = [found for found in shaped if found is not None]
            minimum = gang_min(groups[key]["spec"])
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
        job_shape = pod_gpu_shape(job["spec"]["template"]["spec"], namespace_of(job), claims)
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
                gang_min(scheduling) or parallelism,
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
            runs[(namespace_of(pod), pod["metadata"].get("labels", {}).get(PART_OF, ""))].append(pod["spec"])
    for job in (o for o in objects if o.get("kind") == "Job" and "scheduling" not in o.get("spec", {})):
        template = job["spec"]["template"]
        part_of = template.get("metadata", {}).get("labels", {}).get(PART_OF, name_of(job))
        runs[(namespace_of(job), part_of)] += [template["spec"]] * int(job["spec"].get("parallelism", 1))
    demands = []
    for (namespace, part_of), specs in sorted(runs.items()):
        shapes: dict[tuple[str, PodShape], list[dict[str, Any]]] = defaultdict(list)
        for spec in specs:
            found = pod_gpu_shape(spec, namespace, claims)
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
