"""A probe of a command's garbage collector, loaded as ``sitecustomize`` (see that module)."""

from __future__ import annotations

import os
from pathlib import Path

PROBED_CALLS = ("render_checked", "render_environment", "new_app")


def probed_environment(log: Path) -> dict[str, str]:
    """The environment additions that load the probe into a command's processes, logging to ``log``."""
    path = [str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(path), "COLLECTOR_PROBE_LOG": str(log)}


def collector_states(log: Path) -> list[str]:
    """The probe's lines, sorted: ``collector <call>: <whether the collector was on>``."""
    return sorted(log.read_text(encoding="utf-8").splitlines()) if log.exists() else []


def collector_on(*calls: str) -> list[str]:
    """What ``collector_states`` reads when each of ``calls`` ran once with the collector on."""
    return sorted(f"collector {call}: True" for call in calls)
