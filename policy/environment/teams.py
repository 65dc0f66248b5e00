"""Team run files (`teams/<team>/<run>.yaml`): read, parse and check against the environment."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from catalog.feature_gates import Gate
from config.errors import ConfigError, describe_kind
from config.files import read_yaml_file
from config.load import ENVIRONMENTS_DIR, REPO_ROOT, display_path, validate_strictly
from config.model import EnvironmentConfig
from config.platform import RunConfig, TeamRun, TopologyPreference
from config.validate_launch import check_launch, check_run_ignored_fields
from policy.gangs.kinds import KINDS, kind_of
from policy.gangs.plan import plan_gang
from policy.gates.rules import effective_gates, gang_scheduling_native

TEAMS_DIR = REPO_ROOT / "teams"


REFUSED_WHEN_EXPLICIT = frozenset({"topology", "job"})
"""Unhonoured settings that are errors when written in the run file. ``hierarchical`` falls back to the
flat form with a warning: the shipped ``dev`` renders the hierarchical ``pretrain-70b`` run flat."""


@dataclass(frozen=True)
class UnhonouredSetting:
    """A run setting the environment's gates (or the template) cannot give; rendered without it."""

    field: str
    value: object
    explicit: bool
    """Written in the run file (an error) rather than a default (a warning and a SUMMARY.md note)."""
    reason: str
    remedy: str

    def note(self) -> str:
        origin = "written in the run" if self.explicit else "default"
        return f"{self.field}: {json.dumps(self.value)} ({origin}) is not honoured: {self.reason}"


def load_team_runs(env: EnvironmentConfig, *, teams_dir: Path = TEAMS_DIR) -> list[TeamRun]:
    """Every run of the environment's teams, sorted by team and run name."""
    runs = []
    for team in sorted(env.platform.teams):
        _check_unread_files(teams_dir / team)
        files = sorted((teams_dir / team).glob("*.yaml"))
        selected = env.platform.teams[team].runs
        if selected is not None:
            _check_selected(team, selected, files, teams_dir)
            files = [f for f in files if f.stem in selected]
        for file in files:
            source = display_path(file)
            try:
                _check_inside(file, teams_dir)
                data = read_yaml_file(file, fix="keep run files as regular files under teams/<team>/")
                runs.append(TeamRun(team, file.stem, source, parse_run(env, team, file.stem, data)))
            except ConfigError as error:
                raise error.with_source(source) from None
    return runs


def _check_selected(team: str, selected: tuple[str, ...], files: list[Path], teams_dir: Path) -> None:
    """Every run an environment selects has its file under ``teams/<team>/``."""
    present = {f.stem for f in files}
    for index, name in enumerate(selected):
        if name not in present:
            available = ", ".join(sorted(present)) or "none"
            raise ConfigError(
                f"platform.teams.{team}.runs[{index}]",
                name,
                f"there is no run file {display_path(teams_dir / team / name)}.yaml",
                f"list runs that exist (here: {available}), or add the run file",
            )


YAML_SUFFIXES = frozenset({".yaml", ".yml"})


def _check_unread_files(team_dir: Path) -> None:
    """Refuse a YAML file under a team directory that the run discovery (``<team>/*.yaml``) never reads:
    a ``.yml`` or upper-case suffix, or a file in a subdirectory. It would otherwise be silently skipped."""
    if not team_dir.is_dir() or team_dir.is_symlink():
        return
    for path in sorted(team_dir.rglob("*")):
        if path.suffix.lower() not in YAML_SUFFIXES or path.is_dir():
            continue
        if path.parent == team_dir and path.suffix == ".yaml":
            continue
        nested = path.parent != team_dir
        raise ConfigError(
            "<file>",
            str(path.relative_to(team_dir.parent)),
            "run files are read only as teams/<team>/<run>.yaml: this file would never be rendered",
            f"move it to {team_dir.name}/<run>.yaml"
            if nested
            else f"rename it to {path.stem.lower()}.yaml, or move it out of teams/",
            source=display_path(path),
        )


