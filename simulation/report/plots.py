"""PNG plots of a report (matplotlib, Agg backend, no timestamps in the files: same input, same bytes).

Each run has one style in every plot (the measured run solid, the one it is compared with dashed and
drawn on top), so equal series stay visible; every priority class and GPU model gets its own panel.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from observability.rules import PENDING_GROUPS
from simulation.report.measure import ALLOCATABLE_GPUS, ALLOCATED_GPUS, TIME_TO_SCHEDULED, duration, named_runs

PENDING_PNG = "pending-groups.png"
ALLOCATION_PNG = "gpu-allocation.png"
WAIT_PNG = "time-to-scheduled.png"
_METADATA = {"Software": None}
_STYLES = (
    {"color": "tab:blue", "linestyle": "-", "linewidth": 2.4, "zorder": 2},
    {"color": "tab:orange", "linestyle": (0, (4, 2)), "linewidth": 1.4, "zorder": 3},
)
"""Line style per run: the measured run first."""

Runs = list[tuple[str, dict[str, Any]]]


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


def _panels(rows: int, columns: int = 1, *, height: float, width: float = 8.0) -> tuple[Any, list[list[Any]]]:
    rows, columns = max(1, rows), max(1, columns)
    figure, axes = _pyplot().subplots(
        rows, columns, figsize=(width, 0.6 + height * rows), sharex=True, squeeze=False, sharey="row"
    )
    return figure, [list(row) for row in axes]


def _lift(axes: Any, top: float, *, headroom: float = 1.3) -> None:
    """Y from a little below 0, so a series at 0 is drawn above the axis, not on it; room above
    ``top`` for a legend."""
    top = max(1.0, top) * headroom
    axes.set_ylim(-0.04 * top, top)


def pending_plot(runs: Runs, path: Path) -> None:
    """``gang_podgroups_pending`` over time, one panel per priority class, one line per run."""
    classes = list(dict.fromkeys(pc for _, data in runs for pc in data[PENDING_GROUPS]["by_priority_class"]))
    figure, panels = _panels(len(classes), height=1.6, width=9.0)
    for (axes,), priority_class in zip(panels, classes, strict=False):
        top = 0.0
        for (name, data), style in zip(runs, _STYLES, strict=False):
            series = data[PENDING_GROUPS]
            values = series["by_priority_class"].get(priority_class)
            if values is not None:
                hours = [s / 3600 for s in series["seconds"]]
                axes.step(hours, values, where="post", label=name, **style)
                top = max(top, *values)
        _lift(axes, top)
        axes.set_ylabel("pending")
        groups = runs[0][1].get("groups_by_priority_class", {}).get(priority_class)
        heading = priority_class if groups is None else f"{priority_class} ({groups} groups)"
        axes.set_title(heading, fontsize="medium", loc="left")
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")  # outside: hides no line
    figure.suptitle(f"PodGroups waiting to be scheduled ({PENDING_GROUPS})", fontsize="medium")
    panels[-1][0].set_xlabel("hours")
    _save(figure, path)


def _model_totals(data: dict[str, Any], key: str, model: str) -> list[float] | None:
    found = [r["values"] for r in data[key]["series"] if r["gpu_model"] == model]
    return [sum(values) for values in zip(*found, strict=True)] if found else None


def allocation_plot(runs: Runs, path: Path) -> None:
    """GPUs allocated per zone, stacked, under the Ready nodes' GPUs (``gang_node_allocatable_gpus``)
    as a capacity line: a row per GPU model, a column per run (their autoscaled capacity can differ)."""
    models = sorted(
        {r["gpu_model"] for _, data in runs for key in (ALLOCATED_GPUS, ALLOCATABLE_GPUS) for r in data[key]["series"]}
    )
    zones = sorted({r["zone"] for _, data in runs for r in data[ALLOCATED_GPUS]["series"]})
    colours = {zone: f"C{i}" for i, zone in enumerate(zones)}
    figure, panels = _panels(len(models), len(runs), height=2.0, width=10.0)
    for row, model in zip(panels, models, strict=False):
        top = 0.0
        for axes, (name, data) in zip(row, runs, strict=False):
            hours = [s / 3600 for s in data[ALLOCATED_GPUS]["seconds"]]
            stacked = [r for r in data[ALLOCATED_GPUS]["series"] if r["gpu_model"] == model]
            if stacked:
                axes.stackplot(
                    hours,
                    *[r["values"] for r in stacked],
                    labels=[r["zone"] for r in stacked],
                    colors=[colours[r["zone"]] for r in stacked],
                    step="post",
                    alpha=0.6,
                )
                top = max(top, *(sum(v) for v in zip(*[r["values"] for r in stacked], strict=True)))
            capacity = _model_totals(data, ALLOCATABLE_GPUS, model)
            if capacity is not None:
                capacity_hours = [s / 3600 for s in data[ALLOCATABLE_GPUS]["seconds"]]
                axes.step(capacity_hours, capacity, where="post", color="black", linewidth=1.6, label="capacity")
                top = max(top, *capacity)
            axes.set_title(f"{model} ({name})", fontsize="medium", loc="left")
            axes.legend(loc="upper left", fontsize="small", ncol=3)
        for axes in row:
            _lift(axes, top, headroom=1.5)
        row[0].set_ylabel("GPUs")
    figure.suptitle(f"GPUs allocated per zone, and capacity ({ALLOCATABLE_GPUS} of Ready nodes)", fontsize="medium")
    for axes in panels[-1]:
        axes.set_xlabel("hours")
    _save(figure, path)


def wait_plot(runs: Runs, path: Path) -> None:
    """p95 creation to scheduled per priority class and run; a lower bound (gangs still waiting at
    the horizon) hatched and marked ``≥``; each bar names its sample."""
    classes = list(dict.fromkeys(r["priority_class"] for _, data in runs for r in data[TIME_TO_SCHEDULED]))
    figure, axes = _pyplot().subplots(figsize=(9, 0.9 + 0.75 * max(1, len(classes)) * len(runs) / 2))
    height = 0.8 / max(1, len(runs))
    top = 0.0
    for offset, ((name, data), style) in enumerate(zip(runs, _STYLES, strict=False)):
        rows = {r["priority_class"]: r for r in data[TIME_TO_SCHEDULED]}
        for i, pc in enumerate(classes):
            row = rows.get(pc)
            if row is None or row["p95"] is None:
                continue
            hours = row["p95"] / 3600
            top = max(top, hours)
            y = i + (offset - (len(runs) - 1) / 2) * height
            axes.barh(
                y,
                hours,
                height=height,
                color=style["color"],
                hatch="//" if row["p95_at_least"] else "",
                edgecolor="black",
                linewidth=0.6,
                label=name if i == 0 else None,
            )
            note = f" {name}: {duration(row['p95'], at_least=row['p95_at_least'])} (n={row['groups']}"
            note += f", {row['never_started']} never started)" if row["never_started"] else ")"
            axes.annotate(note, (hours, y), ha="left", va="center", fontsize="small")
    axes.set_yticks(range(len(classes)), classes)
    axes.invert_yaxis()
    axes.set_xlim(0, max(1.0, top) * 2.1)
    axes.set_xlabel("hours")
    axes.set_title("Creation to scheduled, p95 by priority class (hatched: at least, some never started)")
    axes.legend(fontsize="small", loc="lower right")
    _save(figure, path)


def write_plots(report: dict[str, Any], directory: Path) -> list[str]:
    runs = named_runs(report)
    pending_plot(runs, directory / PENDING_PNG)
    allocation_plot(runs, directory / ALLOCATION_PNG)
    wait_plot(runs, directory / WAIT_PNG)
    return [PENDING_PNG, ALLOCATION_PNG, WAIT_PNG]
