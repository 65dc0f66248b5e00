"""Configuration of gang observability (top-level ``observability:``).

The gang exporter, its ServiceMonitors, the PrometheusRule and the Grafana dashboard
ConfigMap render into ``dist/<env>/observability.yaml``; the cluster stack deploys them
(``stacks/observability.py``). Cross-field rules are in ``config.validate_observability``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, field_validator

from catalog.priority_tiers import Tier
from config.model_base import DnsLabel, Model

DEFAULT_TIER_OBJECTIVES_SECONDS: dict[Tier, int] = {
    Tier.CRITICAL: 300,
    Tier.DEADLINE: 900,
    Tier.STANDARD: 3600,
    Tier.OPPORTUNISTIC: 21600,
}
"""Longest acceptable wait for ``PodGroupInitiallyScheduled=True`` per tier."""


class PrometheusMode(StrEnum):
    """Where the gang metrics, alerts and dashboard go."""

    INSTALL = "install"
    EXISTING = "existing"
    NONE = "none"


class ObservabilityConfig(Model):
    """The gang exporter, its scrape configuration, alerts and dashboard."""

    enabled: bool = True
    """Deploy the gang exporter with its alerts and dashboard (and render them into `dist/<env>/`)."""
    namespace: DnsLabel = "gpu-platform"
    """Namespace of the exporter, ServiceMonitors, PrometheusRule and dashboard ConfigMap; created when it is
    neither a platform nor a team namespace."""
    prometheus: PrometheusMode = PrometheusMode.INSTALL
    """`install`: kube-prometheus-stack (pinned in `addons/kube_prometheus_stack/pin.py`) on the system nodes,
    selecting our ServiceMonitors, PrometheusRule and dashboard; `existing`: the cluster already runs the Prometheus
    Operator, only our objects are applied (`make verify` checks its CRDs are served); `none`: the exporter only, the
    Operator objects are rendered into `observability.yaml` but not applied."""
    prometheus_storage_gib: Annotated[int, Field(ge=1, le=16384)] = 50
    """Persistent volume of Prometheus (encrypted gp3, through the EBS CSI driver add-on) with `install`."""
    prometheus_retention_days: Annotated[int, Field(ge=1, le=365)] = 15
    """Days Prometheus keeps samples with `install` (remote-written samples outlive it in the workspace)."""
    scrape_scheduler: bool = True
    """Also scrape kube-scheduler's pod-group metrics from the EKS control-plane endpoint (a ServiceMonitor, and
    a ClusterRole `gang-exporter-scheduler-metrics-reader` to bind to the Prometheus service account)."""
    tier_objectives_seconds: Annotated[dict[Tier, int], Field(validate_default=True)] = dict(
        DEFAULT_TIER_OBJECTIVES_SECONDS
    )
    """Seconds a tier's gang may wait for `PodGroupInitiallyScheduled=True` before `GangPendingOverObjective`
    fires; tiers left out keep their default."""
    pending_groups_threshold: Annotated[int, Field(ge=0)] = 10
    """`GangPendingGroupsHigh` fires when more PodGroups of one priority class than this wait for 15 minutes."""
    repeated_preemptions: Annotated[int, Field(ge=1)] = 3
    """`GangPreemptedRepeatedly` fires when a gang is preempted this many times within an hour."""
    managed_prometheus: bool = False
    """Create an Amazon Managed Service for Prometheus workspace (AWS-owned encryption) to remote-write to; its
    id and remote-write URL are stack outputs."""

    @field_validator("tier_objectives_seconds", mode="after")
    @classmethod
    def _keep_defaults(cls, value: dict[Tier, int]) -> dict[Tier, int]:
        merged = {**DEFAULT_TIER_OBJECTIVES_SECONDS, **value}
        return {tier: merged[tier] for tier in Tier}
