"""Gang observability on the cluster: the gang exporter, its scrape configuration, alerts and dashboard.

Built-in kinds are typed cdk8s L1 constructs; the Prometheus Operator kinds (ServiceMonitor,
PrometheusRule) are ``ApiObject``s whose bodies come from ``observability.manifests`` and
``observability.rules``, and the dashboard from ``observability.dashboard``.

``dist/<env>/observability.yaml`` names the exporter image ``DIST_IMAGE``, a placeholder: the
real image is the CDK image asset built from ``exporter/``, whose URI is known only at deploy
time: the cluster stack deploys these objects with it in place of the placeholder
(``observability.manifests.with_exporter_image``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cdk8s import ApiObject, ApiObjectMetadata, App, Chart, JsonPatch
from cdk8s_plus_37 import k8s
from constructs import Construct

from catalog.priority_tiers import TIERS
from charts.namespaces import namespace_labels
from charts.ordering import SYNC_WAVE, sync_wave
from charts.quantities import int_or_string, quantity
from config.model import EnvironmentConfig
from config.observability import ObservabilityConfig
from observability import manifests as m
from observability.dashboard import dashboard_configmap
from observability.manifests import DIST_IMAGE
from observability.rules import prometheus_rule

RBAC_GROUP = "rbac.authorization.k8s.io"

Objects = list[dict[str, Any]]


def tier_objectives(config: ObservabilityConfig) -> dict[str, int]:
    """Objectives keyed by the priority class name a PodGroup of the tier carries (the alert's match)."""
    return {TIERS[tier].priority_class: seconds for tier, seconds in config.tier_objectives_seconds.items()}


def creates_namespace(env: EnvironmentConfig) -> bool:
    """The observability namespace is not a platform or team namespace, so observability creates it."""
    return env.observability.namespace not in namespace_labels(env.platform)


class GangObservability(Construct):
    """The gang exporter (read-only RBAC, one-replica Deployment, Service), its ServiceMonitors, the
    PrometheusRule with per-tier objectives and the Grafana dashboard ConfigMap.

    With ``create_namespace`` the Namespace comes first (Pod Security ``restricted``, which the
    exporter meets); otherwise the caller owns it.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: ObservabilityConfig,
        image: str,
        create_namespace: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        if not image or any(c.isspace() for c in image):
            raise ValueError(f"invalid exporter image reference {image!r}")
        namespace = config.namespace
        if create_namespace:
            k8s.KubeNamespace(
                self,
                "Namespace",
                metadata=k8s.ObjectMeta(
                    name=namespace,
                    labels={
                        "app.kubernetes.io/managed-by": "gpu-platform",
                        "pod-security.kubernetes.io/enforce": "restricted",
                    },
                    annotations={SYNC_WAVE: str(sync_wave("Namespace"))},
                ),
            )
        k8s.KubeServiceAccount(self, "ServiceAccount", metadata=_meta(m.APP_NAME, namespace))
        k8s.KubeClusterRole(
            self,
            "ClusterRole",
            metadata=_meta(m.APP_NAME),
            rules=[
                k8s.PolicyRule(api_groups=[group], resources=list(resources), verbs=list(m.READ_VERBS))
                for group, resources in m.READ_RULES
            ],
        )
        k8s.KubeClusterRoleBinding(
            self,
            "ClusterRoleBinding",
            metadata=_meta(m.APP_NAME),
            role_ref=k8s.RoleRef(api_group=RBAC_GROUP, kind="ClusterRole", name=m.APP_NAME),
            subjects=[k8s.Subject(kind="ServiceAccount", name=m.APP_NAME, namespace=namespace)],
        )
        _deployment(self, namespace, image)
        k8s.KubeService(
            self,
            "Service",
            metadata=_meta(m.APP_NAME, namespace),
            spec=k8s.ServiceSpec(
                ports=[
                    k8s.ServicePort(
                        name=m.METRICS_PORT_NAME,
                        port=m.METRICS_PORT,
                        protocol="TCP",
                        target_port=int_or_string(m.METRICS_PORT_NAME),
                    )
                ],
                selector=m.selector(),
                type="ClusterIP",
            ),
        )
        _api_object(self, "ServiceMonitor", m.exporter_service_monitor(namespace))
        if config.scrape_scheduler:
            group, resources, verbs = m.SCHEDULER_READ_RULE
            k8s.KubeClusterRole(
                self,
                "SchedulerMetricsReader",
                metadata=_meta(m.SCHEDULER_READER, component="scheduler-metrics"),
                rules=[k8s.PolicyRule(api_groups=[group], resources=list(resources), verbs=list(verbs))],
            )
            _api_object(self, "SchedulerServiceMonitor", m.scheduler_service_monitor(namespace))
        _api_object(
            self,
            "PrometheusRule",
            prometheus_rule(
                namespace=namespace,
                tier_objectives_seconds=tier_objectives(config),
                pending_groups_threshold=config.pending_groups_threshold,
                repeated_preemptions=config.repeated_preemptions,
            ),
        )
        dashboard = dashboard_configmap(namespace=namespace)
        k8s.KubeConfigMap(
            self,
            "Dashboard",
            metadata=k8s.ObjectMeta(
                name=dashboard["metadata"]["name"], namespace=namespace, labels=dashboard["metadata"]["labels"]
            ),
            data=dashboard["data"],
        )


def _meta(name: str, namespace: str | None = None, *, component: str = "exporter") -> k8s.ObjectMeta:
    return k8s.ObjectMeta(name=name, namespace=namespace, labels=m.labels(component))


def _quantities(values: Mapping[str, str]) -> dict[str, k8s.Quantity]:
    return {key: quantity(value) for key, value in values.items()}


def _http_probe(path: str, *, period_seconds: int, initial_delay_seconds: int | None = None) -> k8s.Probe:
    return k8s.Probe(
        http_get=k8s.HttpGetAction(path=path, port=int_or_string(m.METRICS_PORT_NAME)),
        failure_threshold=3,
        timeout_seconds=5,
        period_seconds=period_seconds,
        initial_delay_seconds=initial_delay_seconds,
    )


def _deployment(scope: Construct, namespace: str, image: str) -> k8s.KubeDeployment:
    runtime_default = k8s.SeccompProfile(type="RuntimeDefault")
    container = k8s.Container(
        name=m.CONTAINER_NAME,
        image=image,
        image_pull_policy="IfNotPresent",
        args=list(m.CONTAINER_ARGS),
        ports=[k8s.ContainerPort(container_port=m.METRICS_PORT, name=m.METRICS_PORT_NAME, protocol="TCP")],
        liveness_probe=_http_probe(m.LIVENESS_PATH, initial_delay_seconds=5, period_seconds=20),
        readiness_probe=_http_probe(m.READINESS_PATH, period_seconds=10),
        resources=k8s.ResourceRequirements(
            limits=_quantities(m.RESOURCES["limits"]), requests=_quantities(m.RESOURCES["requests"])
        ),
        security_context=k8s.SecurityContext(
            allow_privilege_escalation=False,
            capabilities=k8s.Capabilities(drop=["ALL"]),
            privileged=False,
            read_only_root_filesystem=True,
            seccomp_profile=runtime_default,
            run_as_group=m.RUN_AS_ID,
            run_as_non_root=True,
            run_as_user=m.RUN_AS_ID,
        ),
        volume_mounts=[k8s.VolumeMount(mount_path=m.TMP_MOUNT_PATH, name=m.TMP_VOLUME)],
    )
    return k8s.KubeDeployment(
        scope,
        "Deployment",
        metadata=_meta(m.APP_NAME, namespace),
        spec=k8s.DeploymentSpec(
            # One watcher: a second replica would export every series twice.
            replicas=1,
            revision_history_limit=3,
            selector=k8s.LabelSelector(match_labels=m.selector()),
            strategy=k8s.DeploymentStrategy(type="Recreate"),
            template=k8s.PodTemplateSpec(
                metadata=k8s.ObjectMeta(labels=m.labels()),
                spec=k8s.PodSpec(
                    automount_service_account_token=True,
                    containers=[container],
                    node_selector={"kubernetes.io/os": "linux"},
                    security_context=k8s.PodSecurityContext(
                        fs_group=m.RUN_AS_ID,
                        seccomp_profile=runtime_default,
                        run_as_group=m.RUN_AS_ID,
                        run_as_non_root=True,
                        run_as_user=m.RUN_AS_ID,
                    ),
                    service_account_name=m.APP_NAME,
                    termination_grace_period_seconds=10,
                    volumes=[
                        k8s.Volume(
                            name=m.TMP_VOLUME,
                            empty_dir=k8s.EmptyDirVolumeSource(size_limit=quantity(m.TMP_SIZE_LIMIT)),
                        )
                    ],
                ),
            ),
        ),
    )


def _api_object(scope: Construct, construct_id: str, body: Mapping[str, Any]) -> ApiObject:
    """A custom-resource object from its manifest dict."""
    metadata = body["metadata"]
    obj = ApiObject(
        scope,
        construct_id,
        api_version=body["apiVersion"],
        kind=body["kind"],
        metadata=ApiObjectMetadata(
            name=metadata["name"], namespace=metadata.get("namespace"), labels=metadata.get("labels")
        ),
    )
    for key, value in body.items():
        if key not in ("apiVersion", "kind", "metadata"):
            obj.add_json_patch(JsonPatch.add(f"/{key}", value))
    return obj


def render_objects(
    config: ObservabilityConfig, *, image: str = DIST_IMAGE, create_namespace: bool = False, app: App | None = None
) -> Objects:
    """The objects of ``GangObservability`` as manifest dicts, in creation order."""
    chart = Chart(app or App(), "observability", disable_resource_name_hashes=True)
    GangObservability(chart, "Observability", config=config, image=image, create_namespace=create_namespace)
    return [dict(o) for o in chart.to_json()]


def environment_objects(env: EnvironmentConfig, *, app: App | None = None) -> Objects:
    """``env``'s observability objects as ``dist/`` has them (the Namespace included when no platform or
    team namespace is it)."""
    return render_objects(env.observability, create_namespace=creates_namespace(env), app=app)
