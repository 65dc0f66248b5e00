"""What a load test submits and when: the mix's gangs with times compressed, as real run objects.

Time is scaled, shapes are not: a mix second lasts ``scale`` real seconds (arrivals and run
times alike), so the cluster sees the exact GPU shapes, zones, priorities and overlap of the
mix. Each gang is its team run rendered by the project's templates, with a container that holds
its devices for the scaled run time (``sleep``). Gangs without a team run (traces, classes
without a team) have no namespace with tier grants on the cluster and are skipped, with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from config.model import EnvironmentConfig
from simulation.engine.jobs import JobRequest

LOADTEST_IMAGE = "public.ecr.aws/docker/library/busybox:1.37"
"""Holds its devices with ``sleep`` for the gang's scaled run time, then exits."""
LOADTEST_LABEL = "gpu-platform.io/loadtest"
"""On every object a load test creates, with the test's id: what clean-up deletes."""
RUN_LABEL = "gpu-platform.io/run"


@dataclass(frozen=True)
class Submission:
    job: JobRequest
    """The gang in the test's own (scaled) time."""
    submit_seconds: float
    hold_seconds: int


@dataclass(frozen=True)
class LoadPlan:
    submissions: tuple[Submission, ...]
    skipped: tuple[tuple[str, str], ...]
    """(gang, reason) of gangs the test does not submit."""
    window_seconds: float


def scale_job(job: JobRequest, scale: float) -> JobRequest:
    duration = None if job.duration_seconds is None else job.duration_seconds * scale
    return replace(job, arrival_seconds=job.arrival_seconds * scale, duration_seconds=duration)


def plan_load(jobs: list[JobRequest], *, scale: float, minutes: float) -> LoadPlan:
    """The gangs arriving within ``minutes`` of scaled time; standing load holds until the end."""
    window = minutes * 60
    submissions, skipped = [], []
    for job in jobs:
        scaled = scale_job(job, scale)
        if scaled.arrival_seconds >= window:
            continue
        if job.run is None or job.team is None:
            skipped.append((job.name, "no team run to render (a trace, or a class without a team)"))
            continue
        hold = window - scaled.arrival_seconds if scaled.duration_seconds is None else scaled.duration_seconds
        submissions.append(Submission(scaled, scaled.arrival_seconds, max(1, math.ceil(hold))))
    return LoadPlan(tuple(submissions), tuple(skipped), window)


def due(plan: LoadPlan, *, submitted: int, elapsed_seconds: float) -> list[Submission]:
    """Submissions whose time has come, after the first ``submitted`` (the plan is in time order)."""
    found = []
    for submission in plan.submissions[submitted:]:
        if submission.submit_seconds > elapsed_seconds:
            break
        found.append(submission)
    return found


def render_submission(env: EnvironmentConfig, submission: Submission, *, test_id: str) -> list[dict[str, Any]]:
    """The gang's objects as the templates render them, holding devices with ``sleep``, labelled
    for clean-up, in creation order."""
    from cdk8s import App

    from charts.render import render_team_run
    from config.platform import TeamRun

    job = submission.job
    assert job.run is not None and job.team is not None
    objects, _ = render_team_run(App(), env, TeamRun(job.team, job.name, "loadtest", job.run))
    for obj in objects:
        obj.setdefault("metadata", {}).setdefault("labels", {})[LOADTEST_LABEL] = test_id
        for spec in _pod_specs(obj):
            _hold_devices(spec, seconds=submission.hold_seconds)
    return objects


def _pod_specs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The Pod specs an object carries: a Pod's own, or the template of a Job or StatefulSet."""
    if obj["kind"] == "Pod":
        return [obj["spec"]]
    if obj["kind"] in ("Job", "StatefulSet"):
        return [obj["spec"]["template"]["spec"]]
    return []


def _hold_devices(spec: dict[str, Any], *, seconds: int) -> None:
    """Keep the Pod's scheduling shape (claims, requests, tolerations, group) and replace what it runs:
    the launcher wiring (torchrun, mpirun, sshd and their readiness and wait steps) needs the team's
    image, so each container sleeps for the sampled run time instead."""
    spec.pop("initContainers", None)
    for container in spec["containers"]:
        container["image"] = LOADTEST_IMAGE
        container["command"] = ["sleep", str(seconds)]
        container.pop("args", None)
        container.pop("readinessProbe", None)
