"""The trust policy of every controller role EKS Pod Identity binds (Karpenter, Cluster Autoscaler, the
Amazon Managed Service for Prometheus writer)."""

from __future__ import annotations

from typing import Any

VERSION = "2012-10-17"


def pod_identity_trust_policy() -> dict[str, Any]:
    """Trust of a controller role: EKS Pod Identity (``pods.eks.amazonaws.com``)."""
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "pods.eks.amazonaws.com"},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
            }
        ],
    }
