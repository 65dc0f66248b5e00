"""Which Cluster Autoscaler release an environment with autoscaled pools may run."""

from __future__ import annotations

import pytest

from addons.cluster_autoscaler import rules
from addons.cluster_autoscaler.pin import ClusterAutoscalerRelease
from addons.cluster_autoscaler.rules import check_cluster_autoscaler
from addons.cluster_autoscaler.settings import ClusterAutoscalerConfig
from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from tests.helpers import refusal


def _with(name: str, **settings: object) -> EnvironmentConfig:
    """A shipped environment with another ``cluster_autoscaler`` section (the rule alone judges it)."""
    env = load_environment(name=name)
    changed: EnvironmentConfig = env.model_copy(update={"cluster_autoscaler": ClusterAutoscalerConfig(**settings)})
    return changed


def test_shipped_dev_runs_the_confirmed_release_one_minor_behind_acknowledged() -> None:
    check_cluster_autoscaler(_with("dev", acknowledge_version_skew=True))


def test_without_autoscaled_pools_no_release_is_judged() -> None:
    check_cluster_autoscaler(_with("ci", version="0.0.1"))


def test_release_outside_the_table_is_refused() -> None:
    assert refusal(check_cluster_autoscaler, _with("dev", version="9.9.9")) == (
        "cluster_autoscaler.version: not a release in addons/cluster_autoscaler/pin.py (got '9.9.9'); "
        "fix: use one of 1.36.1, 1.37.0 or add a checked row to the table"
    )


def test_one_minor_behind_needs_the_skew_acknowledged() -> None:
    assert refusal(check_cluster_autoscaler, _with("dev")) == (
        "cluster_autoscaler.version: Cluster Autoscaler 1.36.1 is built for Kubernetes 1.36, one minor behind the "
        "cluster's 1.37, and its minor should match the cluster's (got '1.36.1'); fix: set "
        "cluster_autoscaler.acknowledge_version_skew: true to run it until a 1.37.x release is confirmed, or use a "
        "confirmed 1.37.x release"
    )


def test_unverified_row_needs_its_acknowledgement() -> None:
    assert refusal(check_cluster_autoscaler, _with("dev", version="1.37.0")) == (
        "cluster_autoscaler.version: this release's row is an assumption: no such tag upstream was checked yet "
        "(got '1.37.0'); fix: check https://github.com/kubernetes/autoscaler/releases, then set verified=True on "
        "the row; or set cluster_autoscaler.acknowledge_unverified_release: true"
    )
    check_cluster_autoscaler(_with("dev", version="1.37.0", acknowledge_unverified_release=True))


@pytest.mark.parametrize(("version", "minor"), [("1.35.9", "1.35"), ("1.38.0", "1.38")])
def test_two_minors_behind_or_any_newer_is_refused_even_acknowledged(
    monkeypatch: pytest.MonkeyPatch, version: str, minor: str
) -> None:
    table = {**rules.CLUSTER_AUTOSCALER_RELEASES, version: ClusterAutoscalerRelease(version, minor, verified=True)}
    monkeypatch.setattr(rules, "CLUSTER_AUTOSCALER_RELEASES", table)
    assert refusal(check_cluster_autoscaler, _with("dev", version=version, acknowledge_version_skew=True)) == (
        f"cluster_autoscaler.version: Cluster Autoscaler's minor must match the cluster's Kubernetes 1.37 "
        f"(got '{version}'); fix: use a 1.37.x release, or a 1.36.x release with "
        "cluster_autoscaler.acknowledge_version_skew: true"
    )
