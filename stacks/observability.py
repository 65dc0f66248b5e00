"""Gang observability on the cluster: the exporter image, its Kubernetes objects, an optional AMP workspace."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from aws_cdk import aws_aps as aps
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from catalog.instances import INSTANCE_TYPES
from charts.observability import environment_objects, is_operator_object
from config.model import EnvironmentConfig
from stacks.jsii_types import as_icluster
from stacks.platform_objects import PAYLOAD_BUDGET_BYTES, PlatformObjects, manifest_id

EXPORTER_DIR = Path(__file__).resolve().parent.parent / "exporter"
"""Docker build context of the gang exporter (``exporter/Dockerfile``)."""
IMAGE_EXCLUDES = ("**/__pycache__", "**/*.pyc", "README.md")
"""Files that must not change the image hash: bytecode left by tests, and docs."""


class GangObservabilityDeployment(Construct):
    """Builds the exporter image asset and deploys ``charts.observability`` objects with its URI.

    Two kubectl manifests: ``Exporter`` (the built-in kinds: Namespace when observability owns
    it, RBAC, Deployment, Service, dashboard ConfigMap) after the platform Namespaces, and
    ``Monitoring`` (ServiceMonitors, PrometheusRule) after it, only with
    ``prometheus_operator``. With ``managed_prometheus``, an Amazon Managed Service for
    Prometheus workspace (AWS-owned key; stack tags) and its id and remote-write URL as
    stack outputs.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        env: EnvironmentConfig,
        platform_objects: PlatformObjects,
    ) -> None:
        super().__init__(scope, construct_id)
        config = env.observability
        self.image = ecr_assets.DockerImageAsset(
            self,
            "ExporterImage",
            directory=str(EXPORTER_DIR),
            exclude=list(IMAGE_EXCLUDES),
            platform=_image_platform(env),
        )
        objects = environment_objects(env, image=self.image.image_uri)
        self.exporter = _manifest(self, "Exporter", cluster, [o for o in objects if not is_operator_object(o)])
        namespaces = platform_objects.node.try_find_child(manifest_id("namespaces.yaml"))
        if namespaces is not None:
            self.exporter.node.add_dependency(namespaces)
        self.monitoring: eks.KubernetesManifest | None = None
        if config.prometheus_operator:
            self.monitoring = _manifest(self, "Monitoring", cluster, [o for o in objects if is_operator_object(o)])
            self.monitoring.node.add_dependency(self.exporter)
        self.workspace: aps.CfnWorkspace | None = None
        if config.managed_prometheus:
            self.workspace = aps.CfnWorkspace(self, "Workspace", alias=f"{env.cluster.name}-gang-metrics")
            self.workspace.apply_removal_policy(RemovalPolicy.RETAIN if env.long_lived else RemovalPolicy.DESTROY)
            stack = Stack.of(self)
            CfnOutput(
                stack,
                "ManagedPrometheusWorkspaceId",
                value=self.workspace.attr_workspace_id,
                description="Amazon Managed Service for Prometheus workspace for the gang metrics",
            )
            CfnOutput(
                stack,
                "ManagedPrometheusRemoteWriteUrl",
                value=f"{self.workspace.attr_prometheus_endpoint}api/v1/remote_write",
                description="Point Prometheus remote_write here (SigV4, region of the stack)",
            )


def _image_platform(env: EnvironmentConfig) -> ecr_assets.Platform:
    """The exporter runs on the system nodes: build for their architecture."""
    architectures = {INSTANCE_TYPES[name].architecture for name in env.system_nodes.instance_types}
    return ecr_assets.Platform.LINUX_ARM64 if architectures == {"arm64"} else ecr_assets.Platform.LINUX_AMD64


def _manifest(
    scope: Construct, construct_id: str, cluster: eks.Cluster, objects: Sequence[Mapping[str, Any]]
) -> eks.KubernetesManifest:
    size = len(json.dumps(list(objects)))
    if size > PAYLOAD_BUDGET_BYTES:
        raise ValueError(
            f"observability {construct_id}: manifest payload {size} bytes exceeds the {PAYLOAD_BUDGET_BYTES} "
            "byte budget; split it"
        )
    return eks.KubernetesManifest(
        scope, construct_id, cluster=as_icluster(cluster), manifest=list(objects), overwrite=True
    )
