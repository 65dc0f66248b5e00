"""Cluster Autoscaler's cross-field rules: each raises one ``ConfigError`` naming field, value and fix."""

from __future__ import annotations

from addons.cluster_autoscaler.pin import CLUSTER_AUTOSCALER_RELEASES, MAX_MINORS_BEHIND, RELEASES_URL
from catalog.versions import KUBERNETES_MINOR
from config.errors import ConfigError
from config.model import EnvironmentConfig
from policy.infrastructure.node_pools import autoscaled_pools


def check_cluster_autoscaler(env: EnvironmentConfig) -> None:
    """The release an environment with autoscaled pools runs: a row of the table, for the cluster's minor (or
    one behind it, acknowledged), checked upstream or acknowledged as an assumption."""
    if not autoscaled_pools(env):
        return
    config = env.cluster_autoscaler
    release = CLUSTER_AUTOSCALER_RELEASES.get(config.version)
    if release is None:
        raise ConfigError(
            "cluster_autoscaler.version",
            config.version,
            "not a release in addons/cluster_autoscaler/pin.py",
            f"use one of {', '.join(CLUSTER_AUTOSCALER_RELEASES)} or add a checked row to the table",
        )
    behind = release.minors_behind(KUBERNETES_MINOR)
    if behind < 0 or behind > MAX_MINORS_BEHIND:
        major, _, minor = KUBERNETES_MINOR.partition(".")
        raise ConfigError(
            "cluster_autoscaler.version",
            config.version,
            f"Cluster Autoscaler's minor must match the cluster's Kubernetes {KUBERNETES_MINOR}",
            f"use a {KUBERNETES_MINOR}.x release, or a {major}.{int(minor) - MAX_MINORS_BEHIND}.x release with "
            "cluster_autoscaler.acknowledge_version_skew: true",
        )
    if behind and not config.acknowledge_version_skew:
        raise ConfigError(
            "cluster_autoscaler.version",
            config.version,
            f"Cluster Autoscaler {config.version} is built for Kubernetes {release.kubernetes_minor}, one minor behind "
            f"the cluster's {KUBERNETES_MINOR}, and its minor should match the cluster's",
            "set cluster_autoscaler.acknowledge_version_skew: true to run it until a "
            f"{KUBERNETES_MINOR}.x release is confirmed, or use a confirmed {KUBERNETES_MINOR}.x release",
        )
    if not release.verified and not config.acknowledge_unverified_release:
        raise ConfigError(
            "cluster_autoscaler.version",
            config.version,
            "this release's row is an assumption: no such tag upstream was checked yet",
            f"check {RELEASES_URL}, then set verified=True on the row; or set "
            "cluster_autoscaler.acknowledge_unverified_release: true",
        )
