"""Karpenter as data: which release runs on which Kubernetes minor, with or without DRA.

The compatibility table is what ``config`` checks an environment against (Kubernetes x
Karpenter x DRA). Rows say where their facts come from:

- ``1.14.1`` is the release copied into ``shared/reference/karpenter-v1.14.1`` (CRDs, chart
  values, IAM set-up), checked: the platform's pin, the newest release a source confirms. Its
  upstream compatibility table stops at Kubernetes 1.36, so on the 1.37 cluster config refuses
  it unless ``karpenter.acknowledge_unsupported_kubernetes`` is set (synthesis warns), and its
  chart knows only ``settings.ignoreDRARequests``: it cannot provision for DRA claims, so config
  refuses DRA on its pools (they use the device plugin, as ``karpenter-example``'s do).
- ``1.15.0``: AWS documents DRA-aware provisioning from Karpenter 1.15 behind
  ``settings.enableDRA`` (alpha), and static capacity with DRA, but no release or chart of it
  was seen, and that it runs on Kubernetes 1.37 is an **assumption** (one minor more than 1.14,
  as every recent Karpenter minor added one). The row stays ``verified=False``: config refuses it
  unless the environment sets ``karpenter.acknowledge_unverified_release: true``, synthesis
  warns, and no shipped environment may do so (``tests/catalog/test_images.py``). Once the release
  and the upstream compatibility matrix (``COMPATIBILITY_MATRIX_URL``) confirm it, set
  ``verified=True``, move ``KARPENTER_VERSION`` to it and give Karpenter pools DRA again.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.instances import GpuModel
from catalog.pins import REFERENCE, ChartPin, ChartSource, ImagePin, chart_source, image_reference

KARPENTER_VERSION = "1.14.1"
"""Karpenter controller and CRD charts (one version for both): the newest confirmed release (the
reference copy's). What it supports, and why not the unconfirmed 1.15.0, is ``KARPENTER_RELEASES`` below."""
KARPENTER_CHART_REPOSITORY = "oci://public.ecr.aws/karpenter/karpenter"
KARPENTER_CRD_CHART_REPOSITORY = "oci://public.ecr.aws/karpenter/karpenter-crd"
KARPENTER_RELEASE = "karpenter"
"""Must be ``karpenter``: it names the service account that EKS Pod Identity binds to."""
KARPENTER_NAMESPACE = "kube-system"
KARPENTER_CONTROLLER_IMAGE = "public.ecr.aws/karpenter/controller"
"""The chart's default image; its tag is the chart version (``controller.image.tag``)."""
KARPENTER_AMI_RELEASE = "v20260930"
"""amazon-eks-ami release behind the ``al2023@<release>`` alias of Karpenter GPU nodes. The alias
resolves per Kubernetes minor and architecture (the NVIDIA variant for GPU types); an
EC2NodeClass reports ``AMIsReady=False`` when the release has no AMI for the cluster's minor."""
KARPENTER_NODEPOOL_API_VERSION = "karpenter.sh/v1"
KARPENTER_NODECLASS_API_VERSION = "karpenter.k8s.aws/v1"

COMPATIBILITY_MATRIX_URL = "https://karpenter.sh/docs/upgrading/compatibility/"
"""Upstream's table of Kubernetes minors per Karpenter release: where a row is verified."""


def minor_tuple(minor: str) -> tuple[int, int]:
    """``"1.37"`` -> ``(1, 37)``, for comparing Kubernetes minors."""
    major, _, rest = minor.partition(".")
    return int(major), int(rest.split(".", 1)[0])


@dataclass(frozen=True)
class KarpenterRelease:
    """One Karpenter release: the Kubernetes minors it supports and whether it provisions for DRA."""

    version: str
    kubernetes_min: str
    kubernetes_max: str
    dra: bool
    verified: bool
    """True when the row was checked against upstream material (the reference copy or docs); an
    unverified row needs ``karpenter.acknowledge_unverified_release`` and synthesis warns."""
    chart_settings_added: tuple[str, ...] = ()
    """``settings.*`` chart keys this release has beyond the reference copy's ``values.yaml``."""

    def supports_kubernetes(self, minor: str) -> bool:
        return minor_tuple(self.kubernetes_min) <= minor_tuple(minor) <= minor_tuple(self.kubernetes_max)

    @property
    def row(self) -> str:
        """What the row claims, for messages: ``Karpenter 1.15.0 (Kubernetes 1.29-1.37, DRA)``."""
        dra = "DRA" if self.dra else "no DRA"
        return f"Karpenter {self.version} (Kubernetes {self.kubernetes_min}-{self.kubernetes_max}, {dra})"


KARPENTER_RELEASES: dict[str, KarpenterRelease] = {
    r.version: r
    for r in (
        KarpenterRelease("1.14.1", "1.29", "1.36", dra=False, verified=True),
        # Assumed range (see the module docstring): 1.15 adds Kubernetes 1.37.
        KarpenterRelease("1.15.0", "1.29", "1.37", dra=True, verified=False, chart_settings_added=("enableDRA",)),
    )
}


@dataclass(frozen=True)
class InterruptionEvent:
    """One EventBridge rule feeding the interruption queue (as in Karpenter's getting-started template)."""

    construct_id: str
    source: str
    detail_type: str


INTERRUPTION_EVENTS: tuple[InterruptionEvent, ...] = (
    InterruptionEvent("ScheduledChangeRule", "aws.health", "AWS Health Event"),
    InterruptionEvent("SpotInterruptionRule", "aws.ec2", "EC2 Spot Instance Interruption Warning"),
    InterruptionEvent("RebalanceRule", "aws.ec2", "EC2 Instance Rebalance Recommendation"),
    InterruptionEvent("InstanceStateChangeRule", "aws.ec2", "EC2 Instance State-change Notification"),
    InterruptionEvent(
        "CapacityReservationInterruptionRule", "aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"
    ),
)
"""Exact detail-type strings matter: a misspelt one matches nothing and silently drops interruptions."""

KARPENTER_GPU_NAMES: dict[GpuModel, str] = {
    GpuModel.A100_40GB: "a100",
    GpuModel.A100_80GB: "a100",
    GpuModel.A10G: "a10g",
    GpuModel.L4: "l4",
    GpuModel.L40S: "l40s",
    GpuModel.H100_80GB: "h100",
    GpuModel.H200: "h200",
    GpuModel.B200: "b200",
}
"""Values of the ``karpenter.k8s.aws/instance-gpu-name`` label: EC2's GPU name, lower-cased."""

KUBERNETES_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
"""EC2 architecture -> ``kubernetes.io/arch``."""


_KARPENTER_SOURCES = {
    "1.14.1": f"{REFERENCE}/karpenter-v1.14.1/chart-values.yaml (controller.image: public.ecr.aws/karpenter/"
    "controller, tag 1.14.1)",
}
_KARPENTER_UNCONFIRMED = (
    "none: AWS documentation describes Karpenter 1.15 (settings.enableDRA), but no stored release or chart shows it"
)

IMAGES: tuple[ImagePin, ...] = tuple(
    ImagePin(
        "Karpenter controller",
        image_reference(KARPENTER_CONTROLLER_IMAGE, release.version),
        f"karpenter v{release.version}",
        _KARPENTER_SOURCES.get(release.version, _KARPENTER_UNCONFIRMED),
        verified=release.verified and release.version in _KARPENTER_SOURCES,
    )
    for release in KARPENTER_RELEASES.values()
)
"""One image row per release (``catalog.images.IMAGES`` holds them)."""


def karpenter_charts(version: str) -> tuple[ChartSource, ChartSource]:
    """The controller and CRD charts of Karpenter ``version`` (one version for both)."""
    confirmed = version in _KARPENTER_SOURCES and KARPENTER_RELEASES[version].verified
    source = (
        f"{REFERENCE}/karpenter-v{version}/ (chart values and CRDs of release v{version})"
        if confirmed
        else _KARPENTER_UNCONFIRMED
    )

    def chart(name: str, repository: str, release: str) -> ChartSource:
        pin = ChartPin(name, repository, version, release, KARPENTER_NAMESPACE)
        return chart_source(pin, source, verified=confirmed)

    return (
        chart("karpenter-crd", KARPENTER_CRD_CHART_REPOSITORY, "karpenter-crd"),
        chart("karpenter", KARPENTER_CHART_REPOSITORY, KARPENTER_RELEASE),
    )


CHARTS = karpenter_charts(KARPENTER_VERSION)
"""The CRD and controller charts at the pinned version."""

CHART_API_GROUPS: dict[str, tuple[str, ...]] = {
    "karpenter-crd": ("karpenter.k8s.aws", "karpenter.sh"),
    "karpenter": ("karpenter.k8s.aws", "karpenter.sh"),
}
