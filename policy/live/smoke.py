"""The smoke test's decisions: which gang scenarios a cluster allows, what they submit, what happened.

No API calls here: ``cli/live/smoke.py`` creates the objects, polls the PodGroups, Pods and
Events, and hands the documents to ``observe``/``classify``/``settled``/``judge``.

Scenarios (each skipped, with the reason, where the cluster does not allow it; all of them without the
GenericWorkload gate, since each submits a Workload and its PodGroups):

- ``gang-scheduled``: a gang that fits starts whole; reports creation-to-
  ``PodGroupInitiallyScheduled=True`` in seconds.
- ``missing-parent``: a PodGroup naming a CompositePodGroup that does not exist waits
  (needs the CompositePodGroup gate).
- ``zone-exhausted``: a gang one GPU larger than the biggest zone, kept to one zone by
  a topology constraint, stays unscheduled with no pod bound (needs
  TopologyAwareWorkloadScheduling).
- ``tainted-devices``: with every GPU tainted by a DeviceTaintRule, a gang whose claims
  do not tolerate the taint stays unscheduled.
- ``preemption``: a high-priority gang preempts a low-priority gang holding every GPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from catalog.feature_gates import Gate
from catalog.labels import DEVICE_MANAGEMENT_DRA, DEVICE_MANAGEMENT_LABEL, DOMAIN, ZONE_LABEL
from policy.live.verify import DRA_DRIVER_NAME, dra_nodes, gpu_devices_by_node
from policy.results import Check, Status

Json = Mapping[str, Any]

SCHEDULING_API = "scheduling.k8s.io/v1beta1"
RESOURCE_API = "resource.k8s.io/v1"
SCHEDULED_CONDITION = "PodGroupInitiallyScheduled"
DISRUPTION_CONDITION = "DisruptionTarget"
PREEMPTION_REASON = "PreemptionByScheduler"
GANG_LABEL = f"{DOMAIN}/smoke-gang"
TEMPLATE_NAME = "workers"
SMOKE_TAINT_KEY = f"{DOMAIN}/smoke-test"
MAX_GANG_SIZE = 8
LOW, HIGH = "low", "high"
PRIORITY_VALUES = {LOW: 100, HIGH: 200}
"""Below every platform tier (``gpu-opportunistic`` is 1000): smoke gangs only displace each other."""


class Outcome(StrEnum):
    SCHEDULED = "scheduled"
    """``PodGroupInitiallyScheduled=True``: the gang passed the group cycle whole."""
    UNSCHEDULABLE = "unschedulable"
    """``PodGroupInitiallyScheduled=False`` (``Unschedulable``) and no pod bound."""
    SCHEDULER_ERROR = "scheduler-error"
    """``PodGroupInitiallyScheduled=False`` (``SchedulerError``)."""
    PREEMPTED = "preempted"
    """``DisruptionTarget`` (``PreemptionByScheduler``) or a ``Preempted`` event."""
    PARTIAL = "partial"
    """Some pods bound while the group never scheduled: all-or-nothing was broken."""
    WAITING = "waiting"
    """No verdict from the scheduler yet and no pod bound."""


FINAL = frozenset({Outcome.SCHEDULED, Outcome.PREEMPTED, Outcome.SCHEDULER_ERROR})
STAYS_PENDING = frozenset({Outcome.UNSCHEDULABLE, Outcome.WAITING})


@dataclass(frozen=True)
class Gang:
    name: str
    size: int
    priority: str
    expect: frozenset[Outcome]
    parent: str | None = None
    """``spec.parentCompositePodGroupName`` of its PodGroup."""
    zone_topology: bool = False
    """Keep the gang in one zone (``schedulingConstraints.topology``)."""
    wait_for_scheduled: bool = False
    """Submit the scenario's next gang only once this one is scheduled."""


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    gangs: tuple[Gang, ...] = ()
    taint_devices: bool = False
    window_seconds: int = 300
    skipped: str = ""


def gpus_per_zone(nodes: Json | None, resource_slices: Json | None) -> dict[str, int]:
    """Whole GPUs the DRA driver publishes, per zone of the DRA GPU nodes."""
    devices = gpu_devices_by_node(resource_slices)
    zones: dict[str, int] = {}
    for node in dra_nodes(nodes):
        metadata = node.get("metadata") or {}
        zone = str((metadata.get("labels") or {}).get(ZONE_LABEL, "unknown"))
        zones[zone] = zones.get(zone, 0) + len(devices.get(str(metadata.get("name")), []))
    return {z: n for z, n in sorted(zones.items()) if n}


