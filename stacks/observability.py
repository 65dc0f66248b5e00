"""Gang observability on the cluster: the exporter image, its Kubernetes objects, an optional AMP workspace."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from aws_cdk import aws_aps as aps
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IConstruct

from addons.kube_prometheus_stack.construct import PrometheusMonitoring
from addons.kube_prometheus_stack.values import scheduler_metrics_binding
from catalog.instances import INSTANCE_TYPES
from config.model import EnvironmentConfig
from config.observability import PrometheusMode
from observability.manifests import is_operator_object, with_exporter_image
from stacks.platform_objects import PlatformObjects, apply_manifest, manifest_id

EXPORTER_DIR = Path(__file__).resolve().parent.parent / "exporter"
"""Docker build context of the gang exporter (``exporter/Dockerfile``)."""
IMAGE_EXCLUDES = ("**/__pycache__", "**/*.pyc", "README.md")
"""Files that must not change the image hash: bytecode left by tests, and docs."""


class GangObservabilityDeployment(Construct):
    """Builds the exporter image asset and deploys the rendered ``charts.observability`` objects with its URI.

    Manifests: ``Namespace`` (only when observability owns it; never pruned nor deleted) after
    nothing, ``Exporter`` (RBAC, Deployment, Service, dashboard ConfigMap) after the platform
    Namespaces, and ``Monitoring`` (ServiceMonitors, PrometheusRule) after the exporter and, with
    ``prometheus: install``, after the kube-prometheus-stack release that installs their CRDs.
    ``existing`` applies ``Monitoring`` on the Operator the cluster already runs; ``none`` applies
    no Operator object. With ``managed_prometheus``, an Amazon Managed Service for Prometheus
    workspace (AWS-owned key; stack tags), its id and remote-write URL as stack outputs, and the
    installed Prometheus remote-writes to it.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        env: EnvironmentConfig,
        objects: Sequence[Mapping[str, Any]],
        platform_objects: PlatformObjects,
        system_nodes: IConstruct,
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
        deployed = with_exporter_image(objects, self.image.image_uri)
        namespace_objects = [o for o in deployed if o["kind"] == "Namespace"]
        exporter_objects = [o for o in deployed if not is_operator_object(o) and o["kind"] != "Namespace"]
        retain = env.ephemeral is None
        self.exporter = _manifest(self, "Exporter", cluster, exporter_objects, retain=retain)
        if namespace_objects:
            namespace = _manifest(self, "Namespace", cluster, namespace_objects, retain=retain)
            self.exporter.node.add_dependency(namespace)
        namespaces = platform_objects.node.try_find_child(manifest_id("namespaces.yaml"))
        if namespaces is not None:
            self.exporter.node.add_dependency(namespaces)
        self.workspace: aps.CfnWorkspace | None = None
        if config.managed_prometheus:
            self.workspace = self._workspace(env)
        self.prometheus: PrometheusMonitoring | None = None
        if config.prometheus is PrometheusMode.INSTALL:
            self.prometheus = PrometheusMonitoring(
                self, "Prometheus", cluster=cluster, env=env, system_nodes=system_nodes, workspace=self.workspace
            )
        self.monitoring: eks.KubernetesManifest | None = None
        if config.prometheus is not PrometheusMode.NONE:
            operator_objects = [o for o in deployed if is_operator_object(o)]
            if self.prometheus is not None and config.scrape_scheduler:
                operator_objects.append(scheduler_metrics_binding())
            self.monitoring = _manifest(self, "Monitoring", cluster, operator_objects, retain=retain)
            self.monitoring.node.add_dependency(self.exporter)
            if self.prometheus is not None:
                self.monitoring.node.add_dependency(self.prometheus.chart)

    def _workspace(self, env: EnvironmentConfig) -> aps.CfnWorkspace:
        workspace = aps.CfnWorkspace(self, "Workspace", alias=f"{env.cluster.name}-gang-metrics")
        workspace.apply_removal_policy(
            RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE if env.long_lived else RemovalPolicy.DESTROY
        )
        stack = Stack.of(self)
        CfnOutput(
            stack,
            "ManagedPrometheusWorkspaceId",
            value=workspace.attr_workspace_id,
            description="Amazon Managed Service for Prometheus workspace for the gang metrics",
        )
        CfnOutput(
            stack,
            "ManagedPrometheusRemoteWriteUrl",
            value=f"{workspace.attr_prometheus_endpoint}api/v1/remote_write",
            description="Prometheus remote_write endpoint (SigV4, region of the stack)",
        )
        return workspace


def _image_platform(env: EnvironmentConfig) -> ecr_assets.Platform:
    """The exporter runs on the system nodes: build for their architecture."""
    architectures = {INSTANCE_TYPES[name].architecture for name in env.system_nodes.instance_types}
    return ecr_assets.Platform.LINUX_ARM64 if architectures == {"arm64"} else ecr_assets.Platform.LINUX_AMD64


def _manifest(
    scope: Construct, construct_id: str, cluster: eks.Cluster, objects: Sequence[Mapping[str, Any]], *, retain: bool
) -> eks.KubernetesManifest:
    return apply_manifest(
        scope,
        construct_id,
        cluster=cluster,
        objects=objects,
        what=f"observability {construct_id}",
        retain_user_data=retain,
    )
