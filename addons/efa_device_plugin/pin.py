"""The EFA device plugin as data: its chart and image pins, their sources, and the per-Region image.

The chart's default image lives in us-west-2's EKS registry; the platform pulls the same release from the
cluster's own Region's EKS registry (``catalog/regions.py`` has one per Region). The EFA facts of each
instance type are not the plug-in's: they stay in ``catalog/efa.py``.
"""

from __future__ import annotations

from catalog.pins import REFERENCE, ChartPin, ImagePin, chart_source, image_reference

EFA_DEVICE_PLUGIN_CHART = "aws-efa-k8s-device-plugin"
EFA_DEVICE_PLUGIN_CHART_VERSION = "v0.5.30"
EFA_DEVICE_PLUGIN_CHART_REPOSITORY = "https://aws.github.io/eks-charts"
EFA_DEVICE_PLUGIN_NAMESPACE = "kube-system"
EFA_DEVICE_PLUGIN_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin"
"""The chart's default image, in us-west-2's EKS registry (private ECR: pulling it needs AWS credentials)."""
EFA_DEVICE_PLUGIN_IMAGE_TAG = "v0.5.20"
"""The chart's default tag (its appVersion; chart v0.5.30)."""

EFA_DEVICE_PLUGIN = ChartPin(
    EFA_DEVICE_PLUGIN_CHART,
    EFA_DEVICE_PLUGIN_CHART_REPOSITORY,
    EFA_DEVICE_PLUGIN_CHART_VERSION,
    EFA_DEVICE_PLUGIN_CHART,
    EFA_DEVICE_PLUGIN_NAMESPACE,
)

EFA_DEVICE_PLUGIN_REPOSITORY = "eks/aws-efa-k8s-device-plugin"
"""Repository of the EFA device plugin image inside each Region's EKS registry (the chart's default
``image.repository`` is ``602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin``)."""

IMAGES: tuple[ImagePin, ...] = (
    ImagePin(
        "EFA device plugin (chart default, us-west-2)",
        image_reference(EFA_DEVICE_PLUGIN_IMAGE, EFA_DEVICE_PLUGIN_IMAGE_TAG),
        f"aws-efa-k8s-device-plugin chart {EFA_DEVICE_PLUGIN_CHART_VERSION}",
        f"{REFERENCE}/aws-efa-k8s-device-plugin-v0.5.30/values.yaml (image.repository, tag v0.5.20)",
        verified=True,
    ),
)
"""The chart default's row; ``regional_efa_pin`` extends it to every Region's EKS registry."""

CHARTS = (
    chart_source(EFA_DEVICE_PLUGIN, f"{REFERENCE}/aws-efa-k8s-device-plugin-v0.5.30/Chart.yaml (version v0.5.30)"),
)

CHART_API_GROUPS: dict[str, tuple[str, ...]] = {EFA_DEVICE_PLUGIN_CHART: ()}

_EFA_DEFAULT = IMAGES[0]
_EFA_PATH = "/" + EFA_DEVICE_PLUGIN_IMAGE.split("/", 1)[1]


def regional_efa_pin(image: str) -> ImagePin | None:
    """The EFA device plugin row for the same release in another region's EKS registry
    (``<account>.dkr.ecr.<region>.amazonaws.com/eks/aws-efa-k8s-device-plugin:<the pinned tag>``): the
    EKS registries carry the same images per region, so the chart default's row holds for it."""
    registry, _, rest = image.partition("/")
    parts = registry.split(".")
    if len(parts) != 6 or parts[1:3] != ["dkr", "ecr"] or f"/{rest}" != f"{_EFA_PATH}:{_EFA_DEFAULT.tag}":
        return None
    if image == _EFA_DEFAULT.image:
        return _EFA_DEFAULT
    return ImagePin(
        f"EFA device plugin ({parts[3]})",
        image,
        _EFA_DEFAULT.release,
        f"{_EFA_DEFAULT.source}, the same release in the EKS registry of {parts[3]}",
        verified=_EFA_DEFAULT.verified,
    )