def _check_inside(file: Path, teams_dir: Path) -> None:
    """Refuse a run file that is a symlink or resolves outside ``teams_dir`` (before it is read).

    A run file is repository content reviewed with the rest; a link could point a render at
    any file of the machine and echo its values in an error line.
    """
    fix = "replace the link with the run file itself, under teams/<team>/"
    for path in (file, file.parent):
        if path.is_symlink():
            raise ConfigError("<file>", path.name, "run files and team directories may not be symlinks", fix)
    root = teams_dir.resolve()
    if not file.resolve().is_relative_to(root):
        raise ConfigError("<file>", file.name, f"resolves outside {display_path(teams_dir)}/", fix)


def parse_run(env: EnvironmentConfig, team: str, name: str, data: object) -> RunConfig:
    if not isinstance(data, dict):
        raise ConfigError("<top>", describe_kind(data), "a run file is a mapping", "start with 'template: pytorch'")
    _check_name(name)
    run = validate_strictly(RunConfig, data)
    check_run(env, team, run)
    check_launch(run, kind_of(run), name=name, composite=_composite(env, run))
    check_run_ignored_fields(run, KINDS.values())
    check_generated_names(env, team, name, run)
    return run


def check_generated_names(env: EnvironmentConfig, team: str, name: str, run: RunConfig) -> None:
    """Refuse a run name that makes any name built from it too long (``TemplateKind.generated_names``),
    naming the longest run name that fits."""
    plan = plan_gang(env, team=team, run_name=name, run=run)
    over = [n for n in kind_of(run).generated_names(plan) if len(n.name) > n.limit]
    if not over:
        return
    worst = min(over, key=lambda n: n.limit - (len(n.name) - len(name)))
    most = worst.limit - (len(worst.name) - len(name))
    raise ConfigError(
        "<file name>",
        name,
        f"the run's {worst.what} would be '{worst.name}', {len(worst.name)} characters (at most {worst.limit})",
        f"rename the file to at most {most} characters before .yaml",
    )


def _composite(env: EnvironmentConfig, run: RunConfig) -> bool:
    """Whether the run renders as a CompositePodGroup tree (asked for, and the gate is on)."""
    return run.hierarchical and Gate.COMPOSITE_POD_GROUP in env.feature_gates.control_plane


def _native(env: EnvironmentConfig) -> bool:
    return gang_scheduling_native(env.feature_gates.control_plane)


def _check_name(name: str) -> None:
    import re

    if not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", name):
        raise ConfigError(
            "<file name>",
            name,
            "run names become object names and must be DNS labels",
            "rename the file to lower-case letters, digits and '-', starting with a letter and ending with a letter "
            "or digit (the names built from it set the length: at most about 40 characters)",
        )
    if not name[0].isalpha():
        raise ConfigError(
            "<file name>",
            name,
            "the run's name begins its Service's name, and a Service name must start with a letter",
            "rename the file to start with a lower-case letter, e.g. run-" + name + ".yaml",
        )


def unnamed_team_directories(env: EnvironmentConfig, *, teams_dir: Path = TEAMS_DIR) -> list[str]:
    """Warnings for directories under ``teams_dir`` that no environment's ``platform.teams`` names.

    Environments share ``teams/``, so a team that only another environment serves is fine; a
    directory no environment names is never rendered, most often a typo in the team name.
    """
    if not teams_dir.is_dir():
        return []
    named = set(env.platform.teams) | _teams_of_shipped_environments()
    return [
        f"{display_path(path)}/: no environment names team {path.name!r} under platform.teams;"
        " its runs are never rendered"
        for path in sorted(teams_dir.iterdir())
        if path.is_dir() and path.name not in named and any(p.suffix.lower() in YAML_SUFFIXES for p in path.rglob("*"))
    ]


def _teams_of_shipped_environments() -> set[str]:
    names: set[str] = set()
    for file in ENVIRONMENTS_DIR.glob("*.yaml"):
        try:
            data = read_yaml_file(file)
        except ConfigError:
            continue
        platform = data.get("platform") if isinstance(data, dict) else None
        teams = platform.get("teams") if isinstance(platform, dict) else None
        if isinstance(teams, dict):
            names.update(teams)
    return names


