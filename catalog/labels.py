"""Node labels and taints the platform owns. Object names and label keys are a public contract."""

from __future__ import annotations

DOMAIN = "gpu-platform.io"
POOL_LABEL = f"{DOMAIN}/pool"
ROLE_LABEL = f"{DOMAIN}/role"
DEVICE_MANAGEMENT_LABEL = f"{DOMAIN}/device-management"
DEVICE_MANAGEMENT_DRA = "dra"
DEVICE_MANAGEMENT_DEVICE_PLUGIN = "device-plugin"
ZONE_LABEL = "topology.kubernetes.io/zone"
DO_NOT_DISRUPT_ANNOTATION = "karpenter.sh/do-not-disrupt"
