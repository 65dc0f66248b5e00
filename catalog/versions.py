"""Every pinned version in one place.

Bumping one of these is a reviewed change: the golden files and the tests that
read the reference copies in ``../shared/reference`` show what moved.
"""

from __future__ import annotations

KUBERNETES_MINOR = "1.37"
"""EKS control-plane version. ``aws_eks_v2.KubernetesVersion`` stops at 1.36, so
the stack builds it with ``KubernetesVersion.of``."""

DRA_DRIVER_CHART = "dra-driver-nvidia-gpu"
DRA_DRIVER_CHART_VERSION = "0.4.1"
DRA_DRIVER_CHART_REPOSITORY = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
DRA_DRIVER_NAMESPACE = "nvidia"
DRA_DRIVER_RELEASE = "dra-driver-nvidia-gpu"

NVIDIA_DEVICE_PLUGIN_CHART = "nvidia-device-plugin"
NVIDIA_DEVICE_PLUGIN_CHART_VERSION = "0.18.2"
NVIDIA_DEVICE_PLUGIN_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"

RESOURCE_API_VERSION = "resource.k8s.io/v1"
SCHEDULING_API_VERSION = "scheduling.k8s.io/v1beta1"
COMPOSITE_POD_GROUP_API_VERSION = "scheduling.k8s.io/v1alpha3"
NODEADM_API_VERSION = "node.eks.aws/v1alpha1"
