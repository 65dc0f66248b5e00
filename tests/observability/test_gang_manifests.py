"""Exporter objects (``charts.observability``): Kubernetes 1.37 schema validity, RBAC and Pod Security."""

from __future__ import annotations

import json
from typing import Any

import kubernetes_validate
import pytest
from pydantic import ValidationError

from charts.observability import render_objects
from charts.yaml_output import dump_objects
from config.observability import ObservabilityConfig
from observability.manifests import EKS_SCHEDULER_METRICS_PATH, METRICS_PORT

IMAGE = "123456789012.dkr.ecr.us-west-2.amazonaws.com/gang-exporter:0.1.0"
NAMESPACE = "gpu-observability"
READ_ONLY = {"get", "list", "watch"}


def objects(scrape_scheduler: bool = True) -> list[dict[str, Any]]:
    """The exporter and its scrape configuration, without the PrometheusRule and the dashboard."""
    config = ObservabilityConfig(namespace=NAMESPACE, scrape_scheduler=scrape_scheduler)
    return [
        o
        for o in render_objects(config, image=IMAGE)
        if o["kind"] != "PrometheusRule" and o["metadata"]["labels"]["app.kubernetes.io/component"] != "dashboard"
    ]


def by_kind(objs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objs if o["kind"] == kind]


def test_kinds_and_no_namespace_object() -> None:
    assert [o["kind"] for o in objects(False)] == [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
        "Service",
        "ServiceMonitor",
    ]
    assert [o["kind"] for o in objects(True)][-2:] == ["ClusterRole", "ServiceMonitor"]
    for obj in objects(True):
        if obj["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            assert obj["metadata"]["namespace"] == NAMESPACE


@pytest.mark.parametrize("scrape_scheduler", [False, True])
def test_built_in_kinds_are_valid_kubernetes_1_37(scrape_scheduler: bool) -> None:
    built_in = [o for o in objects(scrape_scheduler) if not o["apiVersion"].startswith("monitoring.coreos.com/")]
    assert len(built_in) == (6 if scrape_scheduler else 5)
    for obj in built_in:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_rbac_is_read_only_and_scoped() -> None:
    roles = by_kind(objects(True), "ClusterRole")
    for role in roles:
        for rule in role["rules"]:
            assert set(rule["verbs"]) <= READ_ONLY, rule
            assert "*" not in rule["resources"] and "*" not in rule["apiGroups"]
    granted = {(g, r) for rule in roles[0]["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert granted == {
        ("scheduling.k8s.io", "podgroups"),
        ("scheduling.k8s.io", "workloads"),
        ("", "pods"),
        ("", "events"),
        ("", "nodes"),
        ("resource.k8s.io", "resourceclaims"),
    }
    assert all(set(rule["verbs"]) == READ_ONLY for rule in roles[0]["rules"])
    (binding,) = by_kind(objects(True), "ClusterRoleBinding")
    assert binding["roleRef"]["name"] == roles[0]["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "gang-exporter", "namespace": NAMESPACE}]


def test_deployment_meets_restricted_pod_security() -> None:
    (deployment,) = by_kind(objects(), "Deployment")
    pod_spec = deployment["spec"]["template"]["spec"]
    assert pod_spec["securityContext"]["runAsNonRoot"] is True
    assert pod_spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod_spec["serviceAccountName"] == "gang-exporter"
    assert "hostNetwork" not in pod_spec and "hostPID" not in pod_spec
    (container,) = pod_spec["containers"]
    ctx = container["securityContext"]
    assert ctx["allowPrivilegeEscalation"] is False
    assert ctx["capabilities"] == {"drop": ["ALL"]}
    assert ctx["readOnlyRootFilesystem"] is True
    assert ctx["runAsNonRoot"] is True
    assert container["image"] == IMAGE
    assert set(container["resources"]) == {"requests", "limits"}
    assert set(container["resources"]["requests"]) == {"cpu", "memory"}
    assert set(container["resources"]["limits"]) == {"cpu", "memory"}
    # Probes hit the metrics port by name.
    assert container["ports"] == [{"containerPort": METRICS_PORT, "name": "metrics", "protocol": "TCP"}]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}


def test_service_selects_the_deployment_pods() -> None:
    objs = objects()
    (deployment,) = by_kind(objs, "Deployment")
    (service,) = by_kind(objs, "Service")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert service["spec"]["ports"][0]["targetPort"] == "metrics"


def test_exporter_service_monitor_keeps_the_exporters_namespace_label() -> None:
    monitor = by_kind(objects(False), "ServiceMonitor")[0]
    (service,) = by_kind(objects(False), "Service")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] == service["spec"]["ports"][0]["name"]
    assert endpoint["honorLabels"] is True  # PodGroup namespace must not become exported_namespace
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": [NAMESPACE]}


def test_scheduler_scrape_only_when_requested() -> None:
    assert len(by_kind(objects(False), "ServiceMonitor")) == 1
    monitors = by_kind(objects(True), "ServiceMonitor")
    assert len(monitors) == 2
    scheduler = monitors[1]
    assert scheduler["spec"]["namespaceSelector"] == {"matchNames": ["default"]}
    assert scheduler["spec"]["selector"]["matchLabels"] == {"component": "apiserver", "provider": "kubernetes"}
    (endpoint,) = scheduler["spec"]["endpoints"]
    assert endpoint["path"] == EKS_SCHEDULER_METRICS_PATH
    assert endpoint["scheme"] == "https"
    assert endpoint["bearerTokenFile"].endswith("/serviceaccount/token")
    assert endpoint["tlsConfig"]["caFile"].endswith("/serviceaccount/ca.crt")
    reader = by_kind(objects(True), "ClusterRole")[1]
    assert reader["rules"] == [
        {"apiGroups": ["metrics.eks.amazonaws.com"], "resources": ["ksh/metrics"], "verbs": ["get"]}
    ]


def test_deterministic_and_sorted() -> None:
    first = dump_objects(objects())
    assert first == dump_objects(objects())
    for obj in objects():
        text = json.dumps(obj)
        assert text == json.dumps(obj, sort_keys=True)


@pytest.mark.parametrize("namespace", ["Bad_Namespace", ""])
def test_rejects_invalid_namespace(namespace: str) -> None:
    with pytest.raises(ValidationError):
        ObservabilityConfig(namespace=namespace)


@pytest.mark.parametrize("image", ["", "a b"])
def test_rejects_invalid_image(image: str) -> None:
    with pytest.raises(ValueError, match="invalid exporter image reference"):
        render_objects(ObservabilityConfig(namespace=NAMESPACE), image=image)
