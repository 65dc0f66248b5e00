"""A probe of a command's garbage collector, loaded as ``sitecustomize`` (see that module)."""

from __future__ import annotations

import os
from pathlib import Path

SYNTHESIS = {"imports": ("aws_cdk", "cdk8s_plus_37"), "calls": ("render_checked", "render_environment", "new_app")}
"""What ``make synth`` and ``cdk synth``'s app import and call, over both of their processes."""


def probed_environment(log: Path) -> dict[str, str]:
    """The environment additions that load the probe into a command's processes, logging to ``log``."""
    path = [str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(path), "COLLECTOR_PROBE_LOG": str(log)}


def collector_states(log: Path) -> list[str]:
    """The probe's lines, sorted."""
    return sorted(log.read_text(encoding="utf-8").splitlines()) if log.exists() else []


def paused_for_imports(*, imports: tuple[str, ...], calls: tuple[str, ...]) -> list[str]:
    """What ``collector_states`` reads when each of ``imports`` ran with the collector off and each of
    ``calls`` ran once with it on and the imports' objects frozen (``accelerator.pause_gc_and_exit``)."""
    return sorted(
        [f"import {module}: collector off" for module in imports]
        + [f"call {call}: collector on, imports frozen" for call in calls]
    )
