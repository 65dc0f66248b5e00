"""Check: a gang's minimum count is one its members can reach."""

from __future__ import annotations

from collections import defaultdict

from catalog.labels import ELASTIC_ANNOTATION
from config.model import EnvironmentConfig
from policy.checks.objects import Obj, fail, gang_min, index_by_key, namespace_of, pods_by_group
from policy.gates.fields import subject
from policy.results import Check


def check_gang_size(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    del env
    workloads = index_by_key(objects, "Workload")
    members = {key: len(pods) for key, pods in pods_by_group(objects).items()}
    found = []
    for (ns, name), group in index_by_key(objects, "PodGroup").items():
        minimum = gang_min(group["spec"])
        if minimum is None:
            continue
        replicas = members.get((ns, name), 0)
        if minimum > replicas:
            found.append(
                fail(
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
                    fail(
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
                children[(namespace_of(obj), parent)] += 1
    for key, composite in index_by_key(objects, "CompositePodGroup").items():
        gang = composite["spec"].get("schedulingPolicy", {}).get("gang")
        if gang is not None and int(gang.get("minGroupCount", 0)) > children[key]:
            found.append(
                fail(
                    "gang-size",
                    subject(composite),
                    f"gang minGroupCount {gang.get('minGroupCount')} exceeds its {children[key]} child groups; "
                    "it can never start",
                    "lower minGroupCount or add child groups",
                )
            )
    for job in (o for o in objects if o.get("kind") == "Job" and "scheduling" in o.get("spec", {})):
        minimum = gang_min(job["spec"]["scheduling"])
        parallelism = int(job["spec"].get("parallelism", 1))
        if minimum is not None and minimum > parallelism:
            found.append(
                fail(
                    "gang-size",
                    subject(job),
                    f"gang minCount {minimum} exceeds parallelism {parallelism}; the Job can never start",
                    "set minCount <= parallelism",
                )
            )
    return found
