"""Acknowledged risks: legal but risky choices an environment has acknowledged, said again at synth.

Config refuses each of these unless its ``acknowledge_*`` setting is true; once acknowledged, the
environment synthesizes, and every synthesis says what was accepted. ``make synth`` prints each
as one ``warning:`` line; the stacks add the same text as a CDK warning with the same id on the
construct it concerns, for ``cdk synth``/``cdk deploy``, which print CDK warnings themselves
(``make synth`` leaves those out: ``cli.cdk_messages``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from addons.cluster_autoscaler.pin import CLUSTER_AUTOSCALER_RELEASES
from addons.karpenter.plan import karpenter_release, uses_karpenter
from catalog import versions
from config.model import EnvironmentConfig
from policy.infrastructure.node_pools import autoscaled_pools


class Acknowledgement(StrEnum):
    """The acknowledgement ids, as CDK warning ids (``[ack: <id>]``): ``gpu-platform:`` and the setting
    that acknowledges the risk. The CDK CLI ends each warning with "Acknowledge with
    'Annotation::<id>'", so the hint it prints names the environment file's setting."""

    PUBLIC_ENDPOINT_OPEN_TO_INTERNET = "gpu-platform:cluster.acknowledge_public_endpoint_open_to_internet"
    KARPENTER_UNSUPPORTED_KUBERNETES = "gpu-platform:karpenter.acknowledge_unsupported_kubernetes"
    KARPENTER_UNVERIFIED_RELEASE = "gpu-platform:karpenter.acknowledge_unverified_release"
    CLUSTER_AUTOSCALER_UNVERIFIED_RELEASE = "gpu-platform:cluster_autoscaler.acknowledge_unverified_release"
    CLUSTER_AUTOSCALER_VERSION_SKEW = "gpu-platform:cluster_autoscaler.acknowledge_version_skew"

    @property
    def setting(self) -> str:
        """The environment file's setting that acknowledges the risk."""
        return self.value.removeprefix("gpu-platform:")


UNVERIFIED_RELEASES = frozenset(
    {Acknowledgement.KARPENTER_UNVERIFIED_RELEASE, Acknowledgement.CLUSTER_AUTOSCALER_UNVERIFIED_RELEASE}
)
"""Acknowledgements of a release no source confirms: a shipped environment may carry none of them."""


@dataclass(frozen=True)
class AcknowledgedRisk:
    """One acknowledged risk in use: which acknowledgement, the config field it concerns, what it accepts."""

    acknowledgement: Acknowledgement
    field: str
    risk: str
    """What is deployed anyway, and which setting acknowledges it."""

    @property
    def text(self) -> str:
        """The one line ``make synth`` prints after ``warning:``, and the CDK warning's message."""
        return f"{self.field}: {self.risk}"


def _because(setting: str) -> str:
    return f"deploying it anyway because {setting} is true"


def endpoint_risks(env: EnvironmentConfig) -> list[AcknowledgedRisk]:
    """A public API server endpoint open to every address (``0.0.0.0/0``), acknowledged."""
    cluster = env.cluster
    open_ranges = cluster.internet_open_ranges
    if not open_ranges or not cluster.acknowledge_public_endpoint_open_to_internet:
        return []
    return [
        AcknowledgedRisk(
            Acknowledgement.PUBLIC_ENDPOINT_OPEN_TO_INTERNET,
            "cluster.public_access_cidrs",
            f"the API server endpoint of {cluster.name} is open to every address on the internet "
            f"({', '.join(open_ranges)}); {_because('cluster.acknowledge_public_endpoint_open_to_internet')}",
        )
    ]


def karpenter_risks(env: EnvironmentConfig) -> list[AcknowledgedRisk]:
    """The Karpenter release outside its Kubernetes range, or with an unverified compatibility row,
    acknowledged; nothing when no pool uses Karpenter."""
    if not uses_karpenter(env):
        return []
    release = karpenter_release(env)
    risks = []
    if not release.supports_kubernetes(versions.KUBERNETES_MINOR):
        risks.append(
            AcknowledgedRisk(
                Acknowledgement.KARPENTER_UNSUPPORTED_KUBERNETES,
                "karpenter.version",
                f"Karpenter {release.version} supports Kubernetes {release.kubernetes_min}-{release.kubernetes_max}, "
                f"not {versions.KUBERNETES_MINOR}; {_because('karpenter.acknowledge_unsupported_kubernetes')}",
            )
        )
    if not release.verified:
        risks.append(
            AcknowledgedRisk(
                Acknowledgement.KARPENTER_UNVERIFIED_RELEASE,
                "karpenter.version",
                f"the compatibility row {release.row} is an assumption, not verified against upstream; "
                f"{_because('karpenter.acknowledge_unverified_release')}",
            )
        )
    return risks


def cluster_autoscaler_risks(env: EnvironmentConfig) -> list[AcknowledgedRisk]:
    """The Cluster Autoscaler release one minor behind the cluster, or whose row is unverified,
    acknowledged; nothing when no pool is autoscaled (Cluster Autoscaler is then not installed)."""
    if not autoscaled_pools(env):
        return []
    release = CLUSTER_AUTOSCALER_RELEASES[env.cluster_autoscaler.version]
    risks = []
    if release.minors_behind(versions.KUBERNETES_MINOR):
        risks.append(
            AcknowledgedRisk(
                Acknowledgement.CLUSTER_AUTOSCALER_VERSION_SKEW,
                "cluster_autoscaler.version",
                f"Cluster Autoscaler {release.version} is built for Kubernetes {release.kubernetes_minor} and runs on "
                f"the cluster's {versions.KUBERNETES_MINOR}, although its minor should match the cluster's (no "
                f"{versions.KUBERNETES_MINOR}.x release is confirmed); "
                f"{_because('cluster_autoscaler.acknowledge_version_skew')}",
            )
        )
    if not release.verified:
        risks.append(
            AcknowledgedRisk(
                Acknowledgement.CLUSTER_AUTOSCALER_UNVERIFIED_RELEASE,
                "cluster_autoscaler.version",
                f"the row Cluster Autoscaler {release.version} (Kubernetes {release.kubernetes_minor}) of "
                "addons/cluster_autoscaler/pin.py is an assumption, not verified against upstream; "
                f"{_because('cluster_autoscaler.acknowledge_unverified_release')}",
            )
        )
    return risks


def acknowledged_risks(env: EnvironmentConfig) -> list[AcknowledgedRisk]:
    """Every acknowledged risk ``env`` deploys, in a fixed order: endpoint, Karpenter, Cluster Autoscaler."""
    return [*endpoint_risks(env), *karpenter_risks(env), *cluster_autoscaler_risks(env)]