NO_WORKLOAD_API = (
    "the GenericWorkload gate is off: there is no Workload or PodGroup to submit (gangs render in the fallback form)"
)


def plan_scenarios(
    *, gates: frozenset[str], gpus: Mapping[str, int], gang_size: int = 2, window_seconds: int = 300
) -> list[Scenario]:
    """The scenarios, sized to the GPUs the cluster publishes; each skipped with a reason where not possible."""
    total = sum(gpus.values())
    largest_zone = max(gpus.values(), default=0)
    no_gpus = "no GPU is published by the DRA driver (scale a DRA pool up, then run again)"
    pending_window = min(window_seconds, 90)
    fill = min(total, MAX_GANG_SIZE)

    def sized(scenario: Scenario, *, needs: int, reason: str = "") -> Scenario:
        if Gate.GENERIC_WORKLOAD not in gates:  # every scenario submits a Workload and its PodGroups
            reason = NO_WORKLOAD_API
        if reason:
            return replace(scenario, gangs=(), skipped=reason)
        if total < needs:
            return replace(scenario, gangs=(), skipped=no_gpus if total == 0 else f"needs {needs} GPUs, {total} seen")
        return scenario

    return [
        sized(
            Scenario(
                "gang-scheduled",
                f"a gang of {min(gang_size, max(total, 1))} that fits starts whole",
                (Gang("fits", min(gang_size, max(total, 1), MAX_GANG_SIZE), LOW, frozenset({Outcome.SCHEDULED})),),
                window_seconds=window_seconds,
            ),
            needs=1,
        ),
        sized(
            Scenario(
                "missing-parent",
                "a PodGroup whose parent CompositePodGroup does not exist waits",
                (Gang("orphan", 1, LOW, STAYS_PENDING, parent="no-such-composite"),),
                window_seconds=pending_window,
            ),
            needs=0,
            reason="" if Gate.COMPOSITE_POD_GROUP in gates else "the CompositePodGroup gate is off",
        ),
        sized(
            Scenario(
                "zone-exhausted",
                f"a gang of {largest_zone + 1} kept to one zone (largest has {largest_zone} GPUs) binds no pod",
                (Gang("too-big", largest_zone + 1, LOW, STAYS_PENDING, zone_topology=True),),
                window_seconds=pending_window,
            ),
            needs=1,
            reason=""
            if Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING in gates
            else "the TopologyAwareWorkloadScheduling gate is off",
        ),
        sized(
            Scenario(
                "tainted-devices",
                "with every GPU tainted, a gang whose claims do not tolerate the taint waits",
                (Gang("untolerated", 1, LOW, STAYS_PENDING),),
                taint_devices=True,
                window_seconds=pending_window,
            ),
            needs=1,
        ),
        sized(
            Scenario(
                "preemption",
                f"a high-priority gang of {fill} preempts a low-priority gang holding every GPU",
                (
                    Gang("low", fill, LOW, frozenset({Outcome.PREEMPTED}), wait_for_scheduled=True),
                    Gang("high", fill, HIGH, frozenset({Outcome.SCHEDULED})),
                ),
                window_seconds=window_seconds,
            ),
            needs=1,
        ),
    ]


# --- objects -----------------------------------------------------------------------------------


def priority_class_manifests(prefix: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": f"{prefix}-{level}", "labels": {GANG_LABEL: prefix}},
            "value": value,
            "preemptionPolicy": "PreemptLowerPriority",
            "globalDefault": False,
            "description": f"Smoke test ({level}); deleted when the test ends.",
        }
        for level, value in PRIORITY_VALUES.items()
    ]


def namespace_manifest(name: str, prefix: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {GANG_LABEL: prefix}}}


def device_taint_rule_manifest(name: str) -> dict[str, Any]:
    """Taints every device of the NVIDIA DRA driver ``NoSchedule`` (no eviction) for one scenario."""
    return {
        "apiVersion": RESOURCE_API,
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {
            "deviceSelector": {"driver": DRA_DRIVER_NAME},
            "taint": {"key": SMOKE_TAINT_KEY, "value": "tainted", "effect": "NoSchedule"},
        },
    }


