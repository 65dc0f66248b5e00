"""The add-ons the platform installs, one folder each: everything one add-on is, in one place.

An add-on folder (``addons/<name>/``) holds one module per layer of the platform, each importing only
what its layer may (``pyproject.toml``'s import contracts hold every folder to it):

- ``pin.py``: catalog-level data: releases, image and chart pins, their sources and the dates they were
  checked. It may import ``catalog`` alone. Its ``IMAGES``, ``CHARTS`` and ``CHART_API_GROUPS`` (each
  optional) join the central tables of ``catalog.images`` and ``catalog.versions`` without a line there.
- ``settings.py``: the add-on's section of the environment file (a ``config`` model).
- ``plan.py`` (or ``values.py``/``iam.py``): policy-level: chart values, IAM documents, plans.
- ``rules.py``: the add-on's cross-field rules (refusals) and alert rules.
- ``construct.py``: the CDK construct that deploys it.

A new folder here is found by ``names()``: its pin's rows reach the central tables with no registration.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def names() -> tuple[str, ...]:
    """Every add-on folder under ``addons/``, in name order."""
    return tuple(sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg))


def pins() -> tuple[ModuleType, ...]:
    """Every add-on's ``pin`` module, in name order (an add-on without one has no pins)."""
    found = []
    for name in names():
        try:
            found.append(importlib.import_module(f"{__name__}.{name}.pin"))
        except ModuleNotFoundError as missing:
            if missing.name != f"{__name__}.{name}.pin":
                raise
    return tuple(found)
