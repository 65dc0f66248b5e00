"""Check Helm values we set against a chart's own ``values.yaml``."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def unknown_keys(
    ours: dict[str, Any], chart: dict[str, Any], *, free_form: Collection[str] = (), prefix: str = ""
) -> list[str]:
    """Keys we set that the chart does not declare.

    Below a chart default of ``{}`` (or a path listed in ``free_form``) any key is allowed:
    those are user maps such as ``nodeSelector``.
    """
    unknown = []
    for key, value in ours.items():
        path = f"{prefix}{key}"
        if key not in chart:
            unknown.append(path)
        elif isinstance(value, dict) and path not in free_form and chart[key]:
            unknown += unknown_keys(value, chart[key], free_form=free_form, prefix=f"{path}.")
    return unknown