def gang_manifests(
    *,
    namespace: str,
    gang: Gang,
    priority_class: str,
    tolerations: Sequence[Mapping[str, str]],
    image: str,
    device_class: str = DRA_DRIVER_NAME,
) -> list[dict[str, Any]]:
    """In creation order: ResourceClaimTemplate, Workload, PodGroup, then the Pods (one GPU each)."""
    policy = {"gang": {"minCount": gang.size}}
    constraints = {"schedulingConstraints": {"topology": [{"key": ZONE_LABEL}]}} if gang.zone_topology else {}
    claim = f"{gang.name}-gpu"
    labels = {GANG_LABEL: gang.name}
    workload = {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {"name": gang.name, "namespace": namespace, "labels": labels},
        "spec": {
            "podGroupTemplates": [
                {"name": TEMPLATE_NAME, "schedulingPolicy": policy, "priorityClassName": priority_class, **constraints}
            ]
        },
    }
    pod_group_spec: dict[str, Any] = {
        "workloadRef": {"workloadName": gang.name, "templateName": TEMPLATE_NAME},
        "schedulingPolicy": policy,
        "priorityClassName": priority_class,
        **constraints,
    }
    if gang.parent:
        pod_group_spec["parentCompositePodGroupName"] = gang.parent
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{gang.name}-{index}", "namespace": namespace, "labels": labels},
            "spec": {
                "schedulingGroup": {"podGroupName": gang.name},
                "priorityClassName": priority_class,
                "restartPolicy": "Never",
                "terminationGracePeriodSeconds": 0,
                "nodeSelector": {DEVICE_MANAGEMENT_LABEL: DEVICE_MANAGEMENT_DRA},
                "tolerations": [dict(t) for t in tolerations],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": claim}],
                "containers": [
                    {
                        "name": "hold",
                        "image": image,
                        "resources": {"claims": [{"name": "gpu"}], "requests": {"cpu": "10m", "memory": "16Mi"}},
                    }
                ],
            },
        }
        for index in range(gang.size)
    ]
    return [
        {
            "apiVersion": RESOURCE_API,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": claim, "namespace": namespace, "labels": labels},
            "spec": {
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": device_class}}]}}
            },
        },
        workload,
        {
            "apiVersion": SCHEDULING_API,
            "kind": "PodGroup",
            "metadata": {"name": gang.name, "namespace": namespace, "labels": labels},
            "spec": pod_group_spec,
        },
        *pods,
    ]


_PLURALS = {
    "Namespace": "namespaces",
    "PriorityClass": "priorityclasses",
    "DeviceTaintRule": "devicetaintrules",
    "ResourceClaimTemplate": "resourceclaimtemplates",
    "Workload": "workloads",
    "PodGroup": "podgroups",
    "Pod": "pods",
    "Event": "events",
}


def collection_path(api_version: str, kind: str, namespace: str | None = None) -> str:
    """The REST collection of a kind: ``/api/v1/...`` for the core group, ``/apis/<group>/<v>/...`` otherwise."""
    root = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    scope = f"/namespaces/{namespace}" if namespace else ""
    return f"{root}{scope}/{_PLURALS[kind]}"


def object_path(obj: Json) -> str:
    metadata = obj["metadata"]
    return f"{collection_path(obj['apiVersion'], obj['kind'], metadata.get('namespace'))}/{metadata['name']}"


# --- observation and judgement -----------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """What the API showed about one gang, accumulated over polls (preemption deletes the evidence)."""

    created: datetime | None = None
    scheduled_at: datetime | None = None
    condition_status: str = ""
    condition_reason: str = ""
    preempted: bool = False
    pods_bound: int = 0
    pods_seen: int = 0


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _conditions(obj: Json | None) -> list[Json]:
    return list(((obj or {}).get("status") or {}).get("conditions") or ())


def _is_preemption(condition: Json) -> bool:
    return condition.get("type") == DISRUPTION_CONDITION and condition.get("status") == "True"


