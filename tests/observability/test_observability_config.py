"""The ``observability`` section: defaults, and a ``fails_...`` test with the exact one-line message per rule."""

from __future__ import annotations

from typing import Any

from catalog.priority_tiers import Tier
from config.observability import DEFAULT_TIER_OBJECTIVES_SECONDS, PrometheusMode
from policy.environment.load import load_environment
from tests.conftest import env_from
from tests.helpers import env_refusal


def _with(data: dict[str, Any], **observability: Any) -> dict[str, Any]:
    data["observability"] = observability
    return data


def _fails(data: dict[str, Any], **observability: Any) -> str:
    return env_refusal(_with(data, **observability))


def test_defaults() -> None:
    config = load_environment(name="dev").observability
    assert config.enabled and config.scrape_scheduler
    assert config.prometheus is PrometheusMode.INSTALL
    assert (config.prometheus_storage_gib, config.prometheus_retention_days) == (50, 15)
    assert not config.managed_prometheus
    assert config.namespace == "gpu-platform"
    assert config.tier_objectives_seconds == {
        Tier.CRITICAL: 300,
        Tier.DEADLINE: 900,
        Tier.STANDARD: 3600,
        Tier.OPPORTUNISTIC: 21600,
    }
    assert (config.pending_groups_threshold, config.repeated_preemptions) == (10, 3)


def test_tiers_left_out_keep_their_default(dev_data: dict[str, Any]) -> None:
    config = env_from(_with(dev_data, tier_objectives_seconds={"deadline": 600})).observability
    assert config.tier_objectives_seconds == {**DEFAULT_TIER_OBJECTIVES_SECONDS, Tier.DEADLINE: 600}
    assert list(config.tier_objectives_seconds) == list(Tier)


def test_shipped_environments() -> None:
    assert load_environment(name="ci").observability.prometheus is PrometheusMode.NONE
    prod = load_environment(name="prod-example").observability
    assert prod.managed_prometheus is True
    assert prod.tier_objectives_seconds[Tier.DEADLINE] == 600


def test_fails_system_namespace(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, namespace="kube-system") == (
        "observability.namespace: the gang exporter does not belong in a namespace Kubernetes owns "
        "(got 'kube-system'); fix: use a platform namespace such as gpu-platform"
    )


def test_fails_malformed_namespace(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, namespace="Gpu_Platform") == (
        "observability.namespace: not in the allowed form (got 'Gpu_Platform'); "
        "fix: use 1-63 lower-case letters, digits or '-', starting and ending with a letter or digit (e.g. team-vision)"
    )


def test_fails_managed_prometheus_without_the_exporter(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, enabled=False, managed_prometheus=True) == (
        "observability.managed_prometheus: a workspace without the gang exporter has no gang metrics to receive "
        "(got True); fix: set observability.enabled: true, or drop managed_prometheus"
    )


def test_fails_objective_under_a_minute(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, tier_objectives_seconds={"critical": 30}) == (
        "observability.tier_objectives_seconds.critical: objective is shorter than the 60 s the alert holds "
        "before it fires (got 30); fix: set at least 60 seconds"
    )


def test_fails_higher_tier_with_a_longer_objective(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, tier_objectives_seconds={"critical": 1200}) == (
        "observability.tier_objectives_seconds.critical: objective is longer than that of the lower tier deadline "
        "(900 s) (got 1200); fix: set critical to at most 900 seconds, or raise deadline"
    )


def test_fails_unknown_tier(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, tier_objectives_seconds={"urgent": 300}) == (
        "observability.tier_objectives_seconds.urgent: not an allowed value (got 'urgent'); "
        "fix: use one of 'critical', 'deadline', 'standard' or 'opportunistic'"
    )


def test_fails_objective_not_a_number(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, tier_objectives_seconds={"critical": "soon"}) == (
        "observability.tier_objectives_seconds.critical: a string where a whole number belongs (got 'soon'); "
        "fix: write the value in that type (quote a string; no implicit conversion)"
    )


def test_fails_negative_pending_groups_threshold(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, pending_groups_threshold=-1) == (
        "observability.pending_groups_threshold: less than 0 (got -1); fix: use a whole number of at least 0"
    )


def test_fails_zero_repeated_preemptions(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, repeated_preemptions=0) == (
        "observability.repeated_preemptions: less than 1 (got 0); fix: use a whole number of at least 1"
    )


def test_fails_unknown_key(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, scrape_interval="30s") == (
        "observability.scrape_interval: unknown key (got '30s'); fix: remove it or use one of: enabled, "
        "managed_prometheus, namespace, pending_groups_threshold, prometheus, prometheus_retention_days, "
        "prometheus_storage_gib, repeated_preemptions, scrape_scheduler, tier_objectives_seconds"
    )


def test_fails_unknown_prometheus_mode(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, prometheus="operator") == (
        "observability.prometheus: not an allowed value (got 'operator'); fix: use one of 'install', 'existing' "
        "or 'none'"
    )


def test_fails_managed_prometheus_without_a_prometheus(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, prometheus="none", managed_prometheus=True) == (
        "observability.managed_prometheus: with prometheus: none nothing remote-writes to the workspace "
        "(got True); fix: set observability.prometheus: install (or existing, and point its remote_write at the "
        "ManagedPrometheusRemoteWriteUrl output), or drop managed_prometheus"
    )


def test_fails_zero_prometheus_storage(dev_data: dict[str, Any]) -> None:
    assert _fails(dev_data, prometheus_storage_gib=0) == (
        "observability.prometheus_storage_gib: less than 1 (got 0); fix: use a whole number from 1 to 16384"
    )
