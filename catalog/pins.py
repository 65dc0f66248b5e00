"""The shapes every pin takes: a Helm release, an image row, a chart row, and what confirms them.

The pins themselves live with their add-on (``addons/<name>/pin.py``) or, for what no add-on owns,
in ``catalog/versions.py`` and ``catalog/images.py``; those two modules assemble the add-ons' rows.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKED = "2026-12-03"
"""When every image and chart row was last checked against its source."""

REFERENCE = "shared/reference"
"""The read-only copies of upstream files beside the repository (``../shared/reference``)."""


@dataclass(frozen=True)
class ChartPin:
    """One pinned Helm release: where the chart comes from, its version, and where it is installed."""

    chart: str
    repository: str
    version: str
    release: str
    namespace: str


@dataclass(frozen=True)
class ImagePin:
    """One container image reference the kit deploys, and what confirms it."""

    component: str
    image: str
    """``registry/repository:tag``; an empty tag means the deploying chart's own default, not pinned here."""
    release: str
    """The upstream release (tag, chart version) the reference was checked against."""
    source: str
    verified: bool
    checked: str = CHECKED
    deployed_by: str = ""
    """The chart whose defaults deploy it without a setting of ours (kube-prometheus-stack's images)."""

    @property
    def registry(self) -> str:
        return self.image.split("/", 1)[0]

    @property
    def repository(self) -> str:
        path = self.image.split("/", 1)[1]
        return path.rsplit(":", 1)[0] if ":" in path.rsplit("/", 1)[-1] else path

    @property
    def tag(self) -> str:
        last = self.image.rsplit("/", 1)[-1]
        return last.rsplit(":", 1)[1] if ":" in last else ""


@dataclass(frozen=True)
class ChartSource:
    """One Helm chart version the kit installs, and what confirms it."""

    pin: ChartPin
    release: str
    source: str
    verified: bool
    checked: str = CHECKED

    @property
    def oci(self) -> bool:
        return self.pin.repository.startswith("oci://")


def image_reference(repository: str, tag: str) -> str:
    """``repository:tag``, or the bare repository where the tag is the chart's default."""
    return f"{repository}:{tag}" if tag else repository


def chart_source(pin: ChartPin, source: str, *, verified: bool = True) -> ChartSource:
    """The row of ``pin``: its chart and version, and the source that confirms them."""
    return ChartSource(pin, f"{pin.chart} {pin.version}", source, verified)
