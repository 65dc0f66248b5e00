"""PNG plots of a report (matplotlib, Agg backend, no timestamps in the files: same input, same bytes)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from observability.rules import PENDING_GROUPS
from simulation.report.measure import ALLOCATED_GPUS, TIME_TO_SCHEDULED

PENDING_PNG = "pending-groups.png"
ALLOCATION_PNG = "gpu-allocation.png"
WAIT_PNG = "time-to-scheduled.png"
_METADATA = {"Software": None}


@cache
def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, imported on the first plot (~0.5 s): reading or
    comparing reports does not need it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot


def _save(figure: Any, path: Path) -> None:
    figure.tight_layout()
    figure.savefig(path, dpi=90, metadata=_METADATA)
    _pyplot().close(figure)


def pending_plot(gang: dict[str, Any], path: Path) -> None:
    series = gang[PENDING_GROUPS]
    hours = [s / 3600 for s in series["seconds"]]
    figure, axes = _pyplot().subplots(figsize=(8, 3.2))
    for priority_class, values in series["by_priority_class"].items():
        axes.step(hours, values, where="post", label=priority_class)
    axes.set_xlabel("hours")
    axes.set_ylabel(PENDING_GROUPS)
    axes.set_title("PodGroups waiting to be scheduled, by priority class")
    axes.legend(loc="upper left", fontsize="small")
    _save(figure, path)


def allocation_plot(gang: dict[str, Any], path: Path) -> None:
    series = gang[ALLOCATED_GPUS]
    hours = [s / 3600 for s in series["seconds"]]
    figure, axes = _pyplot().subplots(figsize=(8, 3.2))
    rows = series["series"]
    if rows:
        axes.stackplot(
            hours, *[r["values"] for r in rows], labels=[f"{r['zone']} {r['gpu_model']}" for r in rows], step="post"
        )
        axes.legend(loc="upper left", fontsize="small")
    axes.set_xlabel("hours")
    axes.set_ylabel("GPUs allocated")
    axes.set_title("GPU allocation per zone and model (gangs)")
    _save(figure, path)


def wait_plot(modes: dict[str, dict[str, Any]], path: Path) -> None:
    figure, axes = _pyplot().subplots(figsize=(8, 3.2))
    classes = [row["priority_class"] for row in modes["gang"][TIME_TO_SCHEDULED]]
    width = 0.8 / max(1, len(modes))
    for offset, (mode, data) in enumerate(modes.items()):
        rows = {r["priority_class"]: r for r in data[TIME_TO_SCHEDULED]}
        values = [((rows.get(pc) or {}).get("p95") or 0) / 60 for pc in classes]
        axes.bar([i + offset * width for i in range(len(classes))], values, width=width, label=f"{mode} p95")
    axes.set_xticks([i + width / 2 for i in range(len(classes))], classes)
    axes.set_ylabel("minutes")
    axes.set_title("Creation to scheduled, p95 by priority class")
    axes.legend(fontsize="small")
    _save(figure, path)


def write_plots(modes: dict[str, dict[str, Any]], directory: Path) -> list[str]:
    pending_plot(modes["gang"], directory / PENDING_PNG)
    allocation_plot(modes["gang"], directory / ALLOCATION_PNG)
    wait_plot(modes, directory / WAIT_PNG)
    return [PENDING_PNG, ALLOCATION_PNG, WAIT_PNG]
