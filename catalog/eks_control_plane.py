"""What the EKS 1.37 control plane serves: every gate of ``catalog.feature_gates``, and its API versions.

On EKS, AWS runs the API server, scheduler and controller manager; ``AWS::EKS::Cluster`` has no
feature-gate or runtime-config setting, and the control-plane configuration EKS offers is four
parameters (scheduler scoring, HPA sync period, event TTL, NodePort range). So a gate is on in an
EKS cluster only if AWS turns it on. This table is what the kit assumes of a plain EKS 1.37
cluster; validation refuses an environment that relies on more unless it acknowledges it
(``feature_gates.acknowledge_served_beyond_eks``), and ``make verify`` checks the live cluster
against it. Each row says where its answer comes from and when that was checked; a row that no
source confirms for 1.37 itself is marked ``assumed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.feature_gates import FEATURE_GATES, Stage

CHECKED = "2026-12-03"

VERSIONS_FAQ = (
    "EKS user guide, Kubernetes versions FAQ (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html): "
    "alpha features are not supported; new beta APIs that are off by default are not enabled"
)
CONTROL_PLANE_CONFIG = (
    "EKS user guide, control-plane configuration: scheduler scoring, HPA sync period, event TTL and NodePort "
    "range only; no feature gates, no runtime-config (aws/containers-roadmap #512, #2348 open)"
)
GA_RULE = "Kubernetes 1.37 feature-gate reference: a GA gate is locked on in every cluster"
BETA_ON_RULE = (
    "Kubernetes 1.37 feature-gate reference (beta, on by default) with the EKS Kubernetes versions FAQ "
    "(EKS leaves upstream defaults of enabled betas alone)"
)
TRACKING = "aws/containers-roadmap #2864 (EKS 1.37, opened 2026-08-28): no announcement of extra gates"


@dataclass(frozen=True)
class EksServedRow:
    """Whether EKS 1.37 turns one gate on, and why the kit believes so."""

    gate: str
    served: bool
    source: str
    assumed: bool = False
    """No source says this of EKS 1.37 itself: the answer follows EKS's general rule (``make verify`` confirms)."""
    checked: str = CHECKED


@dataclass(frozen=True)
class EksServedApi:
    """Whether EKS 1.37's API server serves one group/version."""

    api_version: str
    served: bool
    gate: str
    """The gate the group/version comes with."""
    source: str
    assumed: bool = False
    checked: str = CHECKED


def _row(gate: str) -> EksServedRow:
    spec = FEATURE_GATES[gate]
    if spec.stage is Stage.GA:
        return EksServedRow(gate, True, GA_RULE)
    if spec.stage is Stage.ALPHA:
        return EksServedRow(gate, False, f"{VERSIONS_FAQ}; {CONTROL_PLANE_CONFIG}")
    if spec.default:
        return EksServedRow(gate, True, BETA_ON_RULE, assumed=True)
    # Beta and off upstream. EKS made one exception before (the DRA beta API in 1.33), so the answer is
    # the general rule, not a statement about 1.37: assumed until AWS says otherwise.
    return EksServedRow(gate, False, f"{VERSIONS_FAQ}; {TRACKING}", assumed=True)


EKS_SERVED: dict[str, EksServedRow] = {
    name: _row(name) for name, gate in FEATURE_GATES.items() if gate.stage is not Stage.REMOVED
}
"""One row per gate of the registry (removed gates have none: config refuses them outright)."""

EKS_SERVED_APIS: dict[str, EksServedApi] = {
    version: EksServedApi(version, EKS_SERVED[name].served, name, EKS_SERVED[name].source, EKS_SERVED[name].assumed)
    for name, gate in FEATURE_GATES.items()
    if gate.stage is not Stage.REMOVED
    for version in gate.api_versions
}
"""API group/versions the gates bring (``scheduling.k8s.io/v1beta1`` with GenericWorkload, ...)."""


def served_by_eks(gate: str) -> bool:
    return EKS_SERVED[gate].served
