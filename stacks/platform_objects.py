"""Cluster-scoped platform objects (DeviceClasses, PriorityClasses, admission policies) on the cluster."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from policy.infrastructure.retention import holds_user_data
from stacks.jsii_types import as_icluster

PAYLOAD_LIMIT_BYTES = 262_144
"""The kubectl handler's custom-resource payload limit (Lambda's asynchronous invoke size)."""
PAYLOAD_BUDGET_BYTES = PAYLOAD_LIMIT_BYTES // 2
"""Keep each manifest well under the limit: CloudFormation adds its own envelope."""


def manifest_id(file_name: str) -> str:
    """``device-classes.yaml`` -> ``DeviceClasses``: construct ids are a public contract."""
    return "".join(part.capitalize() for part in file_name.removesuffix(".yaml").split("-"))


def apply_manifest(
    scope: Construct,
    construct_id: str,
    *,
    cluster: eks.Cluster,
    objects: Sequence[Mapping[str, Any]],
    what: str,
    retain_user_data: bool,
) -> eks.KubernetesManifest:
    """A kubectl manifest within the payload budget; one holding user data is never pruned nor deleted.

    Without prune, ``kubectl apply`` leaves an object that left the manifest in place; with
    ``RETAIN`` CloudFormation never sends the handler the ``Delete`` that runs ``kubectl delete``
    (stack deletion, a renamed construct), so removing a team leaves its namespace and jobs.
    ``retain_user_data`` is false only for ephemeral runs, whose cluster goes with the stack.
    """
    size = len(json.dumps(list(objects)))
    if size > PAYLOAD_BUDGET_BYTES:
        raise ValueError(
            f"{what}: manifest payload {size} bytes exceeds the {PAYLOAD_BUDGET_BYTES} byte budget; split it"
        )
    protected = holds_user_data(objects)
    return eks.KubernetesManifest(
        scope,
        construct_id,
        cluster=as_icluster(cluster),
        manifest=list(objects),
        overwrite=True,
        prune=False if protected else None,
        removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE if protected and retain_user_data else None,
    )


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
        retain_user_data: bool = True,
    ) -> None:
        super().__init__(scope, construct_id)
        for file_name, manifest in objects.items():
            resource = apply_manifest(
                self,
                manifest_id(file_name),
                cluster=cluster,
                objects=manifest,
                what=file_name,
                retain_user_data=retain_user_data,
            )
            if any(obj["kind"] == "DeviceClass" for obj in manifest):
                for driver in drivers:
                    resource.node.add_dependency(driver)
