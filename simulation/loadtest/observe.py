"""What the cluster did, from the API's own documents: per gang, creation, first scheduling and
preemptions, turned into the same outcomes and samples the simulation reports.

Uses the smoke test's reading of PodGroup conditions (``policy.live.smoke.observe``): scheduled is
``PodGroupInitiallyScheduled=True``; a preemption is a ``Preempted`` event on one of the gang's
pods (counted once per episode: events of one gang within ``EPISODE_SECONDS`` are one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from policy.live.smoke import Observation, merge, observe
from simulation.engine.event_loop import JobOutcome, Mode, NeverStarted, Sample, SimulationResult
from simulation.loadtest.plan import RUN_LABEL, LoadPlan

Json = Mapping[str, Any]
EPISODE_SECONDS = 30.0


@dataclass
class GangWatch:
    """Accumulated over polls (a preempted gang's pods are gone by the next one)."""

    observation: Observation | None = None
    pods: set[str] = field(default_factory=set)
    preemption_times: list[datetime] = field(default_factory=list)
    seen_events: set[str] = field(default_factory=set)

    @property
    def preemptions(self) -> int:
        episodes, last = 0, None
        for when in sorted(self.preemption_times):
            if last is None or (when - last).total_seconds() > EPISODE_SECONDS:
                episodes += 1
            last = when
        return episodes


def _labels(obj: Json) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _name(obj: Json) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def poll(
    watches: dict[str, GangWatch], podgroups: Sequence[Json], pods: Sequence[Json], events: Sequence[Json]
) -> None:
    """Fold one poll of the test's PodGroups, Pods and Events into ``watches`` (by run name).

    A run's root PodGroup decides its scheduling: the gang group (``workers``/``gang``/
    ``executors``) or, for composite trees, the group whose condition is set last."""
    pods_by_run: dict[str, list[Json]] = {}
    for pod in pods:
        run = _labels(pod).get(RUN_LABEL)
        if run:
            pods_by_run.setdefault(run, []).append(pod)
            watches.setdefault(run, GangWatch()).pods.add(_name(pod))
    groups_by_run: dict[str, list[Json]] = {}
    for group in podgroups:
        run = _labels(group).get(RUN_LABEL)
        if run:
            groups_by_run.setdefault(run, []).append(group)
    for run, groups in groups_by_run.items():
        watch = watches.setdefault(run, GangWatch())
        current = [observe(g, pods_by_run.get(run, []), ()) for g in groups]
        # The gang is scheduled when every one of its groups is; created with its first group.
        created = min((o.created for o in current if o.created), default=None)
        times = [o.scheduled_at for o in current]
        scheduled = max(times) if times and all(t is not None for t in times) else None  # type: ignore[type-var]
        combined = Observation(created=created, scheduled_at=scheduled, pods_bound=sum(o.pods_bound for o in current))
        watch.observation = merge(watch.observation, combined)
    for event in events:
        if event.get("reason") != "Preempted":
            continue
        uid = str((event.get("metadata") or {}).get("uid") or _name(event))
        pod_name = str((event.get("involvedObject") or {}).get("name", ""))
        when = _time(
            event.get("lastTimestamp")
            or event.get("eventTime")
            or (event.get("metadata") or {}).get("creationTimestamp")
        )
        for watch in watches.values():
            if pod_name in watch.pods and uid not in watch.seen_events and when is not None:
                watch.seen_events.add(uid)
                watch.preemption_times.append(when)


def pending_by_priority_class(plan: LoadPlan, watches: Mapping[str, GangWatch], *, submitted: int) -> dict[str, int]:
    """Submitted gangs not yet scheduled, by priority class (``gang_podgroups_pending``)."""
    pending: dict[str, int] = {}
    for submission in plan.submissions[:submitted]:
        job = submission.job
        watch = watches.get(job.name)
        scheduled = watch is not None and watch.observation is not None and watch.observation.scheduled_at is not None
        pending[job.priority_class] = pending.get(job.priority_class, 0) + (0 if scheduled else 1)
    return dict(sorted(pending.items()))


def seconds_to_scheduled(watch: GangWatch | None) -> float | None:
    """Creation to ``PodGroupInitiallyScheduled=True``, from the API server's timestamps."""
    if watch is None or watch.observation is None:
        return None
    o = watch.observation
    if o.created is None or o.scheduled_at is None:
        return None
    return (o.scheduled_at - o.created).total_seconds()


def never_started(watch: GangWatch | None) -> NeverStarted | None:
    if seconds_to_scheduled(watch) is not None:
        return None
    if watch is not None and watch.observation is not None and watch.observation.pods_bound:
        return NeverStarted.PARTIAL
    return NeverStarted.CAPACITY_BUSY


def live_result(
    plan: LoadPlan,
    watches: Mapping[str, GangWatch],
    samples: Sequence[Sample],
    *,
    submitted: int,
    allocation_failures: Mapping[str, int],
) -> SimulationResult:
    """The cluster's run in the simulation's terms, so one report shows both. GPU-hours are not
    measured live (left at 0)."""
    jobs = []
    for submission in plan.submissions[:submitted]:
        job = submission.job
        watch = watches.get(job.name)
        wait = seconds_to_scheduled(watch)
        jobs.append(
            JobOutcome(
                job,
                None if wait is None else job.arrival_seconds + wait,
                None,
                0 if watch is None else watch.preemptions,
                0,
                never_started(watch),
            )
        )
    return SimulationResult(
        Mode.GANG, plan.window_seconds, jobs, list(samples), dict(allocation_failures), 0.0, 0.0, 0.0, 0
    )


def claim_failures(events: Sequence[Json], device_class_of_pod: Mapping[str, str]) -> dict[str, int]:
    """``FailedScheduling`` events about claims, by the DeviceClass the pod requests (as the exporter counts)."""
    found: dict[str, int] = {}
    for event in events:
        if event.get("reason") != "FailedScheduling" or "claim" not in str(event.get("message", "")).lower():
            continue
        device_class = device_class_of_pod.get(str((event.get("involvedObject") or {}).get("name", "")))
        if device_class:
            found[device_class] = found.get(device_class, 0) + int(event.get("count") or 1)
    return dict(sorted(found.items()))