def observe(pod_group: Json | None, pods: Sequence[Json], events: Sequence[Json]) -> Observation:
    """One poll: the PodGroup, the gang's Pods and the namespace's Events."""
    scheduled = next((c for c in _conditions(pod_group) if c.get("type") == SCHEDULED_CONDITION), None)
    pod_names = {str((p.get("metadata") or {}).get("name")) for p in pods}
    group_name = str(((pod_group or {}).get("metadata") or {}).get("name", ""))
    preempted = any(_is_preemption(c) for c in _conditions(pod_group)) or any(
        _is_preemption(c) for p in pods for c in _conditions(p)
    )
    preempted = preempted or any(
        e.get("reason") == "Preempted"
        and str((e.get("involvedObject") or {}).get("name")) in pod_names | ({group_name} if group_name else set())
        for e in events
    )
    return Observation(
        created=_time(((pod_group or {}).get("metadata") or {}).get("creationTimestamp")),
        scheduled_at=_time(scheduled.get("lastTransitionTime"))
        if scheduled and scheduled.get("status") == "True"
        else None,
        condition_status=str(scheduled.get("status", "")) if scheduled else "",
        condition_reason=str(scheduled.get("reason", "")) if scheduled else "",
        preempted=preempted,
        pods_bound=sum(1 for p in pods if (p.get("spec") or {}).get("nodeName")),
        pods_seen=len(pods),
    )


def merge(previous: Observation | None, current: Observation) -> Observation:
    """Keep what later polls can no longer show: that the gang was scheduled, bound or preempted."""
    if previous is None:
        return current
    return replace(
        current,
        created=previous.created or current.created,
        scheduled_at=previous.scheduled_at or current.scheduled_at,
        preempted=previous.preempted or current.preempted,
        pods_bound=max(previous.pods_bound, current.pods_bound),
        pods_seen=max(previous.pods_seen, current.pods_seen),
    )


def classify(observation: Observation) -> Outcome:
    if observation.preempted:
        return Outcome.PREEMPTED
    if observation.scheduled_at is not None or observation.condition_status == "True":
        return Outcome.SCHEDULED
    if observation.pods_bound > 0:
        return Outcome.PARTIAL
    if observation.condition_status == "False":
        return Outcome.SCHEDULER_ERROR if observation.condition_reason == "SchedulerError" else Outcome.UNSCHEDULABLE
    return Outcome.WAITING


def seconds_to_scheduled(observation: Observation) -> float | None:
    """Creation to ``PodGroupInitiallyScheduled=True``, from the API server's own timestamps."""
    if observation.created is None or observation.scheduled_at is None:
        return None
    return (observation.scheduled_at - observation.created).total_seconds()


def settled(scenario: Scenario, outcomes: Mapping[str, Outcome], elapsed_seconds: float) -> bool:
    """Stop polling: the window is over, all-or-nothing broke, a gang ran that must not, or all are decided.

    Gangs expected to stay pending are watched for the whole window.
    """
    if elapsed_seconds >= scenario.window_seconds:
        return True
    decided = True
    for gang in scenario.gangs:
        outcome = outcomes.get(gang.name, Outcome.WAITING)
        if outcome is Outcome.PARTIAL:
            return True
        if outcome is Outcome.SCHEDULED and not gang.expect & {Outcome.SCHEDULED, Outcome.PREEMPTED}:
            return True
        if not (outcome in gang.expect and outcome in FINAL):
            decided = False
    return decided


_FIXES = {
    Outcome.PARTIAL: "pods bound without the group: check the scheduler runs GenericWorkload (gang scheduling)",
    Outcome.WAITING: "the scheduler never reported on the group: check GenericWorkload on the scheduler",
    Outcome.SCHEDULER_ERROR: "read the PodGroup's condition message and the kube-scheduler log",
}


def judge(scenario: Scenario, gang: Gang, observation: Observation) -> Check:
    outcome = classify(observation)
    seconds = seconds_to_scheduled(observation)
    timing = f" in {seconds:.0f}s" if seconds is not None and outcome is Outcome.SCHEDULED else ""
    pods = f", {observation.pods_bound}/{gang.size} pods bound"
    expected = "/".join(sorted(o.value for o in gang.expect))
    detail = f"{outcome.value}{timing}{pods} (expected {expected}): {scenario.description}"
    if outcome in gang.expect:
        return Check("smoke", f"{scenario.name}/{gang.name}", Status.OK, detail)
    fix = _FIXES.get(outcome, "see the PodGroup's conditions and the namespace's events")
    return Check("smoke", f"{scenario.name}/{gang.name}", Status.FAIL, detail, fix)


def skipped(scenario: Scenario) -> Check:
    return Check("smoke", scenario.name, Status.SKIP, scenario.skipped)
