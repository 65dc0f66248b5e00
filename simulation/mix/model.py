"""The job-mix model: what arrives, how big, how long, at which tier (``mixes/<name>.yaml``).

Shape and types are checked here (unknown keys are errors); rules that need the environment
or span fields live in ``simulation.mix.validate``. A count is a number or ``{choices, weights}``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from catalog.device_classes import DeviceShape
from catalog.priority_tiers import Tier
from config.model_base import DnsLabel, Model
from config.platform import GangTemplate, TopologyPreference


def _number_as_choice(value: Any) -> Any:
    return {"choices": [value]} if isinstance(value, int) and not isinstance(value, bool) else value


class ReplicasChoice(Model):
    """Workers per gang: one of ``choices``, drawn with ``weights`` (equal when left out)."""

    choices: Annotated[tuple[Annotated[int, Field(ge=1, le=1024)], ...], Field(min_length=1)]
    """Possible values."""
    weights: tuple[Annotated[float, Field(gt=0)], ...] = ()
    """Relative weight of each choice; empty: equal."""


class GpusChoice(Model):
    """GPUs per worker: one of ``choices``, drawn with ``weights`` (equal when left out)."""

    choices: Annotated[tuple[Annotated[int, Field(ge=0, le=8)], ...], Field(min_length=1)]
    """Possible values."""
    weights: tuple[Annotated[float, Field(gt=0)], ...] = ()
    """Relative weight of each choice; empty: equal."""


Replicas = Annotated[ReplicasChoice, BeforeValidator(_number_as_choice)]
Gpus = Annotated[GpusChoice, BeforeValidator(_number_as_choice)]


class DurationDistribution(StrEnum):
    FIXED = "fixed"
    EXPONENTIAL = "exponential"
    UNIFORM = "uniform"
    LOGNORMAL = "lognormal"


PositiveMinutes = Annotated[float, Field(gt=0)]


class Duration(Model):
    """How long a gang runs once started: ``fixed`` (``minutes``), ``exponential`` (``mean_minutes``),
    ``uniform`` (``min_minutes``..``max_minutes``) or ``lognormal`` (``median_minutes``, ``sigma``)."""

    distribution: DurationDistribution = DurationDistribution.FIXED
    """Distribution of run times."""
    minutes: PositiveMinutes | None = None
    """Run time of ``fixed``."""
    mean_minutes: PositiveMinutes | None = None
    """Mean of ``exponential``."""
    min_minutes: PositiveMinutes | None = None
    """Lower bound of ``uniform``."""
    max_minutes: PositiveMinutes | None = None
    """Upper bound of ``uniform``."""
    median_minutes: PositiveMinutes | None = None
    """Median of ``lognormal``."""
    sigma: Annotated[float, Field(gt=0, le=4)] | None = None
    """Shape of ``lognormal`` (standard deviation of the log)."""


class ArrivalProcess(StrEnum):
    POISSON = "poisson"
    SCHEDULE = "schedule"
    BURST = "burst"


class Arrival(Model):
    """When gangs of a class arrive: ``poisson`` (``per_hour``), ``schedule`` (``every_minutes``) or
    ``burst`` (``count`` gangs at once); each from ``start_minutes`` on."""

    process: ArrivalProcess
    """Arrival process."""
    per_hour: Annotated[float, Field(gt=0)] | None = None
    """Mean arrivals per hour of ``poisson``."""
    every_minutes: PositiveMinutes | None = None
    """Period of ``schedule``."""
    count: Annotated[int, Field(ge=1, le=100_000)] | None = None
    """Gangs of a ``burst``."""
    start_minutes: Annotated[float, Field(ge=0)] = 0.0
    """First arrival (``schedule``, ``burst``) or start of the process (``poisson``)."""


class JobClass(Model):
    """Gangs of one kind: the parameters of a team run, with counts and times drawn per gang."""

    name: DnsLabel
    """Class name; names its PodGroups ``<name>-<n>``."""
    team: DnsLabel | None = None
    """Team of the environment whose namespace and tier grants apply; empty: namespace ``simulation``."""
    template: GangTemplate = GangTemplate.PYTORCH
    """Gang shape, as in a team run."""
    replicas: Replicas
    """Pods of the gang, as in a team run: for ``pytorch`` and ``service`` rank 0 / the leader is one of them;
    for ``mpi`` and ``spark`` workers or executors, with the CPU-only launcher or driver on top."""
    min_replicas: Annotated[int, Field(ge=1)] | None = None
    """Elastic minimum; requires ``elastic: true``."""
    elastic: bool = False
    """Acknowledges that the gang may start with ``min_replicas``."""
    gpus_per_replica: Gpus = GpusChoice(choices=(8,))
    """GPUs per worker."""
    cpu_per_replica: Annotated[int, Field(ge=1, le=192)] = 16
    """vCPUs per worker."""
    memory_gib_per_replica: Annotated[int, Field(ge=1, le=2048)] = 64
    """Memory per worker."""
    device_class: DeviceShape = DeviceShape.H100_80GB
    """Platform DeviceClass the GPUs come from."""
    tier: Tier = Tier.STANDARD
    """Priority tier."""
    topology: TopologyPreference = TopologyPreference.ZONE
    """Keep the gang in one zone (when the environment has topology-aware scheduling)."""
    hierarchical: bool = False
    """CompositePodGroups, as in a team run."""
    duration: Duration
    """Run time once started."""
    arrival: Arrival
    """Arrival process."""


class TraceConfig(Model):
    """A job trace to replay (CSV, see ``simulation/mix/trace.py``)."""

    file: str
    """CSV file, relative to the mix file."""
    team: DnsLabel | None = None
    """Team the trace's gangs run as; empty: namespace ``simulation``."""
    topology: TopologyPreference = TopologyPreference.ZONE
    """Keep each traced gang in one zone."""


class CapacityBlockWindow(Model):
    """When a ``capacity_block`` pool's reservation is active; its nodes exist only inside the window."""

    pool: DnsLabel
    """A GPU pool of the environment with ``capacity.type: capacity_block``."""
    start_hours: Annotated[float, Field(ge=0)]
    """Block start, hours after the simulation starts."""
    end_hours: Annotated[float, Field(gt=0)]
    """Block end; gangs still running are evicted."""


class MixConfig(Model):
    """A job mix: classes of gangs arriving over time, traces to replay, and the standing load."""

    description: str = ""
    """What the mix stands for."""
    hours: Annotated[float, Field(gt=0, le=24 * 366)] = 168.0
    """Simulated time (``make simulate HOURS=`` overrides it)."""
    team_runs: bool = True
    """The environment's team runs (``teams/<team>/*.yaml``) as standing load: submitted at the start,
    running until the end."""
    classes: tuple[JobClass, ...] = ()
    """Job classes."""
    traces: tuple[TraceConfig, ...] = ()
    """Job traces to replay."""
    capacity_block_windows: tuple[CapacityBlockWindow, ...] = ()
    """Active windows of Capacity Block pools; a block pool without one is active throughout."""
