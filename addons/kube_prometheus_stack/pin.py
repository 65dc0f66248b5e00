"""kube-prometheus-stack as data: the chart pin, the images its defaults deploy, their sources.

Every image but the subcharts' is confirmed against the stored chart's ``values.yaml`` and ``Chart.yaml``;
the subcharts' (Grafana, kube-state-metrics, node exporter) are their own charts' defaults, whose values
are not stored, so their rows say so.
"""

from __future__ import annotations

from catalog.pins import REFERENCE, ChartPin, ImagePin, chart_source, image_reference

KUBE_PROMETHEUS_STACK_CHART = "kube-prometheus-stack"
KUBE_PROMETHEUS_STACK_CHART_VERSION = "88.5.3"
"""Prometheus Operator 0.93.1, Prometheus, Alertmanager, Grafana 12.11.1 subchart, kube-state-metrics,
node exporter (``observability.prometheus: install``)."""
KUBE_PROMETHEUS_STACK_REPOSITORY = "https://prometheus-community.github.io/helm-charts"
KUBE_PROMETHEUS_STACK_RELEASE = "kube-prometheus-stack"
PROMETHEUS_OPERATOR_VERSION = "v0.93.1"
"""The chart's appVersion: the tag of the operator, config-reloader and admission-webhook images."""
PROMETHEUS_IMAGE_TAG = "v3.14.0-distroless"
ALERTMANAGER_IMAGE_TAG = "v0.34.0"
WEBHOOK_CERTGEN_IMAGE_TAG = "1.8.7"
GRAFANA_CHART_VERSION = "12.11.1"
KUBE_STATE_METRICS_CHART_VERSION = "8.4.0"
NODE_EXPORTER_CHART_VERSION = "4.56.1"
"""Subcharts of kube-prometheus-stack 88.5.3 (its ``Chart.yaml``); their images are their own charts' defaults."""
MONITORING_NAMESPACE = "monitoring"
PROMETHEUS_OPERATOR_API_GROUP = "monitoring.coreos.com"

KUBE_PROMETHEUS_STACK = ChartPin(
    KUBE_PROMETHEUS_STACK_CHART,
    KUBE_PROMETHEUS_STACK_REPOSITORY,
    KUBE_PROMETHEUS_STACK_CHART_VERSION,
    KUBE_PROMETHEUS_STACK_RELEASE,
    MONITORING_NAMESPACE,
)

_KPS = f"{REFERENCE}/kube-prometheus-stack-88.5.3"
_KPS_RELEASE = f"kube-prometheus-stack {KUBE_PROMETHEUS_STACK_CHART_VERSION}"


def _subchart(component: str, repository: str, chart: str) -> ImagePin:
    return ImagePin(
        component,
        repository,
        chart,
        f"none: the image is {chart}'s default, and that chart's values are not in {REFERENCE} "
        f"({_KPS}/Chart.yaml pins only the chart version)",
        verified=False,
        deployed_by=KUBE_PROMETHEUS_STACK_CHART,
    )


IMAGES: tuple[ImagePin, ...] = (
    ImagePin(
        "Prometheus Operator",
        image_reference("quay.io/prometheus-operator/prometheus-operator", PROMETHEUS_OPERATOR_VERSION),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheusOperator.image, empty tag) and {_KPS}/Chart.yaml (appVersion v0.93.1)",
        verified=True,
        deployed_by=KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Prometheus config reloader",
        image_reference("quay.io/prometheus-operator/prometheus-config-reloader", PROMETHEUS_OPERATOR_VERSION),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheusOperator.prometheusConfigReloader.image, empty tag) and {_KPS}/Chart.yaml "
        "(appVersion v0.93.1)",
        verified=True,
        deployed_by=KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Prometheus Operator webhook certificate job",
        image_reference("ghcr.io/jkroepke/kube-webhook-certgen", WEBHOOK_CERTGEN_IMAGE_TAG),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheusOperator.admissionWebhooks.patch.image, tag 1.8.7)",
        verified=True,
        deployed_by=KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Prometheus",
        image_reference("quay.io/prometheus/prometheus", PROMETHEUS_IMAGE_TAG),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheus.prometheusSpec.image, tag v3.14.0-distroless)",
        verified=True,
        deployed_by=KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Alertmanager",
        image_reference("quay.io/prometheus/alertmanager", ALERTMANAGER_IMAGE_TAG),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (alertmanager.alertmanagerSpec.image, tag v0.34.0)",
        verified=True,
        deployed_by=KUBE_PROMETHEUS_STACK_CHART,
    ),
    _subchart("Grafana", "docker.io/grafana/grafana", f"grafana chart {GRAFANA_CHART_VERSION}"),
    _subchart(
        "kube-state-metrics",
        "registry.k8s.io/kube-state-metrics/kube-state-metrics",
        f"kube-state-metrics chart {KUBE_STATE_METRICS_CHART_VERSION}",
    ),
    _subchart(
        "Prometheus node exporter",
        "quay.io/prometheus/node-exporter",
        f"prometheus-node-exporter chart {NODE_EXPORTER_CHART_VERSION}",
    ),
)
"""Every image the chart deploys by its defaults (``deployed_by`` names the chart)."""

CHARTS = (chart_source(KUBE_PROMETHEUS_STACK, f"{_KPS}/Chart.yaml (version 88.5.3)"),)

CHART_API_GROUPS: dict[str, tuple[str, ...]] = {KUBE_PROMETHEUS_STACK_CHART: (PROMETHEUS_OPERATOR_API_GROUP,)}
