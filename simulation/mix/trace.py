"""Job traces: a team's own history, replayed as gangs.

Format (CSV, UTF-8, one header line, one job per line)::

    submit_time,duration_minutes,gpus,gpu_model,priority
    2026-11-02T08:00:00Z,240,64,H100-80GB,deadline

- ``submit_time``: ISO 8601 with a zone; times shift so the first job arrives at the start.
- ``duration_minutes``: run time once started (> 0).
- ``gpus``: 1-8 (one pod), or a multiple of 8 (that many 8-GPU pods in one gang).
- ``gpu_model``: a GPU model of ``catalog/instances.py`` (``H100-80GB``, ``H200``, ``L4``, ...);
  its DeviceClass must be published in the environment.
- ``priority``: a tier (``critical``, ``deadline``, ``standard``, ``opportunistic``) or its
  PriorityClass (``gpu-deadline``).

Pods request 1 vCPU and 4 GiB per GPU, so a traced gang is bounded by GPUs alone.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from catalog.device_classes import DEVICE_CLASSES, DeviceShape
from catalog.instances import GPU_SPECS, GpuModel
from catalog.priority_tiers import TIERS, Tier
from config.errors import ConfigError
from config.model import EnvironmentConfig

COLUMNS = ("submit_time", "duration_minutes", "gpus", "gpu_model", "priority")
GPUS_PER_POD = 8
CPU_PER_GPU = 1
MEMORY_GIB_PER_GPU = 4
_TIER_NAMES = {t.value: t for t in Tier} | {spec.priority_class: tier for tier, spec in TIERS.items()}


@dataclass(frozen=True)
class TracedJob:
    submit_seconds: float
    duration_seconds: float
    pods: int
    gpus_per_pod: int
    device_class: DeviceShape
    tier: Tier


def product_class(model: GpuModel) -> DeviceShape:
    """The DeviceClass that selects exactly ``model``'s whole GPUs."""
    product = GPU_SPECS[model].product_name
    return next(shape for shape, spec in DEVICE_CLASSES.items() if spec.product_name == product)


def read_trace(env: EnvironmentConfig, file: Path) -> list[TracedJob]:
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(
            "file", str(file), f"cannot read trace ({error.strerror})", "give an existing CSV file"
        ) from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or tuple(c.strip() for c in rows[0]) != COLUMNS:
        raise ConfigError(
            "line 1", ",".join(rows[0]) if rows else "", "not the trace header", f"start with {','.join(COLUMNS)}"
        )
    parsed = [_row(env, number, row) for number, row in enumerate(rows[1:], start=2) if any(c.strip() for c in row)]
    start = min((submit for submit, _ in parsed), default=None)
    return [TracedJob((submit - start).total_seconds(), *job) for submit, job in parsed if start is not None]


def _row(
    env: EnvironmentConfig, number: int, row: list[str]
) -> tuple[datetime, tuple[float, int, int, DeviceShape, Tier]]:
    if len(row) != len(COLUMNS):
        raise ConfigError(
            f"line {number}", ",".join(row), f"{len(row)} columns", f"give {len(COLUMNS)}: {','.join(COLUMNS)}"
        )
    submit_text, duration_text, gpus_text, model_text, priority_text = (c.strip() for c in row)
    try:
        submit = datetime.fromisoformat(submit_text.replace("Z", "+00:00"))
    except ValueError:
        submit = None
    if submit is None or submit.tzinfo is None:
        raise ConfigError(
            f"line {number}.submit_time",
            submit_text,
            "not an ISO 8601 time with a zone",
            "write e.g. 2026-11-02T08:00:00Z",
        )
    try:
        duration = float(duration_text)
    except ValueError:
        duration = -1.0
    if not duration > 0 or not math.isfinite(duration):
        raise ConfigError(
            f"line {number}.duration_minutes", duration_text, "not a positive number of minutes", "write e.g. 90"
        )
    gpus = int(gpus_text) if gpus_text.isdigit() else 0
    if gpus < 1 or (gpus > GPUS_PER_POD and gpus % GPUS_PER_POD):
        raise ConfigError(
            f"line {number}.gpus",
            gpus_text,
            f"not 1-{GPUS_PER_POD} or a multiple of {GPUS_PER_POD}",
            "round to whole nodes",
        )
    try:
        model = GpuModel(model_text)
    except ValueError:
        raise ConfigError(
            f"line {number}.gpu_model",
            model_text,
            "unknown GPU model",
            f"use one of {', '.join(m.value for m in GpuModel)}",
        ) from None
    shape = product_class(model)
    if shape not in env.platform.device_classes:
        raise ConfigError(
            f"line {number}.gpu_model",
            model_text,
            f"its DeviceClass {shape.value} is not published in {env.name}",
            "add it to platform.device_classes, or drop the line",
        )
    tier = _TIER_NAMES.get(priority_text)
    if tier is None:
        raise ConfigError(
            f"line {number}.priority", priority_text, "unknown priority", f"use one of {', '.join(sorted(_TIER_NAMES))}"
        )
    pods = max(1, gpus // GPUS_PER_POD)
    return submit, (duration * 60, pods, gpus // pods, shape, tier)
