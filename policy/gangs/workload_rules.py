"""Rules the 1.37 schemas do not check, applied to every rendered Workload-aware object.

The API server enforces these at admission; checking them at render time turns a failed
apply into a synth error that names the object and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

MAX_TEMPLATES = 8
MAX_DEPTH = 4
"""Levels of a Workload tree, counting the PodGroup leaves: at most three levels of composites."""
MAX_TOPOLOGY = 1
MAX_CLAIMS = 4
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class WorkloadRuleError(ValueError):
    """``<kind>/<namespace>/<name>: <field>: <problem>``."""


def _policy_errors(policy: dict[str, Any], where: str, count_key: str) -> Iterator[str]:
    kinds = [k for k in ("basic", "gang") if k in policy]
    if len(kinds) != 1:
        yield f"{where}.schedulingPolicy: exactly one of basic or gang must be set (got {kinds or 'none'})"
    elif kinds == ["gang"] and int(policy["gang"].get(count_key, 0)) < 1:
        yield f"{where}.schedulingPolicy.gang.{count_key}: must be >= 1 (got {policy['gang'].get(count_key)})"


def _template_errors(template: dict[str, Any], where: str) -> Iterator[str]:
    name = template.get("name", "")
    if not _DNS_LABEL.match(name):
        yield f"{where}.name: not a DNS label (got {name!r})"
    topology = template.get("schedulingConstraints", {}).get("topology", [])
    if len(topology) > MAX_TOPOLOGY:
        yield f"{where}.schedulingConstraints.topology: at most {MAX_TOPOLOGY} constraint (got {len(topology)})"
    claims = template.get("resourceClaims", [])
    if len(claims) > MAX_CLAIMS:
        yield f"{where}.resourceClaims: at most {MAX_CLAIMS} claims (got {len(claims)})"


def _tree(
    templates: list[dict[str, Any]], where: str, depth: int, names: list[str], priorities: set[str | None]
) -> Iterator[str]:
    if templates and depth >= MAX_DEPTH:  # composites at this depth put their PodGroups below MAX_DEPTH
        yield f"{where}: tree deeper than {MAX_DEPTH} levels (PodGroup level included)"
        return
    for i, template in enumerate(templates):
        here = f"{where}[{i}]"
        names.append(template.get("name", ""))
        priorities.add(template.get("priorityClassName"))
        yield from _template_errors(template, here)
        yield from _policy_errors(template.get("schedulingPolicy", {}), here, "minGroupCount")
        children = template.get("podGroupTemplates", [])
        composites = template.get("compositePodGroupTemplates", [])
        if len(children) > MAX_TEMPLATES or len(composites) > MAX_TEMPLATES:
            yield f"{here}: at most {MAX_TEMPLATES} child templates of each kind"
        for j, child in enumerate(children):
            names.append(child.get("name", ""))
            priorities.add(child.get("priorityClassName"))
            yield from _template_errors(child, f"{here}.podGroupTemplates[{j}]")
            yield from _policy_errors(child.get("schedulingPolicy", {}), f"{here}.podGroupTemplates[{j}]", "minCount")
        yield from _tree(composites, f"{here}.compositePodGroupTemplates", depth + 1, names, priorities)


def workload_errors(workload: dict[str, Any]) -> list[str]:
    """Every rule a Workload breaks, as ``field: problem`` strings."""
    spec = workload.get("spec", {})
    flat = spec.get("podGroupTemplates")
    composite = spec.get("compositePodGroupTemplates")
    if (flat is None) == (composite is None):
        return ["spec: exactly one of podGroupTemplates or compositePodGroupTemplates must be set"]
    errors: list[str] = []
    names: list[str] = []
    priorities: set[str | None] = set()
    if flat is not None:
        if len(flat) > MAX_TEMPLATES:
            errors.append(f"spec.podGroupTemplates: at most {MAX_TEMPLATES} templates (got {len(flat)})")
        for i, template in enumerate(flat):
            names.append(template.get("name", ""))
            priorities.add(template.get("priorityClassName"))
            errors += _template_errors(template, f"spec.podGroupTemplates[{i}]")
            errors += _policy_errors(template.get("schedulingPolicy", {}), f"spec.podGroupTemplates[{i}]", "minCount")
    else:
        if len(composite) > MAX_TEMPLATES:
            errors.append(f"spec.compositePodGroupTemplates: at most {MAX_TEMPLATES} templates (got {len(composite)})")
        errors += _tree(composite, "spec.compositePodGroupTemplates", 1, names, priorities)
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        errors.append(f"spec: template names must be unique across the tree (repeated: {', '.join(duplicates)})")
    if len(priorities) > 1:
        errors.append(f"spec: all templates must share one priorityClassName (got {sorted(map(str, priorities))})")
    return errors


def object_errors(obj: dict[str, Any]) -> list[str]:
    """Rules for one object of any kind we render (names, gang minimums, Workload trees)."""
    metadata = obj.get("metadata", {})
    errors = []
    if not _DNS_SUBDOMAIN.match(metadata.get("name", "")):
        errors.append(f"metadata.name: not a DNS subdomain (got {metadata.get('name')!r})")
    kind = obj.get("kind")
    if kind == "Workload":
        errors += workload_errors(obj)
    elif kind in ("PodGroup", "CompositePodGroup"):
        count_key = "minCount" if kind == "PodGroup" else "minGroupCount"
        errors += _policy_errors(obj.get("spec", {}).get("schedulingPolicy", {}), "spec", count_key)
    return errors


def check_objects(objects: Iterable[dict[str, Any]]) -> None:
    """Raise on the first object that breaks a rule, naming kind, namespace, name and field."""
    for obj in objects:
        errors = object_errors(obj)
        if errors:
            metadata = obj.get("metadata", {})
            where = "/".join(p for p in (obj.get("kind"), metadata.get("namespace"), metadata.get("name")) if p)
            raise WorkloadRuleError(f"{where}: {errors[0]}")
