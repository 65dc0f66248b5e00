"""Every container image and chart the kit deploys, with the release a source confirms it against.

One row per image reference (and per chart version). A row names the release it was checked
against, where (a file of ``shared/reference/`` or an upstream release page or tag) and when;
``verified`` is False where no source we hold confirms it: such a row still deploys, and
``make preflight`` checks that its tag resolves in its registry, but nobody has seen the
release itself. The versions themselves live in ``catalog/versions.py`` and in the add-ons' pins
(``addons/<name>/pin.py``, whose ``IMAGES`` and ``CHARTS`` join these tables with no line here); the rows
are built from them, so a bump that forgets its row fails ``tests/catalog/test_images.py``.

Which rows an environment uses is ``policy.infrastructure.images``; the registry look-ups are ``cli.live.registry``.
"""

from __future__ import annotations

import addons
from catalog import versions
from catalog.pins import CHECKED, ChartSource, ImagePin

__all__ = [
    "CHARTS",
    "CHECKED",
    "IMAGES",
    "IMAGES_BY_REFERENCE",
    "ChartSource",
    "ImagePin",
]

_ADDON_PINS = addons.pins()

IMAGES: tuple[ImagePin, ...] = (
    *(pin for addon in _ADDON_PINS for pin in getattr(addon, "IMAGES", ())),
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
"""Every image row: the add-ons' (in folder order), then the two no add-on owns.
``policy.infrastructure.images.deployed_images`` picks an environment's."""

IMAGES_BY_REFERENCE: dict[str, ImagePin] = {pin.image: pin for pin in IMAGES}


CHARTS: tuple[ChartSource, ...] = tuple(chart for addon in _ADDON_PINS for chart in getattr(addon, "CHARTS", ()))
"""Every chart row at its pinned version: every chart the kit installs is an add-on's, in folder order."""
