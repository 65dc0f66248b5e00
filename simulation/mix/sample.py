"""Draw one seed's gangs from a mix: arrivals, sizes and run times, plus standing load and traces."""

from __future__ import annotations

import math
import random
from pathlib import Path

from catalog.feature_gates import Gate
from config.model import EnvironmentConfig
from config.platform import RunConfig, TeamRun, TopologyPreference
from policy.environment.teams import load_team_runs
from policy.gangs.plan import plan_gang
from policy.gates.rules import effective_gates
from policy.infrastructure.capacity import PodShape
from simulation.engine.jobs import JobRequest, gang_pods
from simulation.mix.load import SIMULATION_TEAM, class_run, environment_for
from simulation.mix.model import (
    Arrival,
    ArrivalProcess,
    Duration,
    DurationDistribution,
    JobClass,
    MixConfig,
)
from simulation.mix.trace import CPU_PER_GPU, MEMORY_GIB_PER_GPU, read_trace


def arrival_times_seconds(arrival: Arrival, *, horizon_seconds: float, rng: random.Random) -> list[float]:
    """Arrival times of one class before ``horizon_seconds``."""
    start = arrival.start_minutes * 60
    if arrival.process is ArrivalProcess.BURST:
        return [start] * (arrival.count or 0) if start < horizon_seconds else []
    if arrival.process is ArrivalProcess.SCHEDULE:
        period = (arrival.every_minutes or 0) * 60
        return [start + i * period for i in range(math.ceil(max(0.0, horizon_seconds - start) / period))]
    rate = (arrival.per_hour or 0) / 3600
    times: list[float] = []
    t = start
    while True:
        t += rng.expovariate(rate)
        if t >= horizon_seconds:
            return times
        times.append(t)


def duration_seconds(duration: Duration, rng: random.Random) -> float:
    kind = duration.distribution
    if kind is DurationDistribution.FIXED:
        minutes = duration.minutes or 0.0
    elif kind is DurationDistribution.EXPONENTIAL:
        minutes = rng.expovariate(1 / (duration.mean_minutes or 1.0))
    elif kind is DurationDistribution.UNIFORM:
        minutes = rng.uniform(duration.min_minutes or 0.0, duration.max_minutes or 0.0)
    else:
        minutes = rng.lognormvariate(math.log(duration.median_minutes or 1.0), duration.sigma or 1.0)
    return max(1.0, minutes * 60)


def _choice(choices: tuple[int, ...], weights: tuple[float, ...], rng: random.Random) -> int:
    if len(choices) == 1:
        return choices[0]
    return rng.choices(choices, weights=weights or None)[0]


def class_jobs(env: EnvironmentConfig, job_class: JobClass, *, seed: int, horizon_seconds: float) -> list[JobRequest]:
    """The gangs of one class; its random stream depends only on the seed and the class name."""
    rng = random.Random(f"{seed}:{job_class.name}")
    team = job_class.team or SIMULATION_TEAM
    sim_env = environment_for(env, job_class.team)
    plans: dict[tuple[int, int], tuple[tuple[PodShape, ...], tuple[PodShape, ...], str, bool, RunConfig]] = {}
    jobs = []
    for index, arrival in enumerate(arrival_times_seconds(job_class.arrival, horizon_seconds=horizon_seconds, rng=rng)):
        replicas = _choice(job_class.replicas.choices, job_class.replicas.weights, rng)
        gpus = _choice(job_class.gpus_per_replica.choices, job_class.gpus_per_replica.weights, rng)
        if (replicas, gpus) not in plans:
            run = class_run(job_class, replicas=replicas, gpus=gpus)
            plan = plan_gang(sim_env, team=team, run_name=job_class.name, run=run)
            plans[(replicas, gpus)] = (*gang_pods(plan.groups, pools=plan.pools), plan.topology_key is not None, run)
        required, optional, template, zone, run = plans[(replicas, gpus)]
        jobs.append(
            JobRequest(
                name=f"{job_class.name}-{index:05d}",
                namespace=sim_env.platform.teams[team].namespace,
                template=template,
                job_class=job_class.name,
                tier=job_class.tier,
                device_class=job_class.device_class,
                required=required,
                optional=optional,
                topology_zone=zone,
                arrival_seconds=arrival,
                duration_seconds=duration_seconds(job_class.duration, rng),
                team=job_class.team,
                run=run,
            )
        )
    return jobs


def team_run_jobs(env: EnvironmentConfig, team_runs: list[TeamRun]) -> list[JobRequest]:
    """The environment's team runs, submitted at the start and running until the end."""
    jobs = []
    for team_run in team_runs:
        plan = plan_gang(env, team=team_run.team, run_name=team_run.name, run=team_run.run)
        required, optional, template = gang_pods(plan.groups, pools=plan.pools)
        jobs.append(
            JobRequest(
                name=plan.workload_name,
                namespace=plan.namespace,
                template=template,
                job_class=f"team-run/{team_run.team}",
                tier=team_run.run.tier,
                device_class=team_run.run.device_class,
                required=required,
                optional=optional,
                topology_zone=plan.topology_key is not None,
                arrival_seconds=0.0,
                duration_seconds=None,
                team=team_run.team,
                run=team_run.run,
            )
        )
    return jobs


def trace_jobs(env: EnvironmentConfig, mix: MixConfig, *, mix_dir: Path, horizon_seconds: float) -> list[JobRequest]:
    jobs = []
    for index, trace in enumerate(mix.traces):
        sim_env = environment_for(env, trace.team)
        namespace = sim_env.platform.teams[trace.team or SIMULATION_TEAM].namespace
        gates = effective_gates(env.feature_gates.control_plane)
        zone = trace.topology is TopologyPreference.ZONE and Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING in gates
        for number, job in enumerate(read_trace(env, mix_dir / trace.file)):
            if job.submit_seconds >= horizon_seconds:
                continue
            pod = PodShape(job.gpus_per_pod, CPU_PER_GPU * job.gpus_per_pod, MEMORY_GIB_PER_GPU * job.gpus_per_pod)
            jobs.append(
                JobRequest(
                    name=f"trace{index}-{number:05d}",
                    namespace=namespace,
                    template="gang",
                    job_class=f"trace/{Path(trace.file).stem}",
                    tier=job.tier,
                    device_class=job.device_class,
                    required=(pod,) * job.pods,
                    optional=(),
                    topology_zone=zone,
                    arrival_seconds=job.submit_seconds,
                    duration_seconds=job.duration_seconds,
                )
            )
    return jobs


def sample_jobs(
    env: EnvironmentConfig,
    mix: MixConfig,
    *,
    seed: int,
    horizon_seconds: float,
    mix_dir: Path,
    team_runs: list[TeamRun] | None = None,
) -> list[JobRequest]:
    """Every gang of the mix for ``seed``, in arrival order (ties: standing load, classes, traces)."""
    jobs = team_run_jobs(env, load_team_runs(env) if team_runs is None else team_runs) if mix.team_runs else []
    for job_class in mix.classes:
        jobs += class_jobs(env, job_class, seed=seed, horizon_seconds=horizon_seconds)
    jobs += trace_jobs(env, mix, mix_dir=mix_dir, horizon_seconds=horizon_seconds)
    order = {id(job): i for i, job in enumerate(jobs)}
    return sorted(jobs, key=lambda j: (j.arrival_seconds, order[id(j)]))
