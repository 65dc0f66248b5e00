"""What runs the gang exporter and scrapes it, as plain data.

The built-in objects (ServiceAccount, RBAC, Deployment, Service) are typed cdk8s
constructs in ``charts/observability.py``, built from the names and settings here.
The Prometheus Operator objects (ServiceMonitors) are dicts returned with sorted
keys, so the rendered YAML/JSON is byte-identical for identical inputs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from addons.kube_prometheus_stack.pin import KUBE_PROMETHEUS_STACK_RELEASE

APP_NAME = "gang-exporter"
METRICS_PORT = 8080
METRICS_PORT_NAME = "metrics"
RUN_AS_ID = 65532  # matches the non-root user baked into exporter/Dockerfile

# EKS exposes kube-scheduler metrics through the API server under this path.
EKS_SCHEDULER_METRICS_PATH = "/apis/metrics.eks.amazonaws.com/v1/ksh/container/metrics"
SCHEDULER_JOB = "kube-scheduler"
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"

# Read-only access to everything the exporter watches. Workloads are readable
# too; today the workload and template labels come from each PodGroup's
# spec.workloadRef, so the exporter itself does not watch them.
READ_VERBS = ("get", "list", "watch")
READ_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("", ("events", "nodes", "pods")),
    ("resource.k8s.io", ("resourceclaims",)),
    ("scheduling.k8s.io", ("podgroups", "workloads")),
)

# Lets a scraper GET the EKS kube-scheduler metrics; bind it to the Prometheus service account.
SCHEDULER_READER = f"{APP_NAME}-scheduler-metrics-reader"
SCHEDULER_READ_RULE = ("metrics.eks.amazonaws.com", ("ksh/metrics",), ("get",))

# The exporter container.
CONTAINER_NAME = "exporter"
CONTAINER_ARGS = (f"--port={METRICS_PORT}",)
LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"
RESOURCES = {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "50m", "memory": "128Mi"}}
TMP_VOLUME = "tmp"
TMP_MOUNT_PATH = "/tmp"
TMP_SIZE_LIMIT = "16Mi"


def labels(component: str = "exporter") -> dict[str, str]:
    return {
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/name": APP_NAME,
        "app.kubernetes.io/part-of": "gang-observability",
    }


PROMETHEUS_SELECTOR_LABELS = {"release": KUBE_PROMETHEUS_STACK_RELEASE}
"""On every ServiceMonitor and PrometheusRule: the installed Prometheus selects by it, the chart's own objects
carry it too (``addons.kube_prometheus_stack.values``), and an existing Operator set up by the chart's defaults does
the same."""


def operator_labels(component: str) -> dict[str, str]:
    return {**labels(component), **PROMETHEUS_SELECTOR_LABELS}


def selector() -> dict[str, str]:
    return {"app.kubernetes.io/name": APP_NAME}


def sort_keys(value: Any) -> Any:
    """Recursively rebuild mappings with sorted keys (lists keep their order)."""
    if isinstance(value, Mapping):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [sort_keys(v) for v in value]
    return value


def exporter_service_monitor(namespace: str) -> dict[str, Any]:
    """Scrapes the exporter's Service in ``namespace``."""
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"labels": operator_labels("exporter"), "name": APP_NAME, "namespace": namespace},
        "spec": {
            "endpoints": [
                {
                    # The exporter's own ``namespace`` label (the PodGroup's namespace)
                    # must win over the target's namespace label.
                    "honorLabels": True,
                    "interval": "30s",
                    "path": "/metrics",
                    "port": METRICS_PORT_NAME,
                    "scrapeTimeout": "10s",
                }
            ],
            "namespaceSelector": {"matchNames": [namespace]},
            "selector": {"matchLabels": selector()},
        },
    }
    result: dict[str, Any] = sort_keys(monitor)
    return result


def scheduler_service_monitor(namespace: str) -> dict[str, Any]:
    """Scrapes the EKS kube-scheduler metrics endpoint on the ``kubernetes`` Service in ``default``."""
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {
            "labels": operator_labels("scheduler-metrics"),
            "name": f"{APP_NAME}-{SCHEDULER_JOB}",
            "namespace": namespace,
        },
        "spec": {
            "endpoints": [
                {
                    "bearerTokenFile": f"{SERVICE_ACCOUNT_DIR}/token",
                    "interval": "30s",
                    # Only scheduler_* series: pod-group attempts, durations,
                    # workload preemption and queue depth.
                    "metricRelabelings": [
                        {
                            "action": "keep",
                            "regex": "scheduler_.*",
                            "sourceLabels": ["__name__"],
                        }
                    ],
                    "path": EKS_SCHEDULER_METRICS_PATH,
                    "port": "https",
                    "relabelings": [
                        {
                            "action": "replace",
                            "replacement": SCHEDULER_JOB,
                            "targetLabel": "job",
                        }
                    ],
                    "scheme": "https",
                    "tlsConfig": {
                        "caFile": f"{SERVICE_ACCOUNT_DIR}/ca.crt",
                        "serverName": "kubernetes",
                    },
                }
            ],
            "namespaceSelector": {"matchNames": ["default"]},
            "selector": {"matchLabels": {"component": "apiserver", "provider": "kubernetes"}},
        },
    }
    result: dict[str, Any] = sort_keys(monitor)
    return result


DIST_IMAGE = "gang-exporter:dist"
"""Exporter image named in ``dist/``: the deployed image is the CDK asset built from ``exporter/``."""
PROMETHEUS_OPERATOR_GROUP = "monitoring.coreos.com"


def is_operator_object(obj: Mapping[str, Any]) -> bool:
    """A Prometheus Operator object: deployable only where the operator's CRDs are installed."""
    return str(obj["apiVersion"]).startswith(f"{PROMETHEUS_OPERATOR_GROUP}/")


def with_exporter_image(objects: Sequence[Mapping[str, Any]], image: str) -> list[dict[str, Any]]:
    """The rendered observability objects (naming ``DIST_IMAGE``) with the exporter container running ``image``.

    The cluster stack deploys the objects the renderer wrote to ``dist/`` with the image asset's
    URI, a CDK token resolved at deploy time, so the stack needs no cdk8s of its own.
    """
    deployed = copy.deepcopy([dict(o) for o in objects])
    containers = [
        container
        for obj in deployed
        if obj["kind"] == "Deployment" and obj["metadata"]["name"] == APP_NAME
        for container in obj["spec"]["template"]["spec"]["containers"]
        if container["name"] == CONTAINER_NAME
    ]
    if [c["image"] for c in containers] != [DIST_IMAGE]:
        raise ValueError(f"expected one {APP_NAME} container naming {DIST_IMAGE}, found {containers!r}")
    containers[0]["image"] = image
    return deployed
