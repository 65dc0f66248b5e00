"""A pinned Helm release on the cluster, from its ``catalog.pins.ChartPin``."""

from __future__ import annotations

from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from catalog.pins import ChartPin
from stacks.jsii_types import as_icluster


def pinned_chart(
    scope: Construct,
    construct_id: str,
    *,
    cluster: eks.Cluster,
    pin: ChartPin,
    values: dict[str, Any],
    create_namespace: bool | None = None,
    wait_timeout: Duration | None = None,
) -> eks.HelmChart:
    """``pin``'s release with ``values``; ``wait_timeout`` makes the deployment wait for it to be ready."""
    return eks.HelmChart(
        scope,
        construct_id,
        cluster=as_icluster(cluster),
        chart=pin.chart,
        repository=pin.repository,
        version=pin.version,
        release=pin.release,
        namespace=pin.namespace,
        create_namespace=create_namespace,
        values=values,
        wait=True if wait_timeout is not None else None,
        timeout=wait_timeout,
    )
