"""Prometheus rendering of a ``state.Snapshot`` (no Kubernetes imports)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from .state import GroupLabels, Snapshot

# Metric names (counters without the ``_total`` suffix the client appends).
TIME_TO_SCHEDULED = "gang_podgroup_time_to_scheduled_seconds"
PENDING_GROUPS = "gang_podgroups_pending"
WAITING_SECONDS = "gang_podgroup_waiting_seconds"
WAITING_MIN_COUNT = "gang_podgroup_waiting_min_count"
WAITING_PODS = "gang_podgroup_waiting_pods"
REQUESTED_GPUS = "gang_podgroup_waiting_requested_gpus"
PREEMPTIONS = "gang_podgroup_preemptions"
PREEMPTED_PODS = "gang_podgroup_preempted_pods"
ALLOCATION_FAILURES = "gang_resourceclaim_allocation_failures"
ALLOCATABLE_GPUS = "gang_node_allocatable_gpus"
INFORMER_SYNCED = "gang_exporter_informer_synced"
WATCH_RESTARTS = "gang_exporter_watch_restarts"

GROUP_LABELS = ("namespace", "podgroup", "workload", "template", "priority_class")
WAITING_LABELS = (*GROUP_LABELS, "reason")


@dataclass(frozen=True)
class InformerStatus:
    resource: str
    synced: bool
    restarts: int


def _group_values(labels: GroupLabels) -> list[str]:
    return [labels.namespace, labels.podgroup, labels.workload, labels.template, labels.priority_class]


def render(snapshot: Snapshot, informers: Sequence[InformerStatus] = ()) -> list[Metric]:
    """All metric families for one scrape, in a stable order."""
    ttl = HistogramMetricFamily(
        TIME_TO_SCHEDULED,
        "Seconds from PodGroup creation to PodGroupInitiallyScheduled=True.",
        labels=["namespace", "priority_class"],
    )
    bounds = [repr(float(b)) for b in snapshot.buckets] + ["+Inf"]
    for (namespace, priority_class), hist in snapshot.time_to_scheduled.items():
        ttl.add_metric(
            [namespace, priority_class],
            buckets=list(zip(bounds, [float(c) for c in hist.cumulative], strict=True)),
            sum_value=hist.sum,
        )

    pending = GaugeMetricFamily(
        PENDING_GROUPS,
        "PodGroups not yet initially scheduled.",
        labels=["namespace", "priority_class"],
    )
    for (namespace, priority_class), value in snapshot.pending_groups.items():
        pending.add_metric([namespace, priority_class], float(value))

    waiting = GaugeMetricFamily(
        WAITING_SECONDS, "Age of each PodGroup not yet initially scheduled.", labels=list(WAITING_LABELS)
    )
    min_count = GaugeMetricFamily(
        WAITING_MIN_COUNT, "Gang minCount of each waiting PodGroup (1 for basic policy).", labels=list(WAITING_LABELS)
    )
    pods = GaugeMetricFamily(
        WAITING_PODS, "Non-terminated Pods referencing each waiting PodGroup.", labels=list(WAITING_LABELS)
    )
    gpus = GaugeMetricFamily(
        REQUESTED_GPUS,
        "GPUs requested by each waiting PodGroup (extended resource plus DRA claims).",
        labels=list(WAITING_LABELS),
    )
    for group in snapshot.waiting:
        values = [*_group_values(group.labels), group.reason]
        waiting.add_metric(values, group.age_seconds)
        min_count.add_metric(values, float(group.min_count))
        pods.add_metric(values, float(group.pods))
        gpus.add_metric(values, float(group.requested_gpus))

    preemptions = CounterMetricFamily(
        PREEMPTIONS, "Preemptions of a PodGroup (victims within one episode count once).", labels=list(GROUP_LABELS)
    )
    for labels, value in snapshot.preemptions.items():
        preemptions.add_metric(_group_values(labels), float(value))
    victims = CounterMetricFamily(
        PREEMPTED_PODS, "Pods of a PodGroup preempted by the scheduler.", labels=list(GROUP_LABELS)
    )
    for labels, value in snapshot.preempted_pods.items():
        victims.add_metric(_group_values(labels), float(value))

    failures = CounterMetricFamily(
        ALLOCATION_FAILURES,
        "Failed scheduling attempts attributed to unallocated ResourceClaims, by DeviceClass.",
        labels=[*GROUP_LABELS, "device_class"],
    )
    for (labels, device_class), value in snapshot.allocation_failures.items():
        failures.add_metric([*_group_values(labels), device_class], float(value))

    allocatable = GaugeMetricFamily(
        ALLOCATABLE_GPUS,
        "GPUs in Node status.allocatable, by zone and GPU model.",
        labels=["zone", "instance_type", "gpu_model"],
    )
    for (zone, instance_type, model), value in snapshot.allocatable_gpus.items():
        allocatable.add_metric([zone, instance_type, model], float(value))

    synced = GaugeMetricFamily(
        INFORMER_SYNCED, "1 once the initial list of a watched resource completed.", labels=["resource"]
    )
    restarts = CounterMetricFamily(WATCH_RESTARTS, "Watch streams restarted with a full relist.", labels=["resource"])
    for informer in informers:
        synced.add_metric([informer.resource], 1.0 if informer.synced else 0.0)
        restarts.add_metric([informer.resource], float(informer.restarts))

    return [ttl, pending, waiting, min_count, pods, gpus, preemptions, victims, failures, allocatable, synced, restarts]


class GangCollector(Collector):
    """Custom collector: renders a fresh snapshot on every scrape."""

    def __init__(
        self,
        snapshot: Callable[[], Snapshot],
        informers: Callable[[], Sequence[InformerStatus]] = tuple,
    ) -> None:
        self._snapshot = snapshot
        self._informers = informers

    def collect(self) -> Iterator[Metric]:
        yield from render(self._snapshot(), self._informers())
