"""Cluster Autoscaler as data: which image runs on which Kubernetes minor, and what it can scale.

Cluster Autoscaler's minor must equal the cluster's Kubernetes minor, and the latest patch of
that minor is the one to run (``cluster-autoscaler/README.md``, "Releases"). Rows say where
their facts come from:

- ``1.36.1`` is the newest release tag upstream (``cluster-autoscaler-1.36.1``, 2026-07-22;
  still the newest in the snapshot of 2026-08-22), checked: the platform's pin. On the 1.37
  cluster it runs one minor behind, a skew its README advises against; config refuses it unless
  ``cluster_autoscaler.acknowledge_version_skew`` is set, and synthesis warns.
- ``1.37.0`` is the release Kubernetes 1.37 wants. Branch ``cluster-autoscaler-release-1.37``
  exists upstream but had no tag in the material we read, so the row is an **assumption**
  (``verified=False``): config refuses it unless ``cluster_autoscaler.acknowledge_unverified_release``
  is set, and synthesis warns. Once the tag and its image exist, set ``verified=True`` here, move
  ``CLUSTER_AUTOSCALER_VERSION`` to it and drop the skew acknowledgements.

The chart (9.59.1) defaults to image v1.35.0, so the image tag is always set explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.pins import REFERENCE, ChartPin, ImagePin, chart_source, image_reference

CLUSTER_AUTOSCALER_CHART = "cluster-autoscaler"
CLUSTER_AUTOSCALER_CHART_VERSION = "9.59.1"
CLUSTER_AUTOSCALER_CHART_REPOSITORY = "https://kubernetes.github.io/autoscaler"
CLUSTER_AUTOSCALER_VERSION = "1.36.1"
"""Cluster Autoscaler image (the chart's default, v1.35.0, is overridden): the newest confirmed release,
one minor behind the 1.37 cluster until a 1.37.x is tagged upstream (the skew is acknowledged per
environment). What each release supports is ``CLUSTER_AUTOSCALER_RELEASES`` below."""
CLUSTER_AUTOSCALER_IMAGE = "registry.k8s.io/autoscaling/cluster-autoscaler"
CLUSTER_AUTOSCALER_RELEASE = "cluster-autoscaler"
CLUSTER_AUTOSCALER_NAMESPACE = "kube-system"
CLUSTER_AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
"""Set explicitly in the chart values: EKS Pod Identity binds the controller role to this name."""

CLUSTER_AUTOSCALER = ChartPin(
    CLUSTER_AUTOSCALER_CHART,
    CLUSTER_AUTOSCALER_CHART_REPOSITORY,
    CLUSTER_AUTOSCALER_CHART_VERSION,
    CLUSTER_AUTOSCALER_RELEASE,
    CLUSTER_AUTOSCALER_NAMESPACE,
)

RELEASES_URL = "https://github.com/kubernetes/autoscaler/releases"
"""Where a row is verified: a ``cluster-autoscaler-<version>`` tag and its image."""

SCALE_UP_DECISION_SECONDS = 30.0
"""Upper bound from pod marked unschedulable to the scale-up request on clusters under 100 nodes
(Cluster Autoscaler FAQ, "What are the Service Level Objectives for Cluster Autoscaler?")."""

NODE_READY_SECONDS = 900.0
"""From the scale-up request to a GPU node whose devices are allocatable: Cluster Autoscaler's own
figure. Its ``--max-node-provision-time`` defaults to 15 minutes (FAQ, "What are the parameters to
CA?"), and its GPU handling notes that a GPU machine can take up to 15 minutes after it becomes ready
before it reports its GPUs (``cluster-autoscaler/utils/gpu/gpu.go``). An upper figure, not a measured
median: no AWS document gives a typical launch time for p5-class nodes."""


@dataclass(frozen=True)
class ClusterAutoscalerRelease:
    """One Cluster Autoscaler release: its Kubernetes minor and whether the row was checked upstream."""

    version: str
    kubernetes_minor: str
    verified: bool

    @property
    def image_tag(self) -> str:
        return f"v{self.version}"

    def minors_behind(self, cluster_minor: str) -> int:
        """How many Kubernetes minors this release trails ``cluster_minor`` by (negative: it is newer)."""
        major, _, minor = cluster_minor.partition(".")
        own_major, _, own_minor = self.kubernetes_minor.partition(".")
        return (int(major) - int(own_major)) * 100 + int(minor) - int(own_minor)


MAX_MINORS_BEHIND = 1
"""The skew an acknowledgement can accept: a release one minor behind the cluster (the newest
confirmed release while the cluster's own minor has none), never older, never newer."""


CLUSTER_AUTOSCALER_RELEASES: dict[str, ClusterAutoscalerRelease] = {
    r.version: r
    for r in (
        ClusterAutoscalerRelease("1.36.1", "1.36", verified=True),
        # Assumed (see the module docstring): no 1.37 tag upstream yet.
        ClusterAutoscalerRelease("1.37.0", "1.37", verified=False),
    )
}

DISCOVERY_TAG_ENABLED = "k8s.io/cluster-autoscaler/enabled"
NODE_TEMPLATE_TAG = "k8s.io/cluster-autoscaler/node-template"
SAFE_TO_EVICT_ANNOTATION = "cluster-autoscaler.kubernetes.io/safe-to-evict"
"""``"false"`` on a pod: Cluster Autoscaler never removes the node it runs on (FAQ, "What types of pods
can prevent CA from removing a node?")."""
ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"
"""GPU node label that stops Cluster Autoscaler from scaling up again while a GPU node's devices are
still being published (AWS provider README, "Special note on GPU instances")."""


def discovery_tag(cluster_name: str) -> str:
    """The cluster's own auto-discovery tag; EKS puts it on every managed node group's Auto Scaling group."""
    return f"k8s.io/cluster-autoscaler/{cluster_name}"


_SOURCES = {
    "1.36.1": "upstream tag cluster-autoscaler-1.36.1 (https://github.com/kubernetes/autoscaler/releases/tag/"
    "cluster-autoscaler-1.36.1), the newest tag in the kubernetes/autoscaler snapshot of 2026-08-22 "
    f"({REFERENCE}/cluster-autoscaler-chart-9.59.1/PROVENANCE.md)",
}
_UNCONFIRMED = (
    "none: branch cluster-autoscaler-release-1.37 had no tag in the snapshot of 2026-08-22 "
    f"({REFERENCE}/cluster-autoscaler-chart-9.59.1/PROVENANCE.md)"
)

IMAGES: tuple[ImagePin, ...] = tuple(
    ImagePin(
        "Cluster Autoscaler",
        image_reference(CLUSTER_AUTOSCALER_IMAGE, release.image_tag),
        f"cluster-autoscaler-{release.version}",
        _SOURCES.get(release.version, _UNCONFIRMED),
        verified=release.verified and release.version in _SOURCES,
    )
    for release in CLUSTER_AUTOSCALER_RELEASES.values()
)
"""One image row per release (``catalog.images.IMAGES`` holds them)."""

CHARTS = (chart_source(CLUSTER_AUTOSCALER, f"{REFERENCE}/cluster-autoscaler-chart-9.59.1/Chart.yaml (version 9.59.1)"),)

CHART_API_GROUPS: dict[str, tuple[str, ...]] = {
    CLUSTER_AUTOSCALER_CHART: (),  # the ProvisioningRequest CRD is installed apart from the chart
}
