"""Helm values of kube-prometheus-stack for ``observability.prometheus: install``, as plain data.

Every key is one the pinned chart declares (``tests/addons/kube_prometheus_stack/test_values.py``
checks them against the chart's ``values.yaml``). What the values do:

- the operator (and its webhook patch job), Prometheus and Alertmanager pinned to the system nodes
  (``gpu-platform.io/role: system``) by node selector; Grafana and kube-state-metrics are subcharts
  whose keys the parent ``values.yaml`` does not declare, so they are left unpinned and land on the
  system nodes because GPU nodes carry a taint they do not tolerate; node exporter stays a
  DaemonSet on every node, as the chart ships it;
- Prometheus selects ServiceMonitors and PrometheusRules in every namespace by
  ``release: kube-prometheus-stack`` (``observability.manifests.PROMETHEUS_SELECTOR_LABELS``), which the
  chart's own objects and ours carry;
- Grafana's dashboard sidecar loads ConfigMaps labelled ``grafana_dashboard: "1"`` from every namespace
  (the gang dashboard's ConfigMap is one);
- Prometheus keeps its TSDB on an encrypted gp3 volume of ``prometheus_storage_gib`` from the platform's
  StorageClass, and remote-writes to the Amazon Managed Service for Prometheus workspace (SigV4, EKS Pod
  Identity credentials) when ``managed_prometheus`` is on;
- control-plane scrapes EKS does not expose (controller-manager, scheduler, etcd) and kube-proxy
  (its metrics listen on 127.0.0.1) are off: their targets would always be down and their alerts
  always firing. The scheduler's pod-group metrics come from the gang ServiceMonitor instead.
"""

from __future__ import annotations

from typing import Any

from addons.kube_prometheus_stack.pin import KUBE_PROMETHEUS_STACK_RELEASE, MONITORING_NAMESPACE
from catalog.labels import ROLE_LABEL
from config.model import EnvironmentConfig
from observability.manifests import PROMETHEUS_SELECTOR_LABELS, SCHEDULER_READER, labels

SYSTEM_NODES = {ROLE_LABEL: "system"}
PROMETHEUS_SERVICE_ACCOUNT = f"{KUBE_PROMETHEUS_STACK_RELEASE}-prometheus"
"""Named explicitly: EKS Pod Identity binds the remote-write role to it."""
STORAGE_CLASS = "gpu-platform-gp3"
"""The platform's encrypted gp3 StorageClass (EBS CSI driver), created for Prometheus' volume."""
GRAFANA_DASHBOARD_LABEL = ("grafana_dashboard", "1")
ALL_NAMESPACES = "ALL"


def kube_prometheus_stack_values(env: EnvironmentConfig, *, remote_write_url: str | None) -> dict[str, Any]:
    """Values for the pinned chart; ``remote_write_url`` is the workspace's (a token at synth time) or ``None``."""
    config = env.observability
    selector = {"matchLabels": dict(PROMETHEUS_SELECTOR_LABELS)}
    prometheus_spec: dict[str, Any] = {
        "nodeSelector": SYSTEM_NODES,
        "retention": f"{config.prometheus_retention_days}d",
        "serviceMonitorSelectorNilUsesHelmValues": False,
        "serviceMonitorSelector": selector,
        "serviceMonitorNamespaceSelector": {},
        "ruleSelectorNilUsesHelmValues": False,
        "ruleSelector": selector,
        "ruleNamespaceSelector": {},
        "storageSpec": {
            "volumeClaimTemplate": {
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": f"{config.prometheus_storage_gib}Gi"}},
                    "storageClassName": STORAGE_CLASS,
                }
            }
        },
    }
    if remote_write_url is not None:
        prometheus_spec["remoteWrite"] = [{"url": remote_write_url, "sigv4": {"region": env.region}}]
    label, label_value = GRAFANA_DASHBOARD_LABEL
    return {
        "alertmanager": {"alertmanagerSpec": {"nodeSelector": SYSTEM_NODES}},
        "grafana": {
            "sidecar": {
                "dashboards": {
                    "enabled": True,
                    "label": label,
                    "labelValue": label_value,
                    "searchNamespace": ALL_NAMESPACES,
                }
            },
        },
        "kubeControllerManager": {"enabled": False},
        "kubeEtcd": {"enabled": False},
        "kubeProxy": {"enabled": False},
        "kubeScheduler": {"enabled": False},
        "prometheus": {
            "prometheusSpec": prometheus_spec,
            "serviceAccount": {"create": True, "name": PROMETHEUS_SERVICE_ACCOUNT},
        },
        "prometheusOperator": {
            "admissionWebhooks": {"patch": {"nodeSelector": SYSTEM_NODES}},
            "nodeSelector": SYSTEM_NODES,
        },
    }


def scheduler_metrics_binding() -> dict[str, Any]:
    """Binds the scheduler-metrics reader ClusterRole to the installed Prometheus, which runs the scrape."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"labels": labels("scheduler-metrics"), "name": SCHEDULER_READER},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": SCHEDULER_READER},
        "subjects": [{"kind": "ServiceAccount", "name": PROMETHEUS_SERVICE_ACCOUNT, "namespace": MONITORING_NAMESPACE}],
    }
