"""Render an environment's platform-owned Kubernetes objects into reviewable files.

This module imports cdk8s but never aws-cdk-lib, so ``make render`` stays fast; the
cluster stack calls the same functions to deploy the cluster-scoped objects.

Each chart gets its own cdk8s ``App``: ``Chart.to_json()`` synthesizes the chart's whole App
(dependencies and validation of every chart in it), so charts sharing one App would make
rendering quadratic in the number of team runs. Output is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from cdk8s import App, Chart
from constructs import Construct
from pydantic import BaseModel

from addons.karpenter.plan import karpenter_objects, pool_settings
from charts.admission_policies import GangAdmissionPolicies
from charts.cluster_objects import PlatformDeviceClasses, PriorityTiers
from charts.deployed import DeployedObjects, Objects
from charts.gangs import GangRun
from charts.namespaces import PlatformNamespaces
from charts.observability import environment_objects
from charts.summary import summary_markdown
from charts.yaml_output import dump_objects
from config.errors import ConfigError
from config.model import EnvironmentConfig
from config.platform import TeamRun
from observability.dashboard import dashboard_json
from policy.environment.ineffective import ineffective_setting_notes
from policy.environment.teams import load_team_runs, unhonoured_settings
from policy.gangs.shapes import GangPlan
from policy.gangs.workload_rules import WorkloadRuleError, check_objects
from policy.gates.fields import subject as object_subject
from policy.gates.rules import gang_scheduling_native
from policy.results import Check

OBSERVABILITY_FILE = "observability.yaml"


@dataclass
class RenderedEnvironment:
    """Objects per output file (path relative to ``dist/<env>/``), plus the plans behind team runs."""

    files: dict[str, Objects] = field(default_factory=dict)
    plans: list[GangPlan] = field(default_factory=list)
    cluster_files: tuple[str, ...] = ()
    """Files the cluster stack deploys (cluster-scoped platform objects)."""
    notes: list[str] = field(default_factory=list)
    """Run settings rendered without effect (``policy.environment.teams.unhonoured_settings``), one line each."""
    run_files: dict[str, str] = field(default_factory=dict)
    """Each team run's output file -> the run file it was rendered from."""

    def cluster_scoped(self) -> dict[str, Objects]:
        return {path: self.files[path] for path in self.cluster_files}

    def deployed(self) -> DeployedObjects:
        """The objects the cluster stack deploys."""
        return DeployedObjects(self.cluster_scoped(), self.files.get(OBSERVABILITY_FILE, []))

    def all_objects(self) -> Objects:
        return [o for objs in self.files.values() for o in objs]

    def run_file_of(self, subject: str) -> str:
        """The run file whose objects include ``subject`` (``Kind/namespace/name``), or "" for platform objects.

        ``Pods/<namespace>/<run>`` (a fallback-form run's GPU Pods, ``policy.checks.demands.gpu_demands``) names the
        objects labelled ``app.kubernetes.io/part-of: <run>`` in that namespace."""
        kind, _, rest = subject.partition("/")
        for path, run_file in self.run_files.items():
            if any(object_subject(o) == subject for o in self.files[path]):
                return run_file
            if kind == "Pods" and any(_part_of(o) == rest for o in self.files[path]):
                return run_file
        return ""


