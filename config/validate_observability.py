"""Rules for the ``observability`` section. Each raises one ``ConfigError`` naming field, value and fix."""

from __future__ import annotations

from itertools import pairwise

from catalog.priority_tiers import TIERS, Tier
from config.errors import ConfigError
from config.model import EnvironmentConfig
from config.observability import PrometheusMode

MIN_OBJECTIVE_SECONDS = 60
"""``GangPendingOverObjective`` holds for 1m before firing: a shorter objective would measure the hold."""

_SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


def check_observability(env: EnvironmentConfig) -> None:
    config = env.observability
    where = "observability"
    if config.namespace in _SYSTEM_NAMESPACES:
        raise ConfigError(
            f"{where}.namespace",
            config.namespace,
            "the gang exporter does not belong in a namespace Kubernetes owns",
            "use a platform namespace such as gpu-platform",
        )
    if config.managed_prometheus and not config.enabled:
        raise ConfigError(
            f"{where}.managed_prometheus",
            True,
            "a workspace without the gang exporter has no gang metrics to receive",
            "set observability.enabled: true, or drop managed_prometheus",
        )
    if config.managed_prometheus and config.prometheus is PrometheusMode.NONE:
        raise ConfigError(
            f"{where}.managed_prometheus",
            True,
            "with prometheus: none nothing remote-writes to the workspace",
            "set observability.prometheus: install (or existing, and point its remote_write at the "
            "ManagedPrometheusRemoteWriteUrl output), or drop managed_prometheus",
        )
    objectives = config.tier_objectives_seconds
    for tier in Tier:
        if objectives[tier] < MIN_OBJECTIVE_SECONDS:
            raise ConfigError(
                f"{where}.tier_objectives_seconds.{tier.value}",
                objectives[tier],
                f"objective is shorter than the {MIN_OBJECTIVE_SECONDS} s the alert holds before it fires",
                f"set at least {MIN_OBJECTIVE_SECONDS} seconds",
            )
    by_priority = sorted(Tier, key=lambda t: TIERS[t].value, reverse=True)
    for higher, lower in pairwise(by_priority):
        if objectives[higher] > objectives[lower]:
            raise ConfigError(
                f"{where}.tier_objectives_seconds.{higher.value}",
                objectives[higher],
                f"objective is longer than that of the lower tier {lower.value} ({objectives[lower]} s)",
                f"set {higher.value} to at most {objectives[lower]} seconds, or raise {lower.value}",
            )
