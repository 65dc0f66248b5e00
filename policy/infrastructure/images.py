"""Which pinned images and charts an environment deploys, and what a registry look-up says of each.

``deployed_images``/``deployed_charts`` pick an environment's rows of ``catalog/images.py``,
following the same switches as the stacks (an autoscaled pool installs Cluster Autoscaler, a
Karpenter pool Karpenter, and so on) and the image references the chart values set. An image
the values name that has no row gets one marked unverified. ``cli.live.registry`` asks the
registries; the decisions here turn its answers into checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from addons.cluster_autoscaler.pin import CLUSTER_AUTOSCALER_CHART, CLUSTER_AUTOSCALER_IMAGE
from addons.cluster_autoscaler.plan import cluster_autoscaler_values
from addons.efa_device_plugin.pin import (
    EFA_DEVICE_PLUGIN_CHART,
    EFA_DEVICE_PLUGIN_IMAGE,
    EFA_DEVICE_PLUGIN_IMAGE_TAG,
    regional_efa_pin,
)
from addons.efa_device_plugin.plan import efa_device_plugin_values
from addons.karpenter.pin import KARPENTER_CONTROLLER_IMAGE, karpenter_charts
from addons.karpenter.plan import uses_karpenter
from addons.kube_prometheus_stack.pin import KUBE_PROMETHEUS_STACK_CHART
from addons.nvidia_dra_driver.pin import (
    DRA_DRIVER_CHART,
    DRA_DRIVER_IMAGE,
    DRA_DRIVER_IMAGE_TAG,
    NVIDIA_DEVICE_PLUGIN_CHART,
    NVIDIA_DEVICE_PLUGIN_IMAGE,
    NVIDIA_DEVICE_PLUGIN_IMAGE_TAG,
)
from catalog import versions
from catalog.images import CHARTS, IMAGES, IMAGES_BY_REFERENCE, ChartSource, ImagePin
from config.model import EnvironmentConfig
from config.observability import PrometheusMode
from policy.infrastructure.efa import efa_pools
from policy.infrastructure.node_pools import autoscaled_pools
from policy.results import Check, Status

PIN_FIX = "pin a release that exists in catalog/versions.py and record its source in catalog/images.py"


def _row(component: str, image: str) -> ImagePin:
    found = IMAGES_BY_REFERENCE.get(image)
    if found is not None:
        return found
    return ImagePin(component, image, "unknown", "none: no row in catalog/images.py", verified=False)


def _values_image(values: Mapping[str, Any], repository: str, tag: str) -> str:
    image = values.get("image", {})
    return f"{image.get('repository', repository)}:{image.get('tag', tag)}"


def _charts(*names: str) -> list[ChartSource]:
    return [c for c in CHARTS if c.pin.chart in names]


def deployed_images(env: EnvironmentConfig) -> list[ImagePin]:
    """The image rows ``env`` deploys, in a fixed order, each once."""
    rows: list[ImagePin] = []
    if autoscaled_pools(env):
        values = cluster_autoscaler_values(env)
        rows.append(_row("Cluster Autoscaler", _values_image(values, CLUSTER_AUTOSCALER_IMAGE, "")))
    if uses_karpenter(env):
        rows.append(_row("Karpenter controller", f"{KARPENTER_CONTROLLER_IMAGE}:{env.karpenter.version}"))
    if env.dra_driver.enabled:
        rows.append(_row("NVIDIA DRA driver", f"{DRA_DRIVER_IMAGE}:{DRA_DRIVER_IMAGE_TAG}"))
    if any(pool.device_plugin for pool in env.gpu_pools):
        plugin = f"{NVIDIA_DEVICE_PLUGIN_IMAGE}:{NVIDIA_DEVICE_PLUGIN_IMAGE_TAG}"
        rows.append(_row("NVIDIA device plugin", plugin))
    if efa_pools(env):
        values = efa_device_plugin_values(env)
        efa = _values_image(values, EFA_DEVICE_PLUGIN_IMAGE, EFA_DEVICE_PLUGIN_IMAGE_TAG)
        rows.append(regional_efa_pin(efa) or _row("EFA device plugin", efa))
    if env.observability.enabled and env.observability.prometheus is PrometheusMode.INSTALL:
        rows.extend(pin for pin in IMAGES if pin.deployed_by == KUBE_PROMETHEUS_STACK_CHART)
    rows.append(_row("pause", versions.SMOKE_TEST_IMAGE))
    if env.observability.enabled:
        rows.append(_row("Gang exporter base image", versions.EXPORTER_BASE_IMAGE))
    return list({pin.image: pin for pin in rows}.values())


def deployed_charts(env: EnvironmentConfig) -> list[ChartSource]:
    """The chart rows ``env`` installs, in a fixed order."""
    rows: list[ChartSource] = []
    if autoscaled_pools(env):
        rows += _charts(CLUSTER_AUTOSCALER_CHART)
    if uses_karpenter(env):
        rows += karpenter_charts(env.karpenter.version)
    if env.dra_driver.enabled:
        rows += _charts(DRA_DRIVER_CHART)
    if any(pool.device_plugin for pool in env.gpu_pools):
        rows += _charts(NVIDIA_DEVICE_PLUGIN_CHART)
    if efa_pools(env):
        rows += _charts(EFA_DEVICE_PLUGIN_CHART)
    if env.observability.enabled and env.observability.prometheus is PrometheusMode.INSTALL:
        rows += _charts(KUBE_PROMETHEUS_STACK_CHART)
    return rows


class Outcome(StrEnum):
    """What a registry said about one reference."""

    FOUND = "found"
    MISSING = "missing"
    DENIED = "denied"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class Lookup:
    outcome: Outcome
    detail: str = ""
    """The digest (found), or what the registry or network said (otherwise)."""


def image_check(pin: ImagePin, lookup: Lookup | None) -> Check:
    """One image: OK when its tag resolves and a source confirms it; WARN when it resolves unconfirmed."""
    if not pin.tag:
        return Check(
            "image",
            pin.image,
            Status.SKIP,
            f"no tag pinned here: {pin.release} chooses it; {pin.source}",
            "pin the tag in the chart values once a source confirms it",
        )
    return _decide("image", pin.image, pin.registry, pin.verified, pin.release, pin.checked, lookup)


def chart_check(chart: ChartSource, lookup: Lookup | None) -> Check:
    subject = f"{chart.pin.repository} {chart.pin.version}"
    where = chart.pin.repository.removeprefix("oci://").split("/", 1)[0]
    return _decide("chart", subject, where, chart.verified, chart.release, chart.checked, lookup)


def _decide(
    check: str, subject: str, where: str, verified: bool, release: str, checked: str, lookup: Lookup | None
) -> Check:
    if lookup is None or lookup.outcome is Outcome.UNREACHABLE:
        reason = lookup.detail if lookup is not None else "not looked up"
        return Check(check, subject, Status.SKIP, f"skipped: {where} unreachable ({reason})")
    if lookup.outcome is Outcome.DENIED:
        return Check(check, subject, Status.SKIP, f"skipped: {where} refused the look-up ({lookup.detail})")
    if lookup.outcome is Outcome.MISSING:
        return Check(check, subject, Status.FAIL, f"{where} does not have it ({lookup.detail})", PIN_FIX)
    found = f"resolves ({lookup.detail})" if lookup.detail else "resolves"
    if not verified:
        return Check(
            check,
            subject,
            Status.WARN,
            f"{found}, but no source confirms {release} (catalog/images.py)",
            "record the source that confirms the release in catalog/images.py and set verified=True",
        )
    return Check(check, subject, Status.OK, f"{found}; {release}, checked {checked}")


def offline_check(reason: str) -> Check:
    """The one line that replaces every image and chart check without network access."""
    return Check("images", "registries", Status.SKIP, f"skipped: no network access to the registries ({reason})")


def registry_checks(
    images: Sequence[ImagePin],
    charts: Sequence[ChartSource],
    image_lookups: Mapping[str, Lookup],
    chart_lookups: Mapping[str, Lookup],
) -> list[Check]:
    """Images, then charts, in the order given; a look-up missing from the answers is a skip."""
    return [image_check(pin, image_lookups.get(pin.image)) for pin in images] + [
        chart_check(chart, chart_lookups.get(chart_key(chart))) for chart in charts
    ]


def chart_key(chart: ChartSource) -> str:
    return f"{chart.pin.repository}@{chart.pin.chart}:{chart.pin.version}"
