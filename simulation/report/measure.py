"""A simulation's measurements, keyed by the gang exporter's metric names and labels.

A report row and a dashboard panel mean the same thing: ``gang_podgroup_time_to_scheduled_seconds``
by ``priority_class``, ``gang_podgroups_pending`` by ``priority_class``,
``gang_podgroup_preemptions_total`` by the group labels, ``gang_resourceclaim_allocation_failures_total``
by ``device_class`` and ``gang_node_allocatable_gpus`` by ``zone``, ``instance_type`` and ``gpu_model``.
Waits are censored at the horizon: a gang that never started has waited at least from its
creation to the horizon, and counts so. Percentiles are nearest-rank over every gang of the class
(``simulation.engine.rules.censored_percentile``); ``<stat>_at_least`` says a value is such a
lower bound. Both runs schedule the same gangs, so every row names its ``groups`` (the sample).
Preemptions are counted per episode, as the exporter counts them, in both runs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from catalog.device_classes import DEVICE_CLASSES
from catalog.priority_tiers import TIERS
from observability.rules import (
    ALLOCATION_FAILURES_TOTAL,
    GROUP_BY,
    PENDING_GROUPS,
    PREEMPTIONS_TOTAL,
    TIME_TO_SCHEDULED_BUCKET,
)
from simulation.engine.event_loop import NEVER_STARTED_REASONS, JobOutcome, SimulationResult
from simulation.engine.rules import censored_percentile

TIME_TO_SCHEDULED = TIME_TO_SCHEDULED_BUCKET.removesuffix("_bucket")
GROUP_LABELS = tuple(GROUP_BY.split(", "))
ALLOCATABLE_GPUS = "gang_node_allocatable_gpus"
"""The exporter's GPU capacity gauge (``exporter/gang_exporter/collector.py``; a test keeps them equal)."""
ALLOCATED_GPUS = "allocated_gpus"
"""GPUs held by pods, by zone and GPU model (the simulation's own; the exporter counts capacity)."""
PRIORITY_ORDER = [spec.priority_class for spec in sorted(TIERS.values(), key=lambda s: -s.value)]


def _hours(seconds: float) -> float:
    return round(seconds / 3600, 3)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _group_labels(job: JobOutcome) -> dict[str, str]:
    request = job.request
    values = (request.namespace, request.name, request.name, request.template, request.priority_class)
    return dict(zip(GROUP_LABELS, values, strict=True))


def _classes(jobs: list[JobOutcome]) -> list[str]:
    present = {j.request.priority_class for j in jobs}
    return [pc for pc in PRIORITY_ORDER if pc in present]


def waits(jobs: list[JobOutcome], horizon_seconds: float) -> list[tuple[float, bool]]:
    """Creation to scheduled per gang, ``(seconds, censored)``: a gang that never started counts
    as waiting until the horizon, a lower bound."""
    return [
        (j.scheduled_seconds - j.request.arrival_seconds, False)
        if j.scheduled_seconds is not None
        else (horizon_seconds - j.request.arrival_seconds, True)
        for j in jobs
    ]


def time_to_scheduled(jobs: list[JobOutcome], horizon_seconds: float) -> list[dict[str, Any]]:
    rows = []
    for priority_class in _classes(jobs):
        mine = waits([j for j in jobs if j.request.priority_class == priority_class], horizon_seconds)
        row: dict[str, Any] = {
            "priority_class": priority_class,
            "groups": len(mine),
            "scheduled": sum(1 for _, censored in mine if not censored),
            "never_started": sum(1 for _, censored in mine if censored),
        }
        for stat, quantile in (("p50", 0.5), ("p95", 0.95), ("max", 1.0)):
            found = censored_percentile(mine, quantile)
            row[stat] = None if found is None else _round(found[0])
            row[f"{stat}_at_least"] = found is not None and found[1]
        rows.append(row)
    return rows


def preemptions(jobs: list[JobOutcome]) -> dict[str, Any]:
    by_class = []
    for priority_class in _classes(jobs):
        mine = [j for j in jobs if j.request.priority_class == priority_class]
        counts = [j.preemptions for j in mine]
        by_class.append(
            {
                "priority_class": priority_class,
                "groups": len(counts),
                "groups_preempted": sum(1 for c in counts if c),
                "preemptions": sum(counts),
                "preempted_pods": sum(j.preempted_pods for j in mine),
                "max_per_group": max(counts, default=0),
            }
        )
    groups = [
        {**_group_labels(j), "value": j.preemptions}
        for j in sorted(jobs, key=lambda j: (-j.preemptions, j.request.name))
        if j.preemptions
    ]
    return {"by_priority_class": by_class, "groups": groups}


