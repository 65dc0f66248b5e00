"""Check: every reference between rendered objects (PodGroup, Workload, template, claim) resolves."""

from __future__ import annotations

from config.model import EnvironmentConfig
from policy.checks.objects import Obj, fail, index_by_key, name_of, namespace_of, pods
from policy.gates.fields import subject
from policy.results import Check


def check_references(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    del env
    groups = index_by_key(objects, "PodGroup")
    workloads = index_by_key(objects, "Workload")
    composites = index_by_key(objects, "CompositePodGroup")
    found: list[Check] = []
    for obj in [o for o in objects if o.get("kind") != "Pod"] + pods(objects):
        kind, ns = obj.get("kind"), namespace_of(obj)
        if kind == "Pod":
            group = obj["spec"].get("schedulingGroup", {}).get("podGroupName")
            if group and (ns, group) not in groups:
                found.append(
                    fail(
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
                        fail(
                            "references",
                            subject(obj),
                            f"spec.workloadRef names Workload {ref.get('workloadName')!r}, which does not exist",
                            "create the Workload first or fix workloadRef",
                        )
                    )
                elif ref.get("templateName") not in _template_names(workload):
                    found.append(
                        fail(
                            "references",
                            subject(obj),
                            f"spec.workloadRef.templateName "
                            f"{ref.get('templateName')!r} is not a template of {name_of(workload)}",
                            f"use one of {sorted(_template_names(workload))}",
                        )
                    )
            parent = obj["spec"].get("parentCompositePodGroupName")
            if parent and (ns, parent) not in composites:
                found.append(
                    fail(
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
