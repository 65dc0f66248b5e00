"""Every container image and chart the kit deploys, with the release a source confirms it against.

One row per image reference (and per chart version). A row names the release it was checked
against, where (a file of ``shared/reference/`` or an upstream release page or tag) and when;
``verified`` is False where no source we hold confirms it: such a row still deploys, and
``make preflight`` checks that its tag resolves in its registry, but nobody has seen the
release itself. The versions themselves live in ``catalog/versions.py`` and in the add-ons' pins
(``addons/<name>/pin.py``, whose ``IMAGES`` and ``CHARTS`` join these tables with no line here); the rows
are built from them, so a bump that forgets its row fails ``tests/test_image_pins.py``.

Which rows an environment uses is ``policy.infrastructure.images``; the registry look-ups are ``cli.registry``.
"""

from __future__ import annotations

import addons
from catalog import versions
from catalog.pins import CHECKED, REFERENCE, ChartSource, ImagePin, chart_source
from catalog.pins import image_reference as _image

__all__ = [
    "CHARTS",
    "CHECKED",
    "IMAGES",
    "IMAGES_BY_REFERENCE",
    "ChartSource",
    "ImagePin",
]

_ADDON_PINS = addons.pins()


_KPS = f"{REFERENCE}/kube-prometheus-stack-88.5.3"
_KPS_RELEASE = f"kube-prometheus-stack {versions.KUBE_PROMETHEUS_STACK_CHART_VERSION}"


def _subchart(component: str, repository: str, chart: str) -> ImagePin:
    return ImagePin(
        component,
        repository,
        chart,
        f"none: the image is {chart}'s default, and that chart's values are not in {REFERENCE} "
        f"({_KPS}/Chart.yaml pins only the chart version)",
        verified=False,
        deployed_by=versions.KUBE_PROMETHEUS_STACK_CHART,
    )


IMAGES: tuple[ImagePin, ...] = (
    *(pin for addon in _ADDON_PINS for pin in getattr(addon, "IMAGES", ())),
    ImagePin(
        "Prometheus Operator",
        _image("quay.io/prometheus-operator/prometheus-operator", versions.PROMETHEUS_OPERATOR_VERSION),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheusOperator.image, empty tag) and {_KPS}/Chart.yaml (appVersion v0.93.1)",
        verified=True,
        deployed_by=versions.KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Prometheus config reloader",
        _image("quay.io/prometheus-operator/prometheus-config-reloader", versions.PROMETHEUS_OPERATOR_VERSION),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheusOperator.prometheusConfigReloader.image, empty tag) and {_KPS}/Chart.yaml "
        "(appVersion v0.93.1)",
        verified=True,
        deployed_by=versions.KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Prometheus Operator webhook certificate job",
        _image("ghcr.io/jkroepke/kube-webhook-certgen", versions.WEBHOOK_CERTGEN_IMAGE_TAG),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheusOperator.admissionWebhooks.patch.image, tag 1.8.7)",
        verified=True,
        deployed_by=versions.KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Prometheus",
        _image("quay.io/prometheus/prometheus", versions.PROMETHEUS_IMAGE_TAG),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (prometheus.prometheusSpec.image, tag v3.14.0-distroless)",
        verified=True,
        deployed_by=versions.KUBE_PROMETHEUS_STACK_CHART,
    ),
    ImagePin(
        "Alertmanager",
        _image("quay.io/prometheus/alertmanager", versions.ALERTMANAGER_IMAGE_TAG),
        _KPS_RELEASE,
        f"{_KPS}/values.yaml (alertmanager.alertmanagerSpec.image, tag v0.34.0)",
        verified=True,
        deployed_by=versions.KUBE_PROMETHEUS_STACK_CHART,
    ),
    _subchart("Grafana", "docker.io/grafana/grafana", f"grafana chart {versions.GRAFANA_CHART_VERSION}"),
    _subchart(
        "kube-state-metrics",
        "registry.k8s.io/kube-state-metrics/kube-state-metrics",
        f"kube-state-metrics chart {versions.KUBE_STATE_METRICS_CHART_VERSION}",
    ),
    _subchart(
        "Prometheus node exporter",
        "quay.io/prometheus/node-exporter",
        f"prometheus-node-exporter chart {versions.NODE_EXPORTER_CHART_VERSION}",
    ),
    ImagePin(
        "Smoke-test gangs and gate probes (pause)",
        versions.SMOKE_TEST_IMAGE,
        "pause 3.10",
        "kubeadm's pinned pause image of Kubernetes 1.31-1.33 (cmd/kubeadm/app/constants PauseVersion 3.10), as "
        "stored release pins of those versions show",
        verified=True,
    ),
    ImagePin(
        "Gang exporter base image (exporter/Dockerfile)",
        versions.EXPORTER_BASE_IMAGE,
        "python 3.11-slim (a moving tag of the Docker official image)",
        "none: a moving tag, not a release; make preflight shows the digest it resolves to today",
        verified=False,
    ),
)
"""Every image row; ``policy.infrastructure.images.deployed_images`` picks an environment's."""

IMAGES_BY_REFERENCE: dict[str, ImagePin] = {pin.image: pin for pin in IMAGES}


CHARTS: tuple[ChartSource, ...] = (
    *(chart for addon in _ADDON_PINS for chart in getattr(addon, "CHARTS", ())),
    chart_source(versions.KUBE_PROMETHEUS_STACK, f"{_KPS}/Chart.yaml (version 88.5.3)"),
)
"""Every chart row at its pinned version (the add-ons' rows first, in folder order)."""
