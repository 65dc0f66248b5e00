"""Node labels and taints the platform owns. Object names and label keys are a public contract."""

from __future__ import annotations

DOMAIN = "gpu-platform.io"
POOL_LABEL = f"{DOMAIN}/pool"
ROLE_LABEL = f"{DOMAIN}/role"
DEVICE_MANAGEMENT_LABEL = f"{DOMAIN}/device-management"
DEVICE_MANAGEMENT_DRA = "dra"
DEVICE_MANAGEMENT_DEVICE_PLUGIN = "device-plugin"
ZONE_LABEL = "topology.kubernetes.io/zone"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
"""The label NVIDIA's MIG manager reads to partition a node's GPUs (``all-<profile>``)."""
DO_NOT_DISRUPT_ANNOTATION = "karpenter.sh/do-not-disrupt"

# Namespace labels the admission policies key on (set by the platform's Namespace objects).
TEAM_LABEL = f"{DOMAIN}/team"
GANG_MANAGED_LABEL = f"{DOMAIN}/gang-managed"
ELASTIC_ANNOTATION = f"{DOMAIN}/elastic"


def tier_grant_label(tier: str) -> str:
    """Namespace label granting a priority tier: ``gpu-platform.io/tier-deadline: allowed``."""
    return f"{DOMAIN}/tier-{tier}"