def podgroups(jobs: list[JobOutcome], horizon_seconds: float) -> list[dict[str, Any]]:
    """Each gang as it went: creation, first scheduled, end, its wait (censored at the horizon),
    preemptions and the pods it held, so a result can be checked gang by gang."""
    rows = []
    for job, (wait, censored) in zip(jobs, waits(jobs, horizon_seconds), strict=True):
        request = job.request
        rows.append(
            {
                **_group_labels(job),
                "job_class": request.job_class,
                "arrival_seconds": _round(request.arrival_seconds),
                "scheduled_seconds": _round(job.scheduled_seconds),
                "last_started_seconds": _round(job.last_started_seconds),
                "starts": job.starts,
                "completed_seconds": _round(job.completed_seconds),
                "wait_seconds": _round(wait),
                "wait_at_least": censored,
                "never_started": None if job.never_started is None else job.never_started.value,
                "preemptions": job.preemptions,
                "preempted_pods": job.preempted_pods,
                "interruptions": job.interruptions,
                "pods": len(request.required) + len(request.optional),
                "required_pods": len(request.required),
                "most_pods_held": job.most_pods_held,
                "pods_held_at_end": job.pods_held_at_end,
                "gpus": request.gpus,
            }
        )
    return sorted(rows, key=lambda r: (r["arrival_seconds"], r["podgroup"]))


def never_started(jobs: list[JobOutcome]) -> list[dict[str, Any]]:
    rows: dict[tuple[str, str, str], list[JobOutcome]] = {}
    for job in jobs:
        if job.never_started is not None:
            key = (job.never_started.value, job.request.priority_class, job.request.job_class)
            rows.setdefault(key, []).append(job)
    return [
        {
            "reason": reason,
            "priority_class": pc,
            "job_class": job_class,
            "groups": len(found),
            "example": found[0].request.name,
            "gpus": found[0].request.gpus,
        }
        for (reason, pc, job_class), found in sorted(rows.items())
    ]


def measurements(result: SimulationResult) -> dict[str, Any]:
    """The JSON of one mode's run."""
    samples = result.samples
    seconds = [s.seconds for s in samples]
    classes = _classes(result.jobs)
    pending = {pc: [s.pending_by_priority_class.get(pc, 0) for s in samples] for pc in classes}
    zones_models = sorted({k for s in samples for k in s.allocated_gpus})
    allocated = [
        {
            "zone": zone,
            "gpu_model": model,
            "values": [round(s.allocated_gpus.get((zone, model), 0.0), 3) for s in samples],
        }
        for zone, model in zones_models
    ]
    capacity_keys = sorted({k for s in samples for k in s.allocatable_gpus})
    capacity = [
        {
            "zone": zone,
            "instance_type": instance,
            "gpu_model": model,
            "max": max(s.allocatable_gpus.get((zone, instance, model), 0.0) for s in samples),
            "values": [s.allocatable_gpus.get((zone, instance, model), 0.0) for s in samples],
        }
        for zone, instance, model in capacity_keys
    ]
    requested = sum(
        r.gpus * (r.duration_seconds or (result.horizon_seconds - r.arrival_seconds))
        for r in (j.request for j in result.jobs)
    )
    return {
        "mode": result.mode.value,
        "groups": len(result.jobs),
        TIME_TO_SCHEDULED: time_to_scheduled(result.jobs, result.horizon_seconds),
        PENDING_GROUPS: {"seconds": seconds, "by_priority_class": pending},
        PREEMPTIONS_TOTAL: preemptions(result.jobs),
        ALLOCATION_FAILURES_TOTAL: [{"device_class": dc, "value": n} for dc, n in result.allocation_failures.items()],
        ALLOCATED_GPUS: {"seconds": seconds, "series": allocated},
        ALLOCATABLE_GPUS: {"seconds": seconds, "series": capacity},
        "never_started": never_started(result.jobs),
        "gpu_hours": {
            "requested": _hours(requested),
            "running": _hours(result.busy_gpu_seconds),
            "held_idle_by_partial_starts": _hours(result.idle_held_gpu_seconds),
            "lost_to_preemption": _hours(result.preempted_gpu_seconds),
        },
        "groups_by_device_class": dict(
            sorted(Counter(DEVICE_CLASSES[j.request.device_class].name for j in result.jobs).items())
        ),
        "groups_by_priority_class": dict(Counter(j.request.priority_class for j in result.jobs)),
        "nodes_added": result.nodes_added,
        "reasons": {r.value: text for r, text in NEVER_STARTED_REASONS.items()},
        "podgroups": podgroups(result.jobs, result.horizon_seconds),
    }


def named_runs(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The report's runs as ``(name, measurements)``, the measured run first, then the one it is
    compared with. The name is the run's key in ``modes`` (``gangs``, ``baseline``), unless
    ``labels`` names it (a load test's ``live cluster`` and ``simulation``): tables, legends and
    JSON use the same one."""
    labels = report.get("labels") or {}
    return [(labels.get(key, key), data) for key, data in report["modes"].items()]


HOURS_FROM_SECONDS = 2 * 3600
"""Waits from two hours on are shown in hours, shorter ones in minutes."""


def duration(seconds: float | None, *, at_least: bool = False) -> str:
    """``12.5 min``, ``47.9 h``; ``≥ 47.9 h`` for a lower bound; ``—`` for no value."""
    if seconds is None:
        return "—"
    text = f"{seconds / 3600:.1f} h" if seconds >= HOURS_FROM_SECONDS else f"{seconds / 60:.1f} min"
    return f"≥ {text}" if at_least else text
