"""Pure state machine behind the gang exporter.

Consumes Kubernetes objects as plain API-JSON dicts (the shape returned by the
API server: camelCase keys, RFC 3339 timestamps) and computes the values of
every exported metric. Nothing here talks to the API server or imports the
Prometheus client, so every transition is testable with literal objects.

Time is always passed in (``now``, epoch seconds); durations are computed from
API timestamps, never from the exporter's own clock, except for the age of a
waiting group (``now - creationTimestamp``).

Counting rules
--------------
* Time to scheduled: observed once per PodGroup uid, when the group's
  ``PodGroupInitiallyScheduled`` condition is first seen ``True``; the value is
  ``lastTransitionTime - creationTimestamp``. Groups that were already
  scheduled before the exporter started are not observed (their transition
  happened before ``started_at``), so a restart never replays history.
* Preemptions: a Pod of a group becomes a victim when it carries the
  ``DisruptionTarget`` condition with reason ``PreemptionByScheduler`` or when a
  ``Preempted`` event names it. Each victim Pod is counted once
  (``preempted_pods``); victims of the same group whose preemption times lie
  within ``preemption_episode_seconds`` of each other form one preemption of
  the group (``preemptions``), because workload-aware preemption evicts a gang
  as a unit.
* Allocation failures: ``FailedScheduling`` events whose message mentions a
  claim are attributed to the DeviceClasses of the involved Pod's (or
  PodGroup's) unallocated ResourceClaims. Event ``count`` increments are
  counted, so a deduplicated event that repeats 5 times counts 5. Events last
  updated before ``started_at`` only set the baseline.
* The platform's feature-gate probes are not gangs: their PodGroups
  (``is_gate_probe``) are dropped on arrival and count in no metric.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .gpus import UNKNOWN_MODEL, gpu_model

Obj = Mapping[str, Any]

KIND_PODGROUP = "PodGroup"
KIND_POD = "Pod"
KIND_EVENT = "Event"
KIND_RESOURCECLAIM = "ResourceClaim"
KIND_NODE = "Node"
KINDS = (KIND_NODE, KIND_RESOURCECLAIM, KIND_PODGROUP, KIND_POD, KIND_EVENT)

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"

CONDITION_INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
CONDITION_DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
EVENT_REASON_PREEMPTED = "Preempted"
EVENT_REASON_FAILED_SCHEDULING = "FailedScheduling"

# Waiting reasons exported on the waiting-group gauges.
WAITING_PENDING = "Pending"  # no PodGroupInitiallyScheduled condition yet
WAITING_UNSCHEDULABLE = "Unschedulable"
WAITING_SCHEDULER_ERROR = "SchedulerError"

UNKNOWN_DEVICE_CLASS = "unknown"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type"

DEFAULT_BUCKETS: tuple[float, ...] = (
    5.0,
    15.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    900.0,
    1800.0,
    3600.0,
    7200.0,
    14400.0,
    28800.0,
    86400.0,
)
DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"
DEFAULT_GPU_DEVICE_CLASSES: tuple[str, ...] = ("gpu.nvidia.com",)

# The platform's feature-gate probes (``policy/gate_probes.py``; copied because the image ships
# only ``exporter/``, and a test checks the copies agree).
PROBE_NAMESPACE = "default"
PROBE_LABEL = "gpu-platform.io/gate-probe"
PROBE_PREFIX = "gate-probe-"


# --------------------------------------------------------------------------
# Parsing helpers
# --------------------------------------------------------------------------


def parse_time(value: object) -> float | None:
    """RFC 3339 timestamp (``2026-05-01T10:00:00Z``) -> epoch seconds."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed.timestamp()


