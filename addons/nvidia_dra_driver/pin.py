"""The NVIDIA DRA driver and the NVIDIA device plugin as data: chart and image pins, their sources.

The DRA driver (``dra-driver-nvidia-gpu``) publishes GPUs as DRA devices on DRA pools; the device plugin
(``nvidia-device-plugin``) advertises ``nvidia.com/gpu`` on legacy pools. Both install into one namespace.
"""

from __future__ import annotations

from catalog.pins import REFERENCE, ChartPin, ImagePin, chart_source, image_reference

DRA_DRIVER_CHART = "dra-driver-nvidia-gpu"
DRA_DRIVER_CHART_VERSION = "0.4.1"
DRA_DRIVER_CHART_REPOSITORY = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
DRA_DRIVER_NAMESPACE = "nvidia"
DRA_DRIVER_RELEASE = "dra-driver-nvidia-gpu"
DRA_DRIVER_IMAGE = "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu"
DRA_DRIVER_IMAGE_TAG = f"v{DRA_DRIVER_CHART_VERSION}"
"""The chart's default: ``image.tag`` empty means ``v`` + its appVersion (the chart's ``values.yaml``)."""

NVIDIA_DEVICE_PLUGIN_CHART = "nvidia-device-plugin"
NVIDIA_DEVICE_PLUGIN_CHART_VERSION = "0.18.2"
NVIDIA_DEVICE_PLUGIN_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"
NVIDIA_DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin"
NVIDIA_DEVICE_PLUGIN_IMAGE_TAG = f"v{NVIDIA_DEVICE_PLUGIN_CHART_VERSION}"
"""The chart's default (its appVersion)."""

DRA_DRIVER = ChartPin(
    DRA_DRIVER_CHART, DRA_DRIVER_CHART_REPOSITORY, DRA_DRIVER_CHART_VERSION, DRA_DRIVER_RELEASE, DRA_DRIVER_NAMESPACE
)
NVIDIA_DEVICE_PLUGIN = ChartPin(
    NVIDIA_DEVICE_PLUGIN_CHART,
    NVIDIA_DEVICE_PLUGIN_REPOSITORY,
    NVIDIA_DEVICE_PLUGIN_CHART_VERSION,
    NVIDIA_DEVICE_PLUGIN_CHART,
    DRA_DRIVER_NAMESPACE,
)

IMAGES: tuple[ImagePin, ...] = (
    ImagePin(
        "NVIDIA DRA driver (controller and kubelet plugin)",
        image_reference(DRA_DRIVER_IMAGE, DRA_DRIVER_IMAGE_TAG),
        f"dra-driver-nvidia-gpu v{DRA_DRIVER_CHART_VERSION}",
        f"{REFERENCE}/dra-driver-nvidia-gpu-v0.4.1/chart-values.yaml (image.repository; an empty tag is v + the "
        "chart's appVersion) and the upstream release tag v0.4.1 (764900e7, 2026-06-30; "
        f"{REFERENCE}/dra-driver-nvidia-gpu-resourceslices/PROVENANCE.md)",
        verified=True,
    ),
    ImagePin(
        "NVIDIA device plugin",
        image_reference(NVIDIA_DEVICE_PLUGIN_IMAGE, NVIDIA_DEVICE_PLUGIN_IMAGE_TAG),
        f"nvidia-device-plugin chart {NVIDIA_DEVICE_PLUGIN_CHART_VERSION}",
        "stored third-party pins of nvcr.io/nvidia/k8s-device-plugin:v0.18.2 (one by digest sha256:b5788e29e7ae..., "
        "one of AKS's mirror mcr.microsoft.com/oss/v2/nvidia/k8s-device-plugin:v0.18.2) and of the upstream tag "
        "v0.18.2's static manifest; older stored copies of NVIDIA/k8s-device-plugin's chart show the repository and "
        "that the tag is the chart's appVersion",
        verified=True,
    ),
)

CHARTS = (
    chart_source(
        DRA_DRIVER,
        f"{REFERENCE}/dra-driver-nvidia-gpu-v0.4.1/chart-values.yaml and AWS's install (--version 0.4.1)",
    ),
    chart_source(
        NVIDIA_DEVICE_PLUGIN,
        f"none: no stored source shows the chart nvidia-device-plugin {NVIDIA_DEVICE_PLUGIN_CHART_VERSION} "
        "itself (its image is confirmed)",
        verified=False,
    ),
)

CHART_API_GROUPS: dict[str, tuple[str, ...]] = {
    DRA_DRIVER_CHART: ("resource.nvidia.com",),
    NVIDIA_DEVICE_PLUGIN_CHART: (),
}
