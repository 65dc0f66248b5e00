"""Helm values for the NVIDIA DRA driver and the device plugin, from the environment."""

from __future__ import annotations

from typing import Any

from catalog.labels import DEVICE_MANAGEMENT_DEVICE_PLUGIN, DEVICE_MANAGEMENT_DRA, DEVICE_MANAGEMENT_LABEL
from catalog.versions import RESOURCE_API_VERSION
from config.model import EnvironmentConfig
from policy.infrastructure.node_pools import tolerations_for


def dra_driver_values(env: EnvironmentConfig) -> dict[str, Any]:
    """Values for chart ``dra-driver-nvidia-gpu``: GPUs on, kubelet plugin only on DRA pools.

    ``gpuResourcesEnabledOverride`` must be true while ``resources.gpus.enabled`` is, or the
    chart refuses to render; AL2023 NVIDIA AMIs install the driver at ``/``.
    """
    dra_taints = tuple(t for p in env.gpu_pools if p.dra for t in p.taints)
    return {
        "gpuResourcesEnabledOverride": True,
        "resourceApiVersion": RESOURCE_API_VERSION,
        "nvidiaDriverRoot": "/",
        "resources": {
            "gpus": {"enabled": True},
            "computeDomains": {"enabled": env.dra_driver.compute_domains},
        },
        "kubeletPlugin": {
            "nodeSelector": {DEVICE_MANAGEMENT_LABEL: DEVICE_MANAGEMENT_DRA},
            "tolerations": tolerations_for(dra_taints),
        },
    }


def device_plugin_values(env: EnvironmentConfig) -> dict[str, Any]:
    """Values for chart ``nvidia-device-plugin``: its DaemonSet only on device-plugin pools."""
    taints = tuple(t for p in env.gpu_pools if p.device_plugin for t in p.taints)
    return {
        "nodeSelector": {DEVICE_MANAGEMENT_LABEL: DEVICE_MANAGEMENT_DEVICE_PLUGIN},
        "tolerations": tolerations_for(taints),
    }
