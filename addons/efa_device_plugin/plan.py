"""The EFA device plugin from config, as plain data: its chart values (where the DaemonSet runs, which
taints it tolerates, the image from the cluster's Region's EKS registry)."""

from __future__ import annotations

from typing import Any

from addons.efa_device_plugin.pin import EFA_DEVICE_PLUGIN_REPOSITORY
from catalog.efa import EFA_LABEL
from catalog.eks_registries import EKS_REGISTRIES
from config.model import EnvironmentConfig
from policy.infrastructure.efa import efa_pools
from policy.infrastructure.node_pools import tolerations_for


def efa_device_plugin_image(region: str) -> str:
    """The EFA device plugin image repository in ``region``'s EKS registry (a column of ``catalog/regions.py``,
    whose every row has one; config refuses a region outside the table).

    The chart's default names us-west-2's registry; nodes elsewhere would pull across Regions, or fail
    to (China and GovCloud Regions cannot reach it)."""
    return f"{EKS_REGISTRIES[region].host(region)}/{EFA_DEVICE_PLUGIN_REPOSITORY}"


def efa_device_plugin_values(env: EnvironmentConfig) -> dict[str, Any]:
    """Values for chart ``aws-efa-k8s-device-plugin``: its DaemonSet only on EFA pools, tolerating their taints,
    its image from the cluster's Region's EKS registry (the tag stays the chart's ``appVersion``).
    The chart's own affinity (``supportedInstanceLabels``) lists every EFA type this kit knows."""
    taints = tuple(t for p in efa_pools(env) for t in p.taints)
    return {
        "image": {"repository": efa_device_plugin_image(env.region)},
        "nodeSelector": {EFA_LABEL: "true"},
        "tolerations": tolerations_for(taints),
    }
