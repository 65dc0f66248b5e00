"""What every check reads of the rendered objects: names, indexes, gang members, verdict helpers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from catalog.device_classes import DEVICE_CLASSES
from catalog.priority_tiers import TIERS
from policy.results import Check, Status

Obj = dict[str, Any]


CLASSES_BY_NAME = {spec.name: spec for spec in DEVICE_CLASSES.values()}


TIER_BY_CLASS = {spec.priority_class: tier for tier, spec in TIERS.items()}


SCARCE = {spec.priority_class for spec in TIERS.values() if spec.scarce}


PART_OF = "app.kubernetes.io/part-of"


def namespace_of(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("namespace", ""))


def name_of(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("name", ""))


def index_by_key(objects: Iterable[Obj], kind: str) -> dict[tuple[str, str], Obj]:
    return {(namespace_of(o), name_of(o)): o for o in objects if o.get("kind") == kind}


def gang_min(spec: dict[str, Any]) -> int | None:
    gang = spec.get("schedulingPolicy", {}).get("gang")
    return None if gang is None else int(gang.get("minCount", 0))


def pods(objects: Iterable[Obj]) -> list[Obj]:
    """Pods as the API server will see them: the rendered ones and those each StatefulSet creates."""
    found = []
    for obj in objects:
        if obj.get("kind") == "Pod":
            found.append(obj)
        elif obj.get("kind") == "StatefulSet":
            template = obj["spec"]["template"]
            for ordinal in range(int(obj["spec"].get("replicas", 1))):
                metadata = {
                    **template.get("metadata", {}),
                    "namespace": namespace_of(obj),
                    "name": f"{name_of(obj)}-{ordinal}",
                }
                found.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})
    return found


def pods_by_group(objects: list[Obj]) -> dict[tuple[str, str], list[Obj]]:
    """Pods per (namespace, PodGroup) they join through ``spec.schedulingGroup``."""
    members: dict[tuple[str, str], list[Obj]] = defaultdict(list)
    for pod in pods(objects):
        group = pod["spec"].get("schedulingGroup", {}).get("podGroupName")
        if group:
            members[(namespace_of(pod), group)].append(pod)
    return members


def root_of(
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


def fail(
    check: str, obj_subject: str, detail: str, fix: str, pools: tuple[str, ...] = (), pool_field: str = "max_size"
) -> Check:
    return Check(check, obj_subject, Status.FAIL, detail, fix, pools, pool_field)


def warn(check: str, obj_subject: str, detail: str, fix: str) -> Check:
    return Check(check, obj_subject, Status.WARN, detail, fix)