def check_run(env: EnvironmentConfig, team: str, run: RunConfig) -> None:
    """Rules that need the environment: tiers granted, classes published, elastic gangs acknowledged."""
    _check_schedulable(run)
    for setting in unhonoured_settings(env, run):
        if setting.explicit and setting.field in REFUSED_WHEN_EXPLICIT:
            raise ConfigError(
                setting.field,
                setting.value,
                f"{env.name} cannot honour it: {setting.reason}",
                f"drop {setting.field} from the run, or {setting.remedy}",
            )
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
        if Gate.DRA_WORKLOAD_RESOURCE_CLAIMS not in env.feature_gates.control_plane:
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
        flat_min = run.min_replicas + (not kind_of(run).leads_its_gang)
        if run.min_replicas < run.replicas and not _composite(env, run) and _native(env):
            raise ConfigError(
                "min_replicas",
                run.min_replicas,
                f"in one flat gang, {flat_min} workers could start without the {run.template.value} "
                "coordinator (minCount counts pods, not roles)",
                "set hierarchical: true (needs the CompositePodGroup gate) so the coordinator has its own group, "
                "or drop min_replicas",
            )
    if run.elastic and (run.min_replicas is None or run.min_replicas >= run.replicas):
        raise ConfigError(
            "elastic",
            True,
            f"acknowledges a gang that may start with fewer than replicas {run.replicas}, but min_replicas "
            f"{'is not set' if run.min_replicas is None else f'is {run.min_replicas}'}, so it has no effect",
            "set min_replicas below replicas, or remove elastic",
        )


def _check_schedulable(run: RunConfig) -> None:
    """Runs the templates could never run as asked."""
    if run.gpus_per_replica == 0 and run.shared_devices is None:
        raise ConfigError(
            "gpus_per_replica",
            0,
            f"a {run.template.value} run on GPU capacity that claims no GPU (and no shared_devices) "
            "would wait on tainted GPU nodes it cannot use",
            "set gpus_per_replica to 1 or more, or add shared_devices",
        )


def unhonoured_settings(env: EnvironmentConfig, run: RunConfig) -> list[UnhonouredSetting]:
    """Settings the gang templates would leave out of the rendered objects (see ``policy.gangs.plan.plan_gang``)."""
    gates = effective_gates(env.feature_gates.control_plane)
    # Without GenericWorkload (the fallback form) zone topology is a Pod affinity and a Job run a plain
    # indexed Job: both are honoured without their gates.
    native = _native(env)
    written = run.model_fields_set
    found = []

    def needs(field: str, value: object, reason: str, remedy: str) -> None:
        found.append(UnhonouredSetting(field, value, field in written, reason, remedy))

    if native and run.topology is TopologyPreference.ZONE and Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING not in gates:
        gate = Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING
        needs("topology", run.topology.value, f"the {gate} gate is off", f"add {gate} to feature_gates.control_plane")
    if native and run.job and Gate.WORKLOAD_WITH_JOB not in gates:
        needs("job", True, "the WorkloadWithJob gate is off", "add WorkloadWithJob to feature_gates.control_plane")
    elif run.job and not kind_of(run).indexed_job:
        job_kinds = [kind.template.value for kind in KINDS.values() if kind.indexed_job]
        needs(
            "job",
            True,
            f"the Job form is {' and '.join(job_kinds)} only, not {run.template.value}",
            f"use template: {job_kinds[0]}",
        )
    if not native and run.min_replicas is not None:
        needs(
            "min_replicas",
            run.min_replicas,
            "without GenericWorkload there is no gang minimum: the fallback form starts Pods one by one",
            "run on a control plane that serves GenericWorkload (feature_gates.acknowledge_served_beyond_eks)",
        )
    if run.hierarchical and Gate.COMPOSITE_POD_GROUP not in gates:
        gate = Gate.COMPOSITE_POD_GROUP
        needs("hierarchical", True, f"the {gate} gate is off", f"add {gate} to feature_gates.control_plane")
    return found
