"""``platform.workload_api``: which applied objects need the Workload API, and what the stack then leaves out.

With ``optional`` the stack cannot know at synth time whether the API server serves
``scheduling.k8s.io/v1beta1``, so it applies nothing that needs it: no gang probes and no
admission policy that judges gang kinds or gang fields. Those policies would otherwise refuse
work on a cluster that drops the fields: the registry strategy clears a disabled field before
validating admission runs, so a GPU Pod's ``spec.schedulingGroup`` would be gone by the time
``gpu-platform-gang-gpu-pods`` looks for it. ``dist/`` still renders every object for review.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from catalog.feature_gates import FEATURE_GATES, Stage
from config.model import EnvironmentConfig
from config.platform import PlatformConfig, TeamRun, WorkloadApi
from policy.gangs.admission import AdmissionPolicy, admission_policies

GANG_KINDS = frozenset(
    ref.kind
    for gate in FEATURE_GATES.values()
    if gate.stage is not Stage.GA
    for ref in gate.unlocks
    if ref.path == "spec" and gate.api_versions
)
"""Kinds that exist only with a Workload-API gate (Workload, PodGroup, CompositePodGroup), from the registry."""


def _gated_fields() -> dict[str, tuple[str, ...]]:
    """Kind -> CEL paths (``object.spec.scheduling``) of fields a Workload-API gate unlocks on a built-in kind."""
    fields: dict[str, tuple[str, ...]] = {}
    for gate in FEATURE_GATES.values():
        for ref in gate.unlocks if gate.stage is not Stage.GA else ():
            if ref.kind not in GANG_KINDS and "[]" not in ref.path:
                fields[ref.kind] = (*fields.get(ref.kind, ()), f"object.{ref.path}")
    return fields


_GATED_FIELDS = _gated_fields()


def _expressions(policy: AdmissionPolicy) -> Iterable[str]:
    yield from (expression for _, expression in policy.match_conditions)
    yield from (expression for _, expression in policy.variables)
    yield from (v.expression for v in policy.validations)


def needs_workload_api(policy: AdmissionPolicy) -> bool:
    """The policy matches a gang kind, or reads a field of its kind that a Workload-API gate unlocks."""
    if policy.resource.kind in GANG_KINDS:
        return True
    fields = _GATED_FIELDS.get(policy.resource.kind, ())
    return any(field in expression for expression in _expressions(policy) for field in fields)


def withheld_policy_names(platform: PlatformConfig) -> frozenset[str]:
    """Admission policies (and their bindings, which share the name) the stack does not apply.

    Only ``optional`` withholds any: in the fallback form (GenericWorkload off) they are not rendered at all
    (``charts.admission_policies``)."""
    if platform.workload_api is WorkloadApi.REQUIRED:
        return frozenset()
    return frozenset(p.name for p in admission_policies(platform) if needs_workload_api(p))


def applied_objects(
    env: EnvironmentConfig, files: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, list[Mapping[str, Any]]]:
    """The rendered cluster-scoped files as the stack applies them (gang objects left out when optional)."""
    withheld = withheld_policy_names(env.platform)
    applied: dict[str, list[Mapping[str, Any]]] = {}
    for path, objects in files.items():
        kept = [
            o
            for o in objects
            if o.get("kind") not in GANG_KINDS and (o.get("metadata") or {}).get("name") not in withheld
        ]
        if kept or not objects:
            applied[path] = kept
    return applied


def gang_run_warnings(env: EnvironmentConfig, team_runs: Iterable[TeamRun]) -> list[str]:
    """One line per team run that needs the Workload API when the environment treats it as optional."""
    if env.platform.workload_api is WorkloadApi.REQUIRED:
        return []
    return [
        f"{run.source}: run {run.team}/{run.name} is a gang (Workload and PodGroups, or a Job with spec.scheduling); "
        "with platform.workload_api: optional it can start only where the cluster serves scheduling.k8s.io/v1beta1 "
        "(make verify says whether it does)"
        for run in team_runs
    ]