def parse_count(value: object) -> int:
    """Integer resource quantity (``8``, ``"8"``, ``"8000m"``); 0 if unusable."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float):
        return max(int(value), 0)
    if isinstance(value, str):
        text = value.strip()
        try:
            if text.endswith("m"):
                return max(int(text[:-1]) // 1000, 0)
            return max(int(float(text)), 0)
        except ValueError:
            return 0
    return 0


def _get(obj: object, *path: str) -> Any:
    cur: Any = obj
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _meta(obj: Obj) -> tuple[str, str, str]:
    """(namespace, name, uid)."""
    return (
        _str(_get(obj, "metadata", "namespace")),
        _str(_get(obj, "metadata", "name")),
        _str(_get(obj, "metadata", "uid")),
    )


# --------------------------------------------------------------------------
# Parsed object records
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class GroupLabels:
    """Label set identifying a PodGroup in every per-group series."""

    namespace: str
    podgroup: str
    workload: str = ""
    template: str = ""
    priority_class: str = ""


@dataclasses.dataclass(frozen=True)
class PodGroupInfo:
    uid: str
    labels: GroupLabels
    created: float
    policy: str  # "gang" | "basic" | ""
    min_count: int
    scheduled_at: float | None  # PodGroupInitiallyScheduled=True transition
    waiting_reason: str  # Pending | Unschedulable | SchedulerError
    claim_names: tuple[str, ...]  # ResourceClaim object names ("" = not yet created)


@dataclasses.dataclass(frozen=True)
class PodInfo:
    uid: str
    namespace: str
    name: str
    podgroup: str
    priority_class: str
    claim_names: tuple[str, ...]  # ResourceClaim object names ("" = not yet created)
    gpus: int  # extended-resource GPUs requested by the Pod
    terminated: bool
    preempted_at: float | None  # DisruptionTarget/PreemptionByScheduler time


@dataclasses.dataclass(frozen=True)
class ClaimInfo:
    namespace: str
    name: str
    requests: tuple[tuple[str, int], ...]  # (deviceClassName, device count; 0 = "All")
    allocated: bool

    @property
    def device_classes(self) -> tuple[str, ...]:
        return tuple(sorted({cls for cls, _ in self.requests if cls}))


@dataclasses.dataclass(frozen=True)
class NodeInfo:
    name: str
    zone: str
    instance_type: str
    gpu_model: str
    gpus: int


def _resolve_claim_names(entries: object, statuses: object) -> tuple[str, ...]:
    """Pod/PodGroup ``resourceClaims`` -> ResourceClaim object names.

    Claims from a template are resolved through ``status.resourceClaimStatuses``;
    while the claim has not been generated yet the name is ``""``.
    """
    generated = {_str(_get(s, "name")): _str(_get(s, "resourceClaimName")) for s in _list(statuses)}
    names: list[str] = []
    for entry in _list(entries):
        direct = _str(_get(entry, "resourceClaimName"))
        if direct:
            names.append(direct)
        else:
            names.append(generated.get(_str(_get(entry, "name")), ""))
    return tuple(names)


def is_gate_probe(obj: Obj) -> bool:
    """Whether a PodGroup belongs to a feature-gate probe: it never gets Pods, so it would wait forever.

    The probes stay in the cluster after deploy. The one PodGroup they get is the Job controller's
    for the suspended ``WorkloadWithJob`` probe Job (KEP-5547: the 1.37 alpha keeps a suspended
    Job's Workload and PodGroup; the Job controller is the only built-in creator of PodGroups, so
    the probe Workloads get none). Its labels are not known to come from the Job, but its names
    lead back to it (``workloadbuilder`` naming): Workload ``<job>-<hash>``, PodGroup
    ``<workload>-<template>-<hash>`` with ``spec.workloadRef`` to the Workload and ownerReferences
    to both. Without Pods no Pod, preemption or scheduling event names it: the PodGroup is all
    there is to drop.
    """
    if _get(obj, "metadata", "namespace") != PROBE_NAMESPACE:
        return False
    labels = _get(obj, "metadata", "labels")
    if isinstance(labels, Mapping) and PROBE_LABEL in labels:
        return True
    related = [_get(obj, "spec", "workloadRef", "workloadName")]
    related += [_get(ref, "name") for ref in _list(_get(obj, "metadata", "ownerReferences"))]
    return any(_str(name).startswith(PROBE_PREFIX) for name in related)


def parse_podgroup(obj: Obj) -> PodGroupInfo:
    namespace, name, uid = _meta(obj)
    spec = _get(obj, "spec") or {}
    policy_obj = _get(spec, "schedulingPolicy") or {}
    if isinstance(_get(policy_obj, "gang"), Mapping):
        policy = "gang"
        min_count = parse_count(_get(policy_obj, "gang", "minCount"))
    elif isinstance(_get(policy_obj, "basic"), Mapping):
        policy, min_count = "basic", 1
    else:
        policy, min_count = "", 0
    scheduled_at: float | None = None
    waiting_reason = WAITING_PENDING
    for cond in _list(_get(obj, "status", "conditions")):
        if _get(cond, "type") != CONDITION_INITIALLY_SCHEDULED:
            continue
        if _get(cond, "status") == "True":
            scheduled_at = parse_time(_get(cond, "lastTransitionTime"))
            if scheduled_at is None:
                scheduled_at = parse_time(_get(obj, "metadata", "creationTimestamp")) or 0.0
        elif _get(cond, "status") == "False":
            reason = _str(_get(cond, "reason"))
            waiting_reason = (
                reason if reason in (WAITING_UNSCHEDULABLE, WAITING_SCHEDULER_ERROR) else WAITING_UNSCHEDULABLE
            )
    return PodGroupInfo(
        uid=uid,
        labels=GroupLabels(
            namespace=namespace,
            podgroup=name,
            workload=_str(_get(spec, "workloadRef", "workloadName")),
            template=_str(_get(spec, "workloadRef", "templateName")),
            priority_class=_str(_get(spec, "priorityClassName")),
        ),
        created=parse_time(_get(obj, "metadata", "creationTimestamp")) or 0.0,
        policy=policy,
        min_count=min_count,
        scheduled_at=scheduled_at,
        waiting_reason=waiting_reason,
        claim_names=_resolve_claim_names(_get(spec, "resourceClaims"), _get(obj, "status", "resourceClaimStatuses")),
    )


def _container_gpus(container: object, resource: str) -> int:
    requests = _get(container, "resources", "requests") or {}
    limits = _get(container, "resources", "limits") or {}
    value = requests.get(resource) if isinstance(requests, Mapping) else None
    if value is None and isinstance(limits, Mapping):
        value = limits.get(resource)
    return parse_count(value)


def pod_gpu_request(obj: Obj, resource: str = DEFAULT_GPU_RESOURCE) -> int:
    """Effective extended-resource request: max(sum(containers), max(init))."""
    spec = _get(obj, "spec") or {}
    regular = sum(_container_gpus(c, resource) for c in _list(_get(spec, "containers")))
    init = max((_container_gpus(c, resource) for c in _list(_get(spec, "initContainers"))), default=0)
    return max(regular, init)


def parse_pod(obj: Obj, gpu_resource: str = DEFAULT_GPU_RESOURCE) -> PodInfo:
    namespace, name, uid = _meta(obj)
    preempted_at: float | None = None
    for cond in _list(_get(obj, "status", "conditions")):
        if (
            _get(cond, "type") == CONDITION_DISRUPTION_TARGET
            and _get(cond, "status") == "True"
            and _get(cond, "reason") == REASON_PREEMPTION_BY_SCHEDULER
        ):
            preempted_at = parse_time(_get(cond, "lastTransitionTime"))
            if preempted_at is None:
                preempted_at = parse_time(_get(obj, "metadata", "creationTimestamp")) or 0.0
    return PodInfo(
        uid=uid,
        namespace=namespace,
        name=name,
        podgroup=_str(_get(obj, "spec", "schedulingGroup", "podGroupName")),
        priority_class=_str(_get(obj, "spec", "priorityClassName")),
        claim_names=_resolve_claim_names(
            _get(obj, "spec", "resourceClaims"), _get(obj, "status", "resourceClaimStatuses")
        ),
        gpus=pod_gpu_request(obj, gpu_resource),
        terminated=_get(obj, "status", "phase") in ("Succeeded", "Failed"),
        preempted_at=preempted_at,
    )


def _device_request(entry: object) -> tuple[str, int]:
    exact = _get(entry, "exactly")
    if not isinstance(exact, Mapping):
        # firstAvailable: the scheduler prefers the first sub-request.
        subs = _list(_get(entry, "firstAvailable"))
        exact = subs[0] if subs and isinstance(subs[0], Mapping) else {}
    device_class = _str(_get(exact, "deviceClassName"))
    if _get(exact, "allocationMode") == "All":
        return device_class, 0
    count = _get(exact, "count")
    return device_class, (parse_count(count) if count is not None else 1)


def parse_claim(obj: Obj) -> ClaimInfo:
    namespace, name, _ = _meta(obj)
    return ClaimInfo(
        namespace=namespace,
        name=name,
        requests=tuple(_device_request(r) for r in _list(_get(obj, "spec", "devices", "requests"))),
        allocated=isinstance(_get(obj, "status", "allocation"), Mapping),
    )


def parse_node(obj: Obj, gpu_resource: str = DEFAULT_GPU_RESOURCE) -> NodeInfo:
    labels = _get(obj, "metadata", "labels") or {}
    instance_type = _str(labels.get(LABEL_INSTANCE_TYPE)) if isinstance(labels, Mapping) else ""
    zone = _str(labels.get(LABEL_ZONE)) if isinstance(labels, Mapping) else ""
    allocatable = _get(obj, "status", "allocatable") or {}
    gpus = parse_count(allocatable.get(gpu_resource)) if isinstance(allocatable, Mapping) else 0
    return NodeInfo(
        name=_str(_get(obj, "metadata", "name")),
        zone=zone,
        instance_type=instance_type,
        gpu_model=gpu_model(instance_type) if instance_type else UNKNOWN_MODEL,
        gpus=gpus,
    )


def event_count(obj: Obj) -> int:
    for value in (_get(obj, "count"), _get(obj, "series", "count")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 1


def event_time(obj: Obj) -> float | None:
    """Most recent occurrence of a core/v1 Event."""
    for path in (
        ("lastTimestamp",),
        ("series", "lastObservedTime"),
        ("eventTime",),
        ("firstTimestamp",),
        ("metadata", "creationTimestamp"),
    ):
        parsed = parse_time(_get(obj, *path))
        if parsed is not None:
            return parsed
    return None


# --------------------------------------------------------------------------
# Snapshot (what the collector renders)
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HistogramValue:
    """Cumulative bucket counts aligned with ``Snapshot.buckets`` (+Inf last)."""

    cumulative: tuple[int, ...]
    count: int
    sum: float


@dataclasses.dataclass(frozen=True)
class WaitingGroup:
    labels: GroupLabels
    reason: str
    age_seconds: float
    min_count: int
    pods: int
    requested_gpus: int


@dataclasses.dataclass(frozen=True)
class Snapshot:
    buckets: tuple[float, ...]
    # (namespace, priority_class) -> histogram
    time_to_scheduled: Mapping[tuple[str, str], HistogramValue]
    # (namespace, priority_class) -> groups not yet initially scheduled
    pending_groups: Mapping[tuple[str, str], int]
    waiting: tuple[WaitingGroup, ...]
    preemptions: Mapping[GroupLabels, int]
    preempted_pods: Mapping[GroupLabels, int]
    # (group labels, device_class) -> failures
    allocation_failures: Mapping[tuple[GroupLabels, str], int]
    # (zone, instance_type, gpu_model) -> allocatable GPUs
    allocatable_gpus: Mapping[tuple[str, str, str], int]


# --------------------------------------------------------------------------
# State machine
# --------------------------------------------------------------------------


@dataclasses.dataclass
class _GroupCounters:
    labels: GroupLabels
    preemptions: int = 0
    preempted_pods: int = 0
    # preemption episodes as [start, end] time spans
    episodes: list[list[float]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class _Histogram:
    counts: list[int]  # per bucket, non-cumulative, +Inf last
    count: int = 0
    total: float = 0.0


class GangState:
    """Holds the watched objects and the exporter's counters."""

    def __init__(
        self,
        *,
        started_at: float,
        buckets: Sequence[float] = DEFAULT_BUCKETS,
        gpu_resource: str = DEFAULT_GPU_RESOURCE,
        gpu_device_classes: Iterable[str] = DEFAULT_GPU_DEVICE_CLASSES,
        preemption_episode_seconds: float = 120.0,
        retention_seconds: float = 900.0,
        event_ttl_seconds: float = 10800.0,
    ) -> None:
        if list(buckets) != sorted(set(buckets)) or not buckets:
            raise ValueError("buckets must be non-empty, strictly increasing")
        self.started_at = started_at
        # API timestamps have one-second resolution: compare against the start second.
        self._since = float(math.floor(started_at))
        self.buckets: tuple[float, ...] = tuple(float(b) for b in buckets)
        self.gpu_resource = gpu_resource
        self.gpu_device_classes = frozenset(gpu_device_classes)
        self.preemption_episode_seconds = preemption_episode_seconds
        self.retention_seconds = retention_seconds
        self.event_ttl_seconds = event_ttl_seconds

        self._groups: dict[tuple[str, str], PodGroupInfo] = {}
        self._pods: dict[str, PodInfo] = {}  # uid -> pod (live and deleted)
        self._pod_deleted_at: dict[str, float] = {}
        self._pod_uid_by_name: dict[tuple[str, str], str] = {}
        self._preempted_pod_uids: set[str] = set()
        self._claims: dict[tuple[str, str], ClaimInfo] = {}
        self._nodes: dict[str, NodeInfo] = {}

        self._observed_group_uids: set[str] = set()
        self._group_deleted_at: dict[tuple[str, str], float] = {}
        self._last_labels: dict[tuple[str, str], GroupLabels] = {}
        self._histograms: dict[tuple[str, str], _Histogram] = {}
        self._counters: dict[tuple[str, str], _GroupCounters] = {}
        self._alloc_failures: dict[tuple[GroupLabels, str], int] = {}
        self._event_seen: dict[str, tuple[int, float]] = {}  # uid -> (count, last time)

    # ------------------------------------------------------------ dispatch

    def apply(self, kind: str, event_type: str, obj: Obj, now: float) -> None:
        """Apply one watch event (``ADDED``/``MODIFIED``/``DELETED``)."""
        deleted = event_type == DELETED
        if kind == KIND_PODGROUP:
            if is_gate_probe(obj):
                return
            if deleted:
                self._delete_podgroup(obj, now)
            else:
                self._upsert_podgroup(obj)
        elif kind == KIND_POD:
            if deleted:
                self._delete_pod(obj, now)
            else:
                self._upsert_pod(obj)
        elif kind == KIND_RESOURCECLAIM:
            key = _meta(obj)[:2]
            if deleted:
                self._claims.pop(key, None)
            else:
                self._claims[key] = parse_claim(obj)
        elif kind == KIND_NODE:
            name = _meta(obj)[1]
            if deleted:
                self._nodes.pop(name, None)
            else:
                self._nodes[name] = parse_node(obj, self.gpu_resource)
        elif kind == KIND_EVENT:
            if not deleted:
                self._on_event(obj, now)
        else:
            raise ValueError(f"unsupported kind {kind!r}")

    def replace(self, kind: str, objs: Iterable[Obj], now: float) -> None:
        """Apply a full (re)list: objects absent from ``objs`` are deleted."""
        items = list(objs)
        if kind != KIND_EVENT:
            present = {self._key(kind, o) for o in items}
            for key, stale in self._current(kind).items():
                if key not in present:
                    self.apply(kind, DELETED, stale, now)
        for obj in items:
            self.apply(kind, ADDED, obj, now)

    @staticmethod
    def _key(kind: str, obj: Obj) -> str:
        namespace, name, uid = _meta(obj)
        if kind == KIND_POD:
            return uid
        return f"{namespace}/{name}"

    def _current(self, kind: str) -> dict[str, Obj]:
        """Minimal stand-in objects for what is currently held, by key."""

        def stub(namespace: str, name: str, uid: str = "") -> Obj:
            return {"metadata": {"namespace": namespace, "name": name, "uid": uid}}

        if kind == KIND_PODGROUP:
            return {f"{ns}/{n}": stub(ns, n, g.uid) for (ns, n), g in self._groups.items()}
        if kind == KIND_POD:
            return {
                uid: stub(p.namespace, p.name, uid) for uid, p in self._pods.items() if uid not in self._pod_deleted_at
            }
        if kind == KIND_RESOURCECLAIM:
            return {f"{ns}/{n}": stub(ns, n) for (ns, n) in self._claims}
        if kind == KIND_NODE:
            return {f"/{n}": stub("", n) for n in self._nodes}
        return {}

    # ------------------------------------------------------------ podgroups

    def _upsert_podgroup(self, obj: Obj) -> None:
        info = parse_podgroup(obj)
        key = (info.labels.namespace, info.labels.podgroup)
        previous = self._groups.get(key)
        if previous is not None and previous.uid != info.uid:
            self._observed_group_uids.discard(previous.uid)
        self._groups[key] = info
        self._last_labels[key] = info.labels
        self._group_deleted_at.pop(key, None)
        counters = self._counters.get(key)
        if counters is not None:
            counters.labels = info.labels
        if info.scheduled_at is not None and info.uid not in self._observed_group_uids:
            self._observed_group_uids.add(info.uid)
            if info.scheduled_at >= self._since:
                self._observe(info, max(info.scheduled_at - info.created, 0.0))

    def _observe(self, info: PodGroupInfo, seconds: float) -> None:
        hkey = (info.labels.namespace, info.labels.priority_class)
        hist = self._histograms.get(hkey)
        if hist is None:
            hist = self._histograms[hkey] = _Histogram(counts=[0] * (len(self.buckets) + 1))
        index = next((i for i, b in enumerate(self.buckets) if seconds <= b), len(self.buckets))
        hist.counts[index] += 1
        hist.count += 1
        hist.total += seconds

    def _delete_podgroup(self, obj: Obj, now: float) -> None:
        namespace, name, _ = _meta(obj)
        info = self._groups.pop((namespace, name), None)
        if info is not None:
            self._observed_group_uids.discard(info.uid)
            self._group_deleted_at[(namespace, name)] = now

    def _group_labels(self, namespace: str, podgroup: str, priority_class: str = "") -> GroupLabels:
        labels = self._last_labels.get((namespace, podgroup))
        if labels is not None:
            return labels
        return GroupLabels(namespace=namespace, podgroup=podgroup, priority_class=priority_class)

    # ------------------------------------------------------------ pods

    def _upsert_pod(self, obj: Obj) -> None:
        info = parse_pod(obj, self.gpu_resource)
        if not info.podgroup and not info.claim_names:
            # Neither in a gang nor holding claims: nothing to export.
            self._forget_pod(info.uid)
            return
        self._pods[info.uid] = info
        self._pod_deleted_at.pop(info.uid, None)
        self._pod_uid_by_name[(info.namespace, info.name)] = info.uid
        if info.preempted_at is not None:
            self._record_victim(info, info.preempted_at)

    def _delete_pod(self, obj: Obj, now: float) -> None:
        uid = _meta(obj)[2]
        if uid in self._pods and uid not in self._pod_deleted_at:
            self._pod_deleted_at[uid] = now

    def _forget_pod(self, uid: str) -> None:
        info = self._pods.pop(uid, None)
        self._pod_deleted_at.pop(uid, None)
        self._preempted_pod_uids.discard(uid)
        if info is not None and self._pod_uid_by_name.get((info.namespace, info.name)) == uid:
            del self._pod_uid_by_name[(info.namespace, info.name)]

    def _record_victim(self, pod: PodInfo, when: float) -> None:
        if not pod.podgroup or pod.uid in self._preempted_pod_uids:
            return
        self._preempted_pod_uids.add(pod.uid)
        if when < self._since:
            return  # happened before the exporter started: baseline only
        key = (pod.namespace, pod.podgroup)
        counters = self._counters.get(key)
        if counters is None:
            counters = self._counters[key] = _GroupCounters(
                labels=self._group_labels(pod.namespace, pod.podgroup, pod.priority_class)
            )
        counters.preempted_pods += 1
        window = self.preemption_episode_seconds
        for span in counters.episodes:
            if span[0] - window <= when <= span[1] + window:
                span[0], span[1] = min(span[0], when), max(span[1], when)
                break
        else:
            counters.episodes.append([when, when])
            counters.preemptions += 1
            del counters.episodes[:-32]  # bounded memory; recent episodes suffice

    # ------------------------------------------------------------ events

    def _on_event(self, obj: Obj, now: float) -> None:
        reason = _get(obj, "reason")
        involved = _get(obj, "involvedObject") or {}
        kind = _get(involved, "kind")
        when = event_time(obj)
        when = now if when is None else when
        if reason == EVENT_REASON_PREEMPTED and kind == KIND_POD:
            pod = self._find_pod(involved)
            if pod is not None:
                self._record_victim(pod, when)
            return
        if reason != EVENT_REASON_FAILED_SCHEDULING or kind not in (KIND_POD, KIND_PODGROUP):
            return
        message = _str(_get(obj, "message"))
        if "claim" not in message.lower():
            return
        uid = _str(_get(obj, "metadata", "uid")) or (
            f"{_str(_get(obj, 'metadata', 'namespace'))}/{_str(_get(obj, 'metadata', 'name'))}"
        )
        count = event_count(obj)
        previous = self._event_seen.get(uid)
        self._event_seen[uid] = (max(count, previous[0]) if previous else count, when)
        if previous is not None:
            delta = max(count - previous[0], 0)
        elif when >= self._since:
            delta = count
        else:
            delta = 0  # last seen before the exporter started: baseline only
        if delta == 0:
            return
        target = self._failure_target(kind, involved, message)
        if target is None:
            return
        labels, classes = target
        for device_class in classes:
            key = (labels, device_class)
            self._alloc_failures[key] = self._alloc_failures.get(key, 0) + delta

    def _find_pod(self, involved: object) -> PodInfo | None:
        uid = _str(_get(involved, "uid"))
        if uid and uid in self._pods:
            return self._pods[uid]
        by_name = self._pod_uid_by_name.get((_str(_get(involved, "namespace")), _str(_get(involved, "name"))))
        return self._pods.get(by_name) if by_name else None

    def _failure_target(
        self, kind: object, involved: object, message: str
    ) -> tuple[GroupLabels, tuple[str, ...]] | None:
        namespace = _str(_get(involved, "namespace"))
        claim_names: list[str] = []
        if kind == KIND_POD:
            pod = self._find_pod(involved)
            if pod is None:
                return None
            claim_names.extend(pod.claim_names)
            if pod.podgroup:
                labels = self._group_labels(namespace, pod.podgroup, pod.priority_class)
                group = self._groups.get((namespace, pod.podgroup))
                if group is not None:
                    claim_names.extend(group.claim_names)
            else:
                labels = GroupLabels(namespace=namespace, podgroup="", priority_class=pod.priority_class)
        else:
            name = _str(_get(involved, "name"))
            labels = self._group_labels(namespace, name)
            group = self._groups.get((namespace, name))
            if group is not None:
                claim_names.extend(group.claim_names)
        candidates = [
            n
            for n in dict.fromkeys(claim_names)
            if not n or (namespace, n) not in self._claims or not self._claims[(namespace, n)].allocated
        ]
        mentioned = [n for n in candidates if n and n in message]
        if mentioned:
            candidates = mentioned
        classes: set[str] = set()
        for name in candidates:
            claim = self._claims.get((namespace, name)) if name else None
            if claim is None or not claim.device_classes:
                classes.add(UNKNOWN_DEVICE_CLASS)
            else:
                classes.update(claim.device_classes)
        if not classes:
            return None
        return labels, tuple(sorted(classes))

    # ------------------------------------------------------------ housekeeping

    def prune(self, now: float) -> None:
        """Drop deleted objects' bookkeeping once ``retention_seconds`` passed."""
        horizon = now - self.retention_seconds
        for uid in [u for u, t in self._pod_deleted_at.items() if t <= horizon]:
            self._forget_pod(uid)
        for key in [k for k, t in self._group_deleted_at.items() if t <= horizon]:
            del self._group_deleted_at[key]
            self._last_labels.pop(key, None)
            self._counters.pop(key, None)
            for fkey in [f for f in self._alloc_failures if (f[0].namespace, f[0].podgroup) == key]:
                del self._alloc_failures[fkey]
        event_horizon = now - self.event_ttl_seconds
        for uid in [u for u, (_, t) in self._event_seen.items() if t <= event_horizon]:
            del self._event_seen[uid]

    # ------------------------------------------------------------ snapshot

    def _group_gpus(self, group: PodGroupInfo, pods: Sequence[PodInfo]) -> int:
        total = sum(p.gpus for p in pods)
        names: dict[str, None] = dict.fromkeys(group.claim_names)
        for pod in pods:
            names.update(dict.fromkeys(pod.claim_names))
        for name in names:
            claim = self._claims.get((group.labels.namespace, name)) if name else None
            if claim is None:
                continue
            total += sum(n for cls, n in claim.requests if cls in self.gpu_device_classes)
        return total

    def snapshot(self, now: float) -> Snapshot:
        pods_by_group: dict[tuple[str, str], list[PodInfo]] = {}
        for uid, pod in self._pods.items():
            if pod.podgroup and uid not in self._pod_deleted_at and not pod.terminated:
                pods_by_group.setdefault((pod.namespace, pod.podgroup), []).append(pod)

        pending: dict[tuple[str, str], int] = {}
        waiting: list[WaitingGroup] = []
        for key, group in self._groups.items():
            pkey = (group.labels.namespace, group.labels.priority_class)
            pending.setdefault(pkey, 0)
            if group.scheduled_at is not None:
                continue
            pending[pkey] += 1
            members = pods_by_group.get(key, [])
            waiting.append(
                WaitingGroup(
                    labels=group.labels,
                    reason=group.waiting_reason,
                    age_seconds=max(now - group.created, 0.0),
                    min_count=group.min_count,
                    pods=len(members),
                    requested_gpus=self._group_gpus(group, members),
                )
            )

        histograms: dict[tuple[str, str], HistogramValue] = {}
        for hkey, hist in self._histograms.items():
            cumulative: list[int] = []
            running = 0
            for c in hist.counts:
                running += c
                cumulative.append(running)
            histograms[hkey] = HistogramValue(tuple(cumulative), hist.count, hist.total)

        allocatable: dict[tuple[str, str, str], int] = {}
        for node in self._nodes.values():
            if node.gpus <= 0:
                continue
            akey = (node.zone, node.instance_type, node.gpu_model)
            allocatable[akey] = allocatable.get(akey, 0) + node.gpus

        return Snapshot(
            buckets=self.buckets,
            time_to_scheduled=dict(sorted(histograms.items())),
            pending_groups=dict(sorted(pending.items())),
            waiting=tuple(sorted(waiting, key=lambda w: w.labels)),
            preemptions={c.labels: c.preemptions for c in sorted(self._counters.values(), key=lambda c: c.labels)},
            preempted_pods={
                c.labels: c.preempted_pods for c in sorted(self._counters.values(), key=lambda c: c.labels)
            },
            allocation_failures=dict(sorted(self._alloc_failures.items())),
            allocatable_gpus=dict(sorted(allocatable.items())),
        )
