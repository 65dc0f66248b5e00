"""Team run files (`teams/<team>/<run>.yaml`): read, parse and check against the environment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from config.errors import ConfigError
from config.load import REPO_ROOT, _display, _from_pydantic, _read_yaml
from config.model import EnvironmentConfig
from config.platform import GangTemplate, RunConfig
from config.validate_launch import check_launch

TEAMS_DIR = REPO_ROOT / "teams"


@dataclass(frozen=True)
class TeamRun:
    team: str
    name: str
    source: str
    run: RunConfig


def load_team_runs(env: EnvironmentConfig, *, teams_dir: Path = TEAMS_DIR) -> list[TeamRun]:
    """Every run of the environment's teams, sorted by team and run name."""
    runs = []
    for team in sorted(env.platform.teams):
        for file in sorted((teams_dir / team).glob("*.yaml")):
            source = _display(file)
            try:
                runs.append(TeamRun(team, file.stem, source, parse_run(env, team, file.stem, _read_yaml(file))))
            except ConfigError as error:
                raise error.with_source(source) from None
    return runs


def parse_run(env: EnvironmentConfig, team: str, name: str, data: object) -> RunConfig:
    if not isinstance(data, dict):
        raise ConfigError("<top>", type(data).__name__, "a run file is a mapping", "start with 'template: pytorch'")
    _check_name(name)
    try:
        run = RunConfig.model_validate(data)
    except ValidationError as error:
        raise _from_pydantic(error, RunConfig) from None
    check_run(env, team, run)
    check_launch(run, name=name, composite=_composite(env, run))
    return run


def _composite(env: EnvironmentConfig, run: RunConfig) -> bool:
    """Whether the run renders as a CompositePodGroup tree (asked for, and the gate is on)."""
    return run.hierarchical and "CompositePodGroup" in env.feature_gates.control_plane


def _check_name(name: str) -> None:
    import re

    if not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?", name):
        raise ConfigError(
            "<file name>",
            name,
            "run names become object names and must be short DNS labels",
            "rename the file to lower-case letters, digits and '-', at most 40 characters",
        )


def check_run(env: EnvironmentConfig, team: str, run: RunConfig) -> None:
    """Rules that need the environment: tiers granted, classes published, elastic gangs acknowledged."""
    granted = env.platform.teams[team].tiers
    if run.tier not in granted:
        raise ConfigError(
            "tier",
            run.tier.value,
            f"tier is not granted to team {team}",
            f"use one of {', '.join(t.value for t in granted)} or grant it under platform.teams.{team}.tiers",
        )
    if run.device_class not in env.platform.device_classes:
        raise ConfigError(
            "device_class",
            run.device_class.value,
            f"DeviceClass is not published in environment {env.name}",
            f"use one of {', '.join(c.value for c in env.platform.device_classes)}",
        )
    if run.shared_devices is not None:
        if "DRAWorkloadResourceClaims" not in env.feature_gates.control_plane:
            raise ConfigError(
                "shared_devices",
                run.shared_devices.device_class.value,
                f"shared claims need the DRAWorkloadResourceClaims gate, which {env.name} lacks",
                "drop shared_devices, or add the gate to feature_gates.control_plane",
            )
        if run.shared_devices.device_class not in env.platform.device_classes:
            raise ConfigError(
                "shared_devices.device_class",
                run.shared_devices.device_class.value,
                f"DeviceClass is not published in environment {env.name}",
                f"use one of {', '.join(c.value for c in env.platform.device_classes)}",
            )
    if run.job and run.hierarchical:
        raise ConfigError(
            "job",
            True,
            "a Job gang is one flat PodGroup; it cannot also be hierarchical",
            "set either job: true or hierarchical: true",
        )
    if run.min_replicas is not None:
        if run.min_replicas > run.replicas:
            raise ConfigError(
                "min_replicas",
                run.min_replicas,
                f"min_replicas is larger than replicas {run.replicas}",
                "set min_replicas <= replicas",
            )
        if run.min_replicas < run.replicas and not run.elastic:
            raise ConfigError(
                "min_replicas",
                run.min_replicas,
                f"a gang that may start with fewer than replicas {run.replicas} must say so",
                "set elastic: true, or drop min_replicas",
            )
        # PyTorch and service count rank 0 / the leader in replicas; MPI and Spark add it on top.
        flat_min = run.min_replicas + (run.template in (GangTemplate.MPI, GangTemplate.SPARK))
        if run.min_replicas < run.replicas and not _composite(env, run):
            raise ConfigError(
                "min_replicas",
                run.min_replicas,
                f"in one flat gang, {flat_min} workers could start without the {run.template.value} "
                "coordinator (minCount counts pods, not roles)",
                "set hierarchical: true (needs the CompositePodGroup gate) so the coordinator has its own group, "
                "or drop min_replicas",
            )
