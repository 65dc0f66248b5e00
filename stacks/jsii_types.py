"""Typing shims for jsii classes whose Python stubs under-declare their interfaces."""

from __future__ import annotations

from typing import cast

from aws_cdk import aws_eks_v2 as eks


def as_icluster(cluster: eks.Cluster) -> eks.ICluster:
    """``Cluster`` implements ``ICluster``; the generated stubs miss ``kubectl_provider_options``."""
    return cast(eks.ICluster, cluster)
