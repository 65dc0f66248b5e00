"""Read ``mixes/<name>.yaml`` into a ``MixConfig`` and check it against an environment.

YAML is read through ``config.load`` (the one reader of input files) and errors are the
project's one-line ``ConfigError``, naming the mix file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from catalog.priority_tiers import Tier
from config.errors import ConfigError
from config.load import REPO_ROOT, display_path, from_pydantic, read_yaml, refuse_control_characters
from config.model import CapacityType, EnvironmentConfig
from config.platform import RunConfig, TeamConfig
from policy.environment.teams import check_run
from simulation.mix.model import (
    Arrival,
    ArrivalProcess,
    Duration,
    DurationDistribution,
    JobClass,
    MixConfig,
)

MIXES_DIR = REPO_ROOT / "mixes"
SIMULATION_TEAM = "simulation"
"""Namespace (and team) of classes and traces that name no team: every tier allowed."""
SIMULATION_IMAGE = "simulation"
"""Image of simulated runs (never pulled)."""

DURATION_FIELDS: dict[Any, tuple[str, ...]] = {
    DurationDistribution.FIXED: ("minutes",),
    DurationDistribution.EXPONENTIAL: ("mean_minutes",),
    DurationDistribution.UNIFORM: ("min_minutes", "max_minutes"),
    DurationDistribution.LOGNORMAL: ("median_minutes", "sigma"),
}
ARRIVAL_FIELDS: dict[Any, tuple[str, ...]] = {
    ArrivalProcess.POISSON: ("per_hour",),
    ArrivalProcess.SCHEDULE: ("every_minutes",),
    ArrivalProcess.BURST: ("count",),
}


def mix_names() -> list[str]:
    return sorted(p.stem for p in MIXES_DIR.glob("*.yaml"))


def mix_path(name: str) -> Path:
    path = MIXES_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ConfigError("mix", name, "no such mix", f"use one of {', '.join(mix_names())} or pass a path to a file")
    return path


def load_mix(env: EnvironmentConfig, *, name: str | None = None, path: Path | str | None = None) -> MixConfig:
    """Load by mix name (``mixes/<name>.yaml``) or path, and check it against ``env``."""
    file = Path(path) if path is not None else mix_path(name or env.name)
    source = display_path(file)
    try:
        return parse_mix(env, read_yaml(file))
    except ConfigError as error:
        raise error.with_source(source) from None


def parse_mix(env: EnvironmentConfig, data: Any) -> MixConfig:
    if not isinstance(data, dict):
        raise ConfigError("<top>", type(data).__name__, "a mix file is a mapping", "start with 'classes:'")
    refuse_control_characters(data)
    try:
        mix = MixConfig.model_validate(data)
    except ValidationError as error:
        raise from_pydantic(error, MixConfig) from None
    validate_mix(env, mix)
    return mix


def validate_mix(env: EnvironmentConfig, mix: MixConfig) -> None:
    names = [c.name for c in mix.classes]
    for index, job_class in enumerate(mix.classes):
        where = f"classes[{index}]"
        if names.index(job_class.name) != index:
            raise ConfigError(f"{where}.name", job_class.name, "class names must be unique", "rename one of them")
        _check_choices(f"{where}.replicas", job_class.replicas.choices, job_class.replicas.weights)
        _check_choices(
            f"{where}.gpus_per_replica", job_class.gpus_per_replica.choices, job_class.gpus_per_replica.weights
        )
        _check_fields(f"{where}.duration", job_class.duration, job_class.duration.distribution, DURATION_FIELDS)
        _check_fields(f"{where}.arrival", job_class.arrival, job_class.arrival.process, ARRIVAL_FIELDS)
        _check_duration(f"{where}.duration", job_class.duration)
        _check_team(env, f"{where}.team", job_class.team)
        sim_env = environment_for(env, job_class.team)
        for run in class_runs(job_class):
            try:
                check_run(sim_env, job_class.team or SIMULATION_TEAM, run)
            except ConfigError as error:
                raise ConfigError(f"{where}.{error.field}", error.value, error.problem, error.fix) from None
    for index, trace in enumerate(mix.traces):
        _check_team(env, f"traces[{index}].team", trace.team)
    pools = {p.name: p for p in env.gpu_pools}
    for index, window in enumerate(mix.capacity_block_windows):
        where = f"capacity_block_windows[{index}]"
        pool = pools.get(window.pool)
        if pool is None:
            raise ConfigError(f"{where}.pool", window.pool, f"no such GPU pool in {env.name}", _one_of(sorted(pools)))
        if pool.capacity.type is not CapacityType.CAPACITY_BLOCK:
            blocks = sorted(p.name for p in env.gpu_pools if p.capacity.type is CapacityType.CAPACITY_BLOCK)
            raise ConfigError(
                f"{where}.pool",
                window.pool,
                "pool is not a Capacity Block (capacity.type: capacity_block)",
                _one_of(blocks) if blocks else "drop the window",
            )
        if window.end_hours <= window.start_hours:
            raise ConfigError(
                f"{where}.end_hours",
                window.end_hours,
                f"the block ends before it starts (start_hours {window.start_hours:g})",
                "set end_hours > start_hours",
            )


def _one_of(names: list[str]) -> str:
    return f"use one of {', '.join(names)}" if names else "add the pool to the environment first"


def _check_choices(field: str, choices: tuple[int, ...], weights: tuple[float, ...]) -> None:
    if weights and len(weights) != len(choices):
        raise ConfigError(
            f"{field}.weights",
            list(weights),
            f"{len(weights)} weights for {len(choices)} choices",
            "give one weight per choice, or none",
        )


def _check_fields(field: str, section: Duration | Arrival, kind: Any, table: dict[Any, tuple[str, ...]]) -> None:
    needed = table[kind]
    for name in needed:
        if getattr(section, name) is None:
            raise ConfigError(f"{field}.{name}", None, f"required for {kind.value}", f"add '{name}'")
    for other in sorted({n for names in table.values() for n in names} - set(needed)):
        if getattr(section, other) is not None:
            raise ConfigError(
                f"{field}.{other}",
                getattr(section, other),
                f"not used by {kind.value}",
                f"remove it ({kind.value} takes {', '.join(needed)})",
            )


def _check_duration(field: str, duration: Duration) -> None:
    low, high = duration.min_minutes, duration.max_minutes
    if low is not None and high is not None and high <= low:
        raise ConfigError(
            f"{field}.max_minutes", high, f"not above min_minutes {low:g}", "set max_minutes > min_minutes"
        )


def _check_team(env: EnvironmentConfig, field: str, team: str | None) -> None:
    if team is not None and team not in env.platform.teams:
        teams = ", ".join(sorted(env.platform.teams)) or "none"
        raise ConfigError(
            field, team, f"no such team in {env.name} (teams: {teams})", "name a team of platform.teams, or drop team"
        )


def environment_for(env: EnvironmentConfig, team: str | None) -> EnvironmentConfig:
    """``env``, plus the ``simulation`` team (every tier) when a class or trace names no team."""
    if team is not None or SIMULATION_TEAM in env.platform.teams:
        return env
    teams = {**env.platform.teams, SIMULATION_TEAM: TeamConfig(namespace=SIMULATION_TEAM, tiers=tuple(Tier))}
    return env.model_copy(update={"platform": env.platform.model_copy(update={"teams": teams})})


def class_runs(job_class: JobClass) -> list[RunConfig]:
    """The team-run parameters of every gang size the class can draw."""
    return [
        class_run(job_class, replicas=replicas, gpus=gpus)
        for replicas in sorted(set(job_class.replicas.choices))
        for gpus in sorted(set(job_class.gpus_per_replica.choices))
    ]


def class_run(job_class: JobClass, *, replicas: int, gpus: int) -> RunConfig:
    return RunConfig(
        template=job_class.template,
        replicas=replicas,
        min_replicas=job_class.min_replicas,
        elastic=job_class.elastic,
        gpus_per_replica=gpus,
        device_class=job_class.device_class,
        cpu_per_replica=job_class.cpu_per_replica,
        memory_gib_per_replica=job_class.memory_gib_per_replica,
        tier=job_class.tier,
        image=SIMULATION_IMAGE,
        topology=job_class.topology,
        hierarchical=job_class.hierarchical,
    )
