"""``REPORT.md``: the measurements people read, with the plots embedded.

Waits are shown with their unit; a lower bound (a gang still waiting at the horizon) as ``≥``. Every
row comparing the two runs names its sample: the ``groups`` of the class, of which ``scheduled``
started and ``never_started`` did not.
"""

from __future__ import annotations

from typing import Any

from observability.rules import ALLOCATION_FAILURES_TOTAL, PREEMPTIONS_TOTAL
from simulation.report.measure import ALLOCATABLE_GPUS, TIME_TO_SCHEDULED, duration, named_runs
from simulation.report.plots import ALLOCATION_PNG, PENDING_PNG, WAIT_PNG

TOP_PREEMPTED = 5


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines if rows else [*lines, "| " + " | ".join(["—"] * len(header)) + " |"]


def _by_class(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["priority_class"]: r for r in rows}


def _wait_rows(runs: list[tuple[str, dict[str, Any]]]) -> list[list[object]]:
    classes = list(dict.fromkeys(r["priority_class"] for _, data in runs for r in data[TIME_TO_SCHEDULED]))
    rows: list[list[object]] = []
    for priority_class in classes:
        for name, data in runs:
            row = _by_class(data[TIME_TO_SCHEDULED]).get(priority_class)
            if row is None:
                continue
            stats = [duration(row[s], at_least=row[f"{s}_at_least"]) for s in ("p50", "p95", "max")]
            rows.append([priority_class, name, row["groups"], row["scheduled"], row["never_started"], *stats])
    return rows


def _preemption_rows(runs: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[list[object]]]:
    keys = ["preemptions", "preempted_pods", "groups_preempted", "max_per_group"]
    header = ["priority_class", "groups", *[f"{k} ({name})" for k in keys for name, _ in runs]]
    tables = [_by_class(data[PREEMPTIONS_TOTAL]["by_priority_class"]) for _, data in runs]
    classes = list(dict.fromkeys(pc for table in tables for pc in table))
    rows: list[list[object]] = []
    for pc in classes:
        groups = next(t[pc]["groups"] for t in tables if pc in t)
        rows.append([pc, groups, *[t[pc][k] if pc in t else "—" for k in keys for t in tables]])
    return header, rows


def report_markdown(report: dict[str, Any]) -> str:
    runs = named_runs(report)
    (main, gang), (other, _) = runs
    title = report["title"]
    compared = (
        f"`{other}`: the same gangs with every pod scheduled on its own (no gangs, no topology), in "
        "kube-scheduler's queue order (priority, then creation; the pods of gangs created together alternate)."
        if "labels" not in report
        else f"`{main}` compared with `{other}`."
    )
    lines = [
        f"# Simulation: {title['mix']} on {title['environment']}",
        "",
        f"Seed {title['seed']}, {title['hours']:g} simulated hours, {gang['groups']} gangs "
        f"({title['command']}). The same numbers are in `report.json`, gang by gang under `podgroups`; metric "
        f"names and labels are the gang exporter's. {compared} Both runs count the same "
        f"{gang['groups']} gangs; `groups` is the sample of each row.",
        *(
            [
                "",
                f"{title['environment']}'s runs take the fallback form (no PodGroup: EKS 1.37 does not serve "
                f"GenericWorkload), so on its cluster they behave as `{other}`; `{main}` is what native gang "
                'scheduling would give them (SUMMARY.md, "Control plane").',
            ]
            if title.get("gang_form") == "fallback"
            else []
        ),
        "",
        f"## Time from PodGroup creation to scheduled (`{TIME_TO_SCHEDULED}`)",
        "",
        "A gang that never started counts as waiting until the horizon: its wait, and any percentile it "
        "reaches, is a lower bound (`≥`).",
        "",
    ]
    lines += _table(
        ["priority_class", "scheduler", "groups", "scheduled", "never_started", "p50", "p95", "max"], _wait_rows(runs)
    )
    lines += [
        "",
        f"![time to scheduled]({WAIT_PNG})",
        "",
        "## Pending groups by priority class (`gang_podgroups_pending`)",
        "",
        f"![pending groups]({PENDING_PNG})",
        "",
        f"## Preemptions per group (`{PREEMPTIONS_TOTAL}`)",
        "",
        "Pods of one group preempted within 120 s of each other are one preemption, as the gang exporter counts "
        "them; `preempted_pods` counts each evicted pod.",
        "",
    ]
    lines += _table(*_preemption_rows(runs))
    for name, data in runs:
        top = data[PREEMPTIONS_TOTAL]["groups"][:TOP_PREEMPTED]
        if top:
            lines += ["", f"Most preempted groups ({name}):", ""]
            lines += _table(
                ["namespace", "podgroup", "priority_class", "preemptions"],
                [[g["namespace"], g["podgroup"], g["priority_class"], g["value"]] for g in top],
            )
    lines += ["", f"## Allocation failures by requested DeviceClass (`{ALLOCATION_FAILURES_TOTAL}`)", ""]
    failures = [{r["device_class"]: r["value"] for r in data[ALLOCATION_FAILURES_TOTAL]} for _, data in runs]
    device_classes = sorted({dc for found in failures for dc in found})
    requesting = gang.get("groups_by_device_class", {})
    lines += _table(
        ["device_class", "groups", *[f"failed attempts ({name})" for name, _ in runs]],
        [[dc, requesting.get(dc, "—"), *[found.get(dc, 0) for found in failures]] for dc in device_classes],
    )
    lines += ["", "## GPU allocation per zone and model", "", f"![GPU allocation]({ALLOCATION_PNG})", ""]
    peaks = [
        {(r["zone"], r["instance_type"], r["gpu_model"]): r["max"] for r in data[ALLOCATABLE_GPUS]["series"]}
        for _, data in runs
    ]
    keys = sorted({k for found in peaks for k in found})
    lines += _table(
        ["zone", "instance_type", "gpu_model", *[f"peak `{ALLOCATABLE_GPUS}` ({name})" for name, _ in runs]],
        [[*key, *[f"{found.get(key, 0):g}" for found in peaks]] for key in keys],
    )
    lines += ["", "## Gangs that never started", ""]
    lines += _table(
        ["scheduler", "reason", "priority_class", "class", "groups", "GPUs each", "example"],
        [
            [name, r["reason"], r["priority_class"], r["job_class"], r["groups"], r["gpus"], r["example"]]
            for name, data in runs
            for r in data["never_started"]
        ],
    )
    reasons = gang["reasons"]
    lines += ["", *[f"- `{reason}`: {text}" for reason, text in reasons.items()], ""]
    lines += ["## GPU-hours", ""]
    hours = ["requested", "running", "held_idle_by_partial_starts", "lost_to_preemption"]
    lines += _table(
        ["scheduler", "groups", *hours],
        [[name, data["groups"], *[data["gpu_hours"][k] for k in hours]] for name, data in runs],
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
