"""The trust policy of every controller role EKS Pod Identity binds (Karpenter, Cluster Autoscaler, the
Amazon Managed Service for Prometheus writer)."""

from __future__ import annotations

from typing import Any

from policy.iam.documents import policy_document


def pod_identity_trust_policy() -> dict[str, Any]:
    """Trust of a controller role: EKS Pod Identity (``pods.eks.amazonaws.com``)."""
    return policy_document(
        {
            "Effect": "Allow",
            "Principal": {"Service": "pods.eks.amazonaws.com"},
            "Action": ["sts:AssumeRole", "sts:TagSession"],
        }
    )
