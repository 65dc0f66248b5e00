"""Configuration of Cluster Autoscaler, installed when a managed node group pool has ``scaling: autoscaled``."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from addons.cluster_autoscaler.pin import CLUSTER_AUTOSCALER_VERSION
from config.model_base import Model


class ClusterAutoscalerConfig(Model):
    """Cluster Autoscaler on the system nodes, scaling this cluster's ``autoscaled`` node groups."""

    version: str = CLUSTER_AUTOSCALER_VERSION
    """Cluster Autoscaler image release: a row of `addons/cluster_autoscaler/pin.py` for the cluster's minor, or for the
    minor before it with `acknowledge_version_skew`."""
    acknowledge_unverified_release: bool = False
    """Run a release whose row is not yet checked upstream (synth warns)."""
    acknowledge_version_skew: bool = False
    """Run a release one Kubernetes minor behind the cluster's, although Cluster Autoscaler's minor should
    match it (synth warns): the newest confirmed release while the cluster's minor has none."""
    scale_down_unneeded_minutes: Annotated[int, Field(ge=1, le=1440)] = 10
    """How long an autoscaled GPU node must be unneeded before it is removed (`--scale-down-unneeded-time`)."""