def _part_of(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata", {})
    return f"{metadata.get('namespace', '')}/{(metadata.get('labels') or {}).get('app.kubernetes.io/part-of', '')}"


def _chart(app: App | None, name: str, build: Callable[[Construct], object]) -> Objects:
    """The objects of one chart; in its own App unless ``app`` is given."""
    chart = Chart(app or App(), name, disable_resource_name_hashes=True)
    build(chart)
    return [dict(o) for o in chart.to_json()]


def render_cluster_objects(env: EnvironmentConfig, *, app: App | None = None) -> dict[str, Objects]:
    """Namespaces, DeviceClasses, PriorityClasses and admission policies: the objects the cluster stack deploys.

    ``app``: one App for all four charts; by default each chart has its own.
    """
    platform = env.platform
    return {
        "namespaces.yaml": _chart(app, "namespaces", lambda c: PlatformNamespaces(c, "Namespaces", platform=platform)),
        "device-classes.yaml": _chart(
            app, "device-classes", lambda c: PlatformDeviceClasses(c, "DeviceClasses", platform=platform)
        ),
        "priority-classes.yaml": _chart(
            app, "priority-classes", lambda c: PriorityTiers(c, "PriorityTiers", platform=platform)
        ),
        "admission-policies.yaml": _chart(
            app,
            "admission-policies",
            lambda c: GangAdmissionPolicies(
                c,
                "AdmissionPolicies",
                platform=platform,
                gang_native=gang_scheduling_native(env.feature_gates.control_plane),
            ),
        ),
    }


def render_team_run(app: App | None, env: EnvironmentConfig, team_run: TeamRun) -> tuple[Objects, GangPlan]:
    """One run's objects and plan; in its own App when ``app`` is None."""
    holder: list[GangPlan] = []

    def build(chart: Construct) -> None:
        gang = GangRun(chart, "Run", env=env, team=team_run.team, run_name=team_run.name, run=team_run.run)
        holder.append(gang.plan)

    objects = _chart(app, f"{team_run.team}-{team_run.name}", build)
    try:
        check_objects(objects)
    except WorkloadRuleError as error:
        raise ConfigError(
            "rendered objects", team_run.name, str(error), "change the run parameters", source=team_run.source
        ) from None
    return objects, holder[0]


def render_environment(
    env: EnvironmentConfig, *, team_runs: list[TeamRun] | None = None, shared_app: App | None = None
) -> RenderedEnvironment:
    """Every output file's objects (``team_runs``: instead of the runs under ``teams/``).

    ``shared_app`` puts every chart into that one App instead of one App per chart: same
    output at quadratic cost, kept as the reference the one-App-per-chart path is tested against.
    """
    app = shared_app
    cluster = render_cluster_objects(env, app=app)
    rendered = RenderedEnvironment(files=dict(cluster), cluster_files=tuple(cluster))
    rendered.notes += [f"{env.name}: {note}" for note in ineffective_setting_notes(env)]
    karpenter = karpenter_objects(env)
    if karpenter:  # deployed by the Karpenter construct after its CRDs and controller
        rendered.files["karpenter.yaml"] = karpenter
    if env.observability.enabled:  # deployed by the cluster stack with the exporter image asset
        rendered.files[OBSERVABILITY_FILE] = environment_objects(env, app=app)
    for team_run in load_team_runs(env) if team_runs is None else team_runs:
        objects, plan = render_team_run(app, env, team_run)
        path = f"teams/{team_run.team}/{team_run.name}.yaml"
        rendered.files[path] = objects
        rendered.run_files[path] = team_run.source
        rendered.plans.append(plan)
        rendered.notes += [f"{team_run.source}: {s.note()}" for s in unhonoured_settings(env, team_run.run)]
    return rendered


def report_command(*, env: EnvironmentConfig, config_file: str | None) -> str:
    """The command that prints ``env``'s full check report: for a file given by path, that file's."""
    return f"make check CONFIG={config_file}" if config_file else f"make check ENV={env.name}"


def render_checked(
    env: EnvironmentConfig, *, team_runs: list[TeamRun] | None = None, config_file: str | None = None
) -> RenderedEnvironment:
    """Render, then refuse output that breaks a gate or deadlock check: one line naming the run file
    whose object fails (``config_file``: the environment was given by path; ``make check`` has them all)."""
    from policy.checks.suite import run_checks
    from policy.results import Status

    rendered = render_environment(env, team_runs=team_runs)
    for finding in run_checks(env, rendered.all_objects()):
        if finding.status is Status.FAIL and finding.pools:
            raise _pool_refusal(env, finding, rendered, config_file=config_file)
        if finding.status is Status.FAIL:
            raise ConfigError(
                f"{finding.check}: {finding.subject}",
                env.name,
                finding.detail,
                f"{finding.fix} (full report: {report_command(env=env, config_file=config_file)})",
                source=rendered.run_file_of(finding.subject),
            )
    return rendered


def _pool_refusal(
    env: EnvironmentConfig, finding: Check, rendered: RenderedEnvironment, *, config_file: str | None
) -> ConfigError:
    """A capacity finding whose fix is a pool's size: one line on the environment file's pool, naming the run
    whose gang exposed it (the pool is what changed, or what must)."""
    from config.load import display_path, environment_path

    index, pool = next((i, p) for i, p in enumerate(env.gpu_pools) if p.name == finding.pools[0])
    run_file = rendered.run_file_of(finding.subject) or finding.subject
    value = pool_settings(pool) if finding.pool_field == "karpenter" else getattr(pool, finding.pool_field)
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return ConfigError(
        f"gpu_pools[{index}].{finding.pool_field}",
        [str(v) for v in value] if isinstance(value, tuple) else value.value if isinstance(value, Enum) else value,
        f"the gang of {run_file} ({finding.subject}): {finding.detail}",
        f"{finding.fix} in {run_file} (full report: {report_command(env=env, config_file=config_file)})",
        source=config_file if config_file else display_path(environment_path(env.name)),
    )


def output_files(env: EnvironmentConfig, rendered: RenderedEnvironment) -> dict[str, str]:
    """File path -> text, including the reviewers' SUMMARY.md."""
    files = {path: dump_objects(objs) for path, objs in sorted(rendered.files.items())}
    files["SUMMARY.md"] = summary_markdown(env, rendered.plans, notes=rendered.notes)
    if env.observability.enabled:
        files["grafana-dashboard.json"] = dashboard_json()
    return files
