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


# What kubelet accepts in --node-labels (managed node groups pass a pool's labels to it; Karpenter's
# NodePool CRD applies the same rule). Kubernetes "kubelet" reference, --node-labels, checked 2026-12-03:
# "Labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io,
# node.kubernetes.io) or be in the specifically allowed set (beta.kubernetes.io/arch,
# beta.kubernetes.io/instance-type, beta.kubernetes.io/os, failure-domain.beta.kubernetes.io/region,
# failure-domain.beta.kubernetes.io/zone, kubernetes.io/arch, kubernetes.io/hostname, kubernetes.io/os,
# node.kubernetes.io/instance-type, topology.kubernetes.io/region, topology.kubernetes.io/zone)". The
# kubelet's code (pkg/kubelet/apis/well_known_labels.go) treats k8s.io and its subdomains as the same
# reserved namespace, with no prefix allowed.
KUBELET_NODE_LABELS_DOC = "https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/"
RESERVED_LABEL_DOMAINS = ("kubernetes.io", "k8s.io")
KUBELET_LABEL_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
KUBELET_SET_LABELS = frozenset(
    {
        "beta.kubernetes.io/arch",
        "beta.kubernetes.io/instance-type",
        "beta.kubernetes.io/os",
        "failure-domain.beta.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "kubernetes.io/arch",
        "kubernetes.io/hostname",
        "kubernetes.io/os",
        "node.kubernetes.io/instance-type",
        "topology.kubernetes.io/region",
        "topology.kubernetes.io/zone",
    }
)
"""The allowed set: kubelet and the cloud provider set these from the node itself, so a pool that sets one
either repeats what they say or mislabels its nodes."""
KARPENTER_LABEL_DOMAINS = ("karpenter.sh", "karpenter.k8s.aws")
"""Karpenter's NodePool CRD refuses template labels in these domains ("label domain ... is restricted")."""

EKS_NODEGROUP_API = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"
"""EKS CreateNodegroup (checked 2026-12-03): label keys and values of 1-63 characters; taints (API_Taint)
with keys of 1-63 characters and values of at most 63, at most 50 taints per node group."""
EKS_LABEL_CHARACTERS = 63
EKS_TAINTS_PER_NODE_GROUP = 50
