"""Check: every gang's priority class is a platform tier, granted to its team."""

from __future__ import annotations

from collections import defaultdict

from catalog.priority_tiers import TIERS, Tier
from config.model import EnvironmentConfig
from policy.checks.objects import TIER_BY_CLASS, Obj, fail, namespace_of
from policy.gates.fields import subject
from policy.results import Check


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
            tier = TIER_BY_CLASS.get(name)
            if tier is None:
                found.append(
                    fail(
                        "priority-tiers",
                        subject(obj),
                        f"priorityClassName {name!r} is not a platform tier",
                        f"use one of {', '.join(t.priority_class for t in TIERS.values())}",
                    )
                )
            elif tier not in granted.get(namespace_of(obj), set()):
                found.append(
                    fail(
                        "priority-tiers",
                        subject(obj),
                        f"tier {tier.value} is not granted to namespace {namespace_of(obj)}",
                        "use a granted tier or grant it under platform.teams",
                    )
                )
    return found
