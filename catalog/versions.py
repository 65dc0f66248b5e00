"""Every pinned version no add-on folder owns (``addons/<name>/pin.py`` holds the rest).

Bumping one of these is a reviewed change: the golden files and the tests that
read the reference copies in ``../shared/reference`` show what moved.
"""

from __future__ import annotations

import addons

KUBERNETES_MINOR = "1.37"
"""EKS control-plane version. ``aws_eks_v2.KubernetesVersion`` stops at 1.36, so
the stack builds it with ``KubernetesVersion.of``."""

RESOURCE_API_VERSION = "resource.k8s.io/v1"
SCHEDULING_API_VERSION = "scheduling.k8s.io/v1beta1"
COMPOSITE_POD_GROUP_API_VERSION = "scheduling.k8s.io/v1alpha3"
NODEADM_API_VERSION = "node.eks.aws/v1alpha1"

SMOKE_TEST_IMAGE = "registry.k8s.io/pause:3.10"
"""What the smoke test's gang pods and the gate probes run: they only need to be scheduled and hold their GPU."""

EXPORTER_BASE_IMAGE = "docker.io/library/python:3.11-slim"
"""Base image of the gang exporter (``exporter/Dockerfile``'s ``FROM``, written there as ``python:3.11-slim``)."""

CHART_API_GROUPS: dict[str, tuple[str, ...]] = {
    chart: groups for pin in addons.pins() for chart, groups in getattr(pin, "CHART_API_GROUPS", {}).items()
}
"""API groups whose CRDs each chart installs (from its ``crds/`` folder or templates), one row per chart,
assembled from every add-on's ``pin.CHART_API_GROUPS``.

The API-before-use check (``policy.checks.api_order``) reads this: an object of one of these groups may be
applied only after a release of the chart, and a chart without a row fails the check. A release
installed with ``skip_crds`` provides nothing (the Karpenter controller: its CRDs come from
``karpenter-crd``)."""
