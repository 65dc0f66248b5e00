"""Kubernetes objects that run the gang exporter and scrape it (plain dicts).

``exporter_manifests`` returns namespaced objects without the Namespace itself;
the caller owns the namespace. Every dict is returned with sorted keys so the
rendered YAML/JSON is byte-identical for identical inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

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

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def _labels(component: str = "exporter") -> dict[str, str]:
    return {
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/name": APP_NAME,
        "app.kubernetes.io/part-of": "gang-observability",
    }


def _selector() -> dict[str, str]:
    return {"app.kubernetes.io/name": APP_NAME}


def sort_keys(value: Any) -> Any:
    """Recursively rebuild mappings with sorted keys (lists keep their order)."""
    if isinstance(value, Mapping):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [sort_keys(v) for v in value]
    return value


def _service_account(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"labels": _labels(), "name": APP_NAME, "namespace": namespace},
    }


def _cluster_role() -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"labels": _labels(), "name": APP_NAME},
        "rules": [
            {"apiGroups": [group], "resources": list(resources), "verbs": list(READ_VERBS)}
            for group, resources in READ_RULES
        ],
    }


def _cluster_role_binding(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"labels": _labels(), "name": APP_NAME},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": APP_NAME,
        },
        "subjects": [{"kind": "ServiceAccount", "name": APP_NAME, "namespace": namespace}],
    }


def _deployment(namespace: str, image: str) -> dict[str, Any]:
    probe_common = {"failureThreshold": 3, "timeoutSeconds": 5}
    container = {
        "args": [f"--port={METRICS_PORT}"],
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": {
            **probe_common,
            "httpGet": {"path": "/healthz", "port": METRICS_PORT_NAME},
            "initialDelaySeconds": 5,
            "periodSeconds": 20,
        },
        "name": "exporter",
        "ports": [{"containerPort": METRICS_PORT, "name": METRICS_PORT_NAME, "protocol": "TCP"}],
        "readinessProbe": {
            **probe_common,
            "httpGet": {"path": "/readyz", "port": METRICS_PORT_NAME},
            "periodSeconds": 10,
        },
        "resources": {
            "limits": {"cpu": "1", "memory": "512Mi"},
            "requests": {"cpu": "50m", "memory": "128Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "privileged": False,
            "readOnlyRootFilesystem": True,
            "runAsGroup": RUN_AS_ID,
            "runAsNonRoot": True,
            "runAsUser": RUN_AS_ID,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumeMounts": [{"mountPath": "/tmp", "name": "tmp"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"labels": _labels(), "name": APP_NAME, "namespace": namespace},
        "spec": {
            # One watcher: a second replica would export every series twice.
            "replicas": 1,
            "revisionHistoryLimit": 3,
            "selector": {"matchLabels": _selector()},
            "strategy": {"type": "Recreate"},
            "template": {
                "metadata": {"labels": _labels()},
                "spec": {
                    "automountServiceAccountToken": True,
                    "containers": [container],
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "securityContext": {
                        "fsGroup": RUN_AS_ID,
                        "runAsGroup": RUN_AS_ID,
                        "runAsNonRoot": True,
                        "runAsUser": RUN_AS_ID,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "serviceAccountName": APP_NAME,
                    "terminationGracePeriodSeconds": 10,
                    "volumes": [{"emptyDir": {"sizeLimit": "16Mi"}, "name": "tmp"}],
                },
            },
        },
    }


def _service(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"labels": _labels(), "name": APP_NAME, "namespace": namespace},
        "spec": {
            "ports": [
                {
                    "name": METRICS_PORT_NAME,
                    "port": METRICS_PORT,
                    "protocol": "TCP",
                    "targetPort": METRICS_PORT_NAME,
                }
            ],
            "selector": _selector(),
            "type": "ClusterIP",
        },
    }


def _exporter_service_monitor(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"labels": _labels(), "name": APP_NAME, "namespace": namespace},
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
            "selector": {"matchLabels": _selector()},
        },
    }


def _scheduler_metrics_reader() -> dict[str, Any]:
    """Lets a scraper GET the EKS kube-scheduler metrics; bind it to Prometheus."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {
            "labels": _labels("scheduler-metrics"),
            "name": f"{APP_NAME}-scheduler-metrics-reader",
        },
        "rules": [
            {
                "apiGroups": ["metrics.eks.amazonaws.com"],
                "resources": ["ksh/metrics"],
                "verbs": ["get"],
            }
        ],
    }


def _scheduler_service_monitor(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {
            "labels": _labels("scheduler-metrics"),
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


def exporter_manifests(*, namespace: str, image: str, scrape_scheduler: bool) -> list[dict[str, Any]]:
    """ServiceAccount, read-only RBAC, Deployment, Service and ServiceMonitor(s).

    With ``scrape_scheduler`` the list also carries a ServiceMonitor for the EKS
    kube-scheduler metrics endpoint (on the ``kubernetes`` Service in
    ``default``) and a ClusterRole granting ``get`` on it, to be bound to the
    Prometheus service account.
    """
    if not _DNS_LABEL.match(namespace):
        raise ValueError(f"namespace {namespace!r} is not a DNS-1123 label")
    if not image or any(c.isspace() for c in image):
        raise ValueError(f"invalid image reference {image!r}")
    objects: list[dict[str, Any]] = [
        _service_account(namespace),
        _cluster_role(),
        _cluster_role_binding(namespace),
        _deployment(namespace, image),
        _service(namespace),
        _exporter_service_monitor(namespace),
    ]
    if scrape_scheduler:
        objects += [_scheduler_metrics_reader(), _scheduler_service_monitor(namespace)]
    return [sort_keys(obj) for obj in objects]


def dump_yaml(objects: Sequence[Mapping[str, Any]]) -> str:
    """Multi-document YAML with sorted keys (deterministic)."""
    return yaml.safe_dump_all([sort_keys(o) for o in objects], sort_keys=True, default_flow_style=False)
