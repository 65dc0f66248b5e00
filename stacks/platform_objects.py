"""Cluster-scoped platform objects (DeviceClasses, PriorityClasses, admission policies) on the cluster."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from stacks.jsii_types import as_icluster

PAYLOAD_LIMIT_BYTES = 262_144
"""The kubectl handler's custom-resource payload limit (Lambda's asynchronous invoke size)."""
PAYLOAD_BUDGET_BYTES = PAYLOAD_LIMIT_BYTES // 2
"""Keep each manifest well under the limit: CloudFormation adds its own envelope."""


def manifest_id(file_name: str) -> str:
    """``device-classes.yaml`` -> ``DeviceClasses``: construct ids are a public contract."""
    return "".join(part.capitalize() for part in file_name.removesuffix(".yaml").split("-"))


class PlatformObjects(Construct):
    """One kubectl manifest per concern; DeviceClasses wait for the DRA driver that serves them."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        objects: Mapping[str, Sequence[Mapping[str, Any]]],
        drivers: Sequence[IDependable],
    ) -> None:
        super().__init__(scope, construct_id)
        for file_name, manifest in objects.items():
            size = len(json.dumps(list(manifest)))
            if size > PAYLOAD_BUDGET_BYTES:
                raise ValueError(
                    f"{file_name}: manifest payload {size} bytes exceeds the {PAYLOAD_BUDGET_BYTES} "
                    "byte budget; split it into more files"
                )
            resource = eks.KubernetesManifest(
                self,
                manifest_id(file_name),
                cluster=as_icluster(cluster),
                manifest=list(manifest),
                overwrite=True,
            )
            if any(obj["kind"] == "DeviceClass" for obj in manifest):
                for driver in drivers:
                    resource.node.add_dependency(driver)
