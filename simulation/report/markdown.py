"""``REPORT.md``: the measurements people read, with the plots embedded."""

from __future__ import annotations

from typing import Any

from observability.rules import ALLOCATION_FAILURES_TOTAL, PREEMPTIONS_TOTAL
from simulation.report.measure import ALLOCATABLE_GPUS, TIME_TO_SCHEDULED
from simulation.report.plots import ALLOCATION_PNG, PENDING_PNG, WAIT_PNG

TOP_PREEMPTED = 5


def _minutes(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds / 60:.1f}"


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines if rows else [*lines, "| " + " | ".join(["—"] * len(header)) + " |"]


def report_markdown(report: dict[str, Any]) -> str:
    modes = report["modes"]
    gang, pod = modes["gang"], modes["pod"]
    labels = report.get("labels") or {"gang": "gangs", "pod": "baseline"}
    main_label, other = labels["gang"], labels["pod"]
    title = report["title"]
    lines = [
        f"# Simulation: {title['mix']} on {title['environment']}",
        "",
        f"Seed {title['seed']}, {title['hours']:g} simulated hours, {gang['groups']} gangs "
        f"({title['command']}). The same numbers are in `report.json`; metric names and labels are the gang "
        "exporter's. "
        + (
            "Baseline: the same gangs with every pod scheduled on its own (no gangs, no topology)."
            if "labels" not in report
            else f"Columns: {main_label}, then {other}."
        ),
        "",
        f"## Time from PodGroup creation to scheduled (`{TIME_TO_SCHEDULED}`, minutes)",
        "",
    ]
    rows = []
    baseline = {r["priority_class"]: r for r in pod[TIME_TO_SCHEDULED]}
    for row in gang[TIME_TO_SCHEDULED]:
        base_row = baseline.get(row["priority_class"], {})
        rows.append(
            [
                row["priority_class"],
                row["groups"],
                row["scheduled"],
                _minutes(row["p50"]),
                _minutes(row["p95"]),
                _minutes(row["max"]),
                base_row.get("scheduled", "—"),
                _minutes(base_row.get("p95")),
            ]
        )
    lines += _table(
        ["priority_class", "groups", "scheduled", "p50", "p95", "max", f"{other} scheduled", f"{other} p95"], rows
    )
    lines += [
        "",
        f"![time to scheduled]({WAIT_PNG})",
        "",
        "## Pending groups by priority class (`gang_podgroups_pending`)",
        "",
    ]
    lines += [f"![pending groups]({PENDING_PNG})", "", f"## Preemptions per group (`{PREEMPTIONS_TOTAL}`)", ""]
    lines += _table(
        ["priority_class", "groups", "groups preempted", "preemptions", "most for one group"],
        [
            [r["priority_class"], r["groups"], r["groups_preempted"], r["preemptions"], r["max_per_group"]]
            for r in gang[PREEMPTIONS_TOTAL]["by_priority_class"]
        ],
    )
    top = gang[PREEMPTIONS_TOTAL]["groups"][:TOP_PREEMPTED]
    if top:
        lines += ["", f"Most preempted groups ({main_label}):", ""]
        lines += _table(
            ["namespace", "podgroup", "priority_class", "preemptions"],
            [[g["namespace"], g["podgroup"], g["priority_class"], g["value"]] for g in top],
        )
    lines += ["", f"## Allocation failures by requested DeviceClass (`{ALLOCATION_FAILURES_TOTAL}`)", ""]
    lines += _table(
        ["device_class", f"failed attempts ({main_label})", f"failed attempts ({other})"],
        [
            [
                r["device_class"],
                r["value"],
                next((b["value"] for b in pod[ALLOCATION_FAILURES_TOTAL] if b["device_class"] == r["device_class"]), 0),
            ]
            for r in gang[ALLOCATION_FAILURES_TOTAL]
        ],
    )
    lines += ["", "## GPU allocation per zone and model", "", f"![GPU allocation]({ALLOCATION_PNG})", ""]
    lines += _table(
        ["zone", "instance_type", "gpu_model", f"peak `{ALLOCATABLE_GPUS}`"],
        [[r["zone"], r["instance_type"], r["gpu_model"], f"{r['max']:g}"] for r in gang[ALLOCATABLE_GPUS]["series"]],
    )
    lines += ["", "## Gangs that never started", ""]
    lines += _table(
        ["mode", "reason", "priority_class", "class", "groups", "GPUs each", "example"],
        [
            [mode, r["reason"], r["priority_class"], r["job_class"], r["groups"], r["gpus"], r["example"]]
            for mode, data in ((main_label, gang), (other, pod))
            for r in data["never_started"]
        ],
    )
    reasons = gang["reasons"]
    lines += ["", *[f"- `{reason}`: {text}" for reason, text in reasons.items()], ""]
    lines += ["## GPU-hours", ""]
    keys = ["requested", "running", "held_idle_by_partial_starts", "lost_to_preemption"]
    lines += _table(
        ["", *keys],
        [
            [label, *[data["gpu_hours"][k] for k in keys]]
            for label, data in (("gangs", gang), ("per-pod baseline", pod))
        ],
    )
    lines += [
        "",
        "`held_idle_by_partial_starts`: GPUs held by pods of gangs that did not have all the pods they need "
        "running; `lost_to_preemption`: work of runs cut short (a preempted gang restarts from the beginning).",
        "",
    ]
    if "skipped" in report:
        lines += [
            "GPU-hours are not measured on a live cluster (0 in its row).",
            "",
            f"Not submitted: {len(report['skipped'])} gangs without a team run to render "
            "(traces, classes without a team).",
            "",
        ]
    return "\n".join(lines)
