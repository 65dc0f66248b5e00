"""Workload-aware twins: a shipped environment on a control plane that serves the workload-aware gates.

The shipped environments rely only on what EKS 1.37 serves, so their gangs render in the fallback form
(no Workload, no PodGroup). Tests of the native form (Workloads, PodGroups, composite trees, Job
``spec.scheduling``, the gang admission policies, gate probes and ``make verify``'s gate rows) run on a
twin instead: the same environment with the gates it listed before EKS's table existed, each
acknowledged in ``feature_gates.acknowledge_served_beyond_eks``, as a self-managed control plane (or
EKS once AWS turns them on) would declare it. A twin goes through the same model and validation as
an environment file: nothing about it bypasses a rule.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from config.files import read_yaml_file
from config.load import ENVIRONMENTS_DIR, utc_today
from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from policy.environment.validate import validate_environment
from policy.gates.rules import served_beyond_eks

if TYPE_CHECKING:
    from charts.render import RenderedEnvironment

_DEV_GATES = ("GenericWorkload", "TopologyAwareWorkloadScheduling", "DRAWorkloadResourceClaims", "WorkloadWithJob")

WORKLOAD_AWARE_GATES: dict[str, tuple[str, ...]] = {
    "prod-example": (
        "GenericWorkload",
        "TopologyAwareWorkloadScheduling",
        "CompositePodGroup",
        "DRAWorkloadResourceClaims",
        "WorkloadWithJob",
        "PodGroupPreemptionPolicy",
    ),
    "dev": _DEV_GATES,
    "karpenter-example": _DEV_GATES,
    "ci": ("GenericWorkload", "TopologyAwareWorkloadScheduling", "DRAWorkloadResourceClaims"),
}
"""Per shipped environment, the control-plane gates it relied on before it kept to what EKS 1.37 serves."""

KUBELET_GATES = ("DRAWorkloadResourceClaims",)
"""The kubelet gates every shipped environment set on its GPU nodes before."""


def workload_aware_data(
    data: dict[str, Any], *, control_plane: Sequence[str] | None = None, kubelet: Sequence[str] = KUBELET_GATES
) -> dict[str, Any]:
    """``data`` (an environment as plain data) with the twin's feature gates, each one EKS does not serve
    acknowledged. ``control_plane`` defaults to the gates of the environment's name (dev's when the name is
    not a shipped one). Changes ``data`` and returns it."""
    gates = tuple(control_plane) if control_plane is not None else WORKLOAD_AWARE_GATES.get(data["name"], _DEV_GATES)
    data["feature_gates"] = {
        "control_plane": list(gates),
        "acknowledge_served_beyond_eks": list(served_beyond_eks(gates)),
        "kubelet": list(kubelet),
    }
    return data


def workload_aware(
    env: EnvironmentConfig | str,
    *,
    control_plane: Sequence[str] | None = None,
    kubelet: Sequence[str] = KUBELET_GATES,
) -> EnvironmentConfig:
    """The workload-aware twin of ``env`` (a loaded environment, or a shipped environment's name): validated
    as the environment file would be (the model, then ``validate_environment``)."""
    loaded = load_environment(name=env) if isinstance(env, str) else env
    data = workload_aware_data(loaded.model_dump(mode="json"), control_plane=control_plane, kubelet=kubelet)
    twin = EnvironmentConfig.model_validate(data)
    validate_environment(twin, today=utc_today())
    return twin


def write_workload_aware(name: str, path: Path) -> Path:
    """The twin of the shipped environment ``name`` as an environment file at ``path``, for commands that take
    ``--config`` (they read and validate it as any environment file)."""
    data = workload_aware_data(read_yaml_file(ENVIRONMENTS_DIR / f"{name}.yaml"))
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@functools.cache
def _workload_aware_render(name: str) -> RenderedEnvironment:
    from charts.render import render_environment

    return render_environment(workload_aware(name))


def workload_aware_render(name: str) -> RenderedEnvironment:
    """``render_environment`` of the workload-aware twin of the shipped environment ``name``, rendered once per
    test process; each caller gets its own copy to change."""
    return copy.deepcopy(_workload_aware_render(name))


@functools.cache
def _workload_aware_run(name: str, team: str, run: str) -> list[dict[str, Any]]:
    from charts.render import render_environment
    from config.platform import TeamRun
    from policy.environment.teams import TEAMS_DIR, parse_run

    env = workload_aware(name)
    source = f"teams/{team}/{run}.yaml"
    data = read_yaml_file(TEAMS_DIR / team / f"{run}.yaml")
    team_runs = [TeamRun(team, run, source, parse_run(env, team, run, data))]
    return render_environment(env, team_runs=team_runs).files[source]


def workload_aware_run(name: str, team: str, run: str) -> list[dict[str, Any]]:
    """The objects of ``teams/<team>/<run>.yaml`` rendered on the twin of ``name`` (what ``dist/<name>/`` would hold
    for it on that control plane), whether or not the environment selects the run; a copy to change."""
    return copy.deepcopy(_workload_aware_run(name, team, run))


__all__ = [
    "KUBELET_GATES",
    "WORKLOAD_AWARE_GATES",
    "workload_aware",
    "workload_aware_data",
    "workload_aware_render",
    "workload_aware_run",
    "write_workload_aware",
]
