"""PrometheusRule for gang scheduling: recording rules and group-keyed alerts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .manifests import APP_NAME, operator_labels, sort_keys

RUNBOOK_DOC = "observability/RUNBOOKS.md"

# Exporter metric names (see exporter/README.md).
TIME_TO_SCHEDULED_BUCKET = "gang_podgroup_time_to_scheduled_seconds_bucket"
PENDING_GROUPS = "gang_podgroups_pending"
WAITING_SECONDS = "gang_podgroup_waiting_seconds"
PREEMPTIONS_TOTAL = "gang_podgroup_preemptions_total"
ALLOCATION_FAILURES_TOTAL = "gang_resourceclaim_allocation_failures_total"

GROUP_BY = "namespace, podgroup, workload, template, priority_class"
QUANTILES = {"p50": 0.5, "p95": 0.95}
QUANTILE_WINDOW = "1h"
PREEMPTION_WINDOW = "1h"
ALLOCATION_WINDOW = "15m"

# Recording rule names (level:metric:operations).
RECORD_TIME_TO_SCHEDULED = "priority_class:gang_podgroup_time_to_scheduled_seconds:{q}_1h"
RECORD_PENDING = "priority_class:gang_podgroups_pending:sum"

ANCHORS = {
    "GangPendingOverObjective": "gang-pending-over-objective",
    "GangPendingGroupsHigh": "gang-pending-groups-high",
    "GangPreemptedRepeatedly": "gang-preempted-repeatedly",
    "GangDeviceAllocationFailures": "gang-device-allocation-failures",
    "GangExporterDown": "gang-exporter-down",
}

# PriorityClass names are DNS-1123 subdomains: safe inside a PromQL string.


def runbook_url(alert: str) -> str:
    return f"{RUNBOOK_DOC}#{ANCHORS[alert]}"


def _alert(
    name: str,
    expr: str,
    for_: str,
    severity: str,
    summary: str,
    description: str,
    extra_labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "alert": name,
        "annotations": {
            "description": description,
            "runbook_url": runbook_url(name),
            "summary": summary,
        },
        "expr": expr,
        "for": for_,
        "labels": {"severity": severity, **(extra_labels or {})},
    }


def recording_rules() -> list[dict[str, Any]]:
    rules = [
        {
            "expr": (
                f"histogram_quantile({value}, sum by (priority_class, le) "
                f"(rate({TIME_TO_SCHEDULED_BUCKET}[{QUANTILE_WINDOW}])))"
            ),
            "record": RECORD_TIME_TO_SCHEDULED.format(q=name),
        }
        for name, value in QUANTILES.items()
    ]
    rules.append(
        {
            "expr": f"sum by (priority_class) ({PENDING_GROUPS})",
            "record": RECORD_PENDING,
        }
    )
    return rules


def pending_over_objective(tier: str, objective_seconds: int) -> dict[str, Any]:
    return _alert(
        "GangPendingOverObjective",
        f'max by ({GROUP_BY}) ({WAITING_SECONDS}{{priority_class="{tier}"}}) > {objective_seconds}',
        "1m",
        "warning",
        f"Gang {{{{ $labels.namespace }}}}/{{{{ $labels.podgroup }}}} is pending beyond the {tier} objective",
        "PodGroup {{ $labels.namespace }}/{{ $labels.podgroup }} (workload "
        "{{ $labels.workload }}, template {{ $labels.template }}) has waited "
        "{{ $value | humanizeDuration }} without PodGroupInitiallyScheduled=True; "
        f"the objective for tier {tier} is {objective_seconds}s.",
        {"tier": tier},
    )


def prometheus_rule(
    *,
    namespace: str,
    tier_objectives_seconds: Mapping[str, int],
    pending_groups_threshold: int,
    repeated_preemptions: int,
) -> dict[str, Any]:
    """``monitoring.coreos.com/v1`` PrometheusRule.

    ``tier_objectives_seconds`` maps a tier (the PodGroup's priorityClassName)
    to the longest acceptable wait before ``PodGroupInitiallyScheduled=True``;
    one alert rule is emitted per tier, labelled ``tier=<name>``. Inputs come from the validated
    ``observability`` configuration.
    """

    preemptions_now = f"sum by ({GROUP_BY}) ({PREEMPTIONS_TOTAL})"
    preemptions_then = f"sum by ({GROUP_BY}) ({PREEMPTIONS_TOTAL} offset {PREEMPTION_WINDOW})"
    alerts = [pending_over_objective(t, tier_objectives_seconds[t]) for t in sorted(tier_objectives_seconds)]
    alerts += [
        _alert(
            "GangPendingGroupsHigh",
            f"sum by (priority_class) ({PENDING_GROUPS}) > {pending_groups_threshold}",
            "15m",
            "warning",
            "{{ $value }} PodGroups of priority class {{ $labels.priority_class }} are waiting to be scheduled",
            "More than "
            f"{pending_groups_threshold} PodGroups of priority class "
            "{{ $labels.priority_class }} have not reached PodGroupInitiallyScheduled=True "
            "for 15 minutes.",
        ),
        _alert(
            "GangPreemptedRepeatedly",
            # Exact count over the window; a group first preempted inside the
            # window has no sample an hour ago and counts from zero.
            f"({preemptions_now} - ({preemptions_then} or {preemptions_now} * 0)) >= {repeated_preemptions}",
            "0m",
            "warning",
            "Gang {{ $labels.namespace }}/{{ $labels.podgroup }} was preempted {{ $value }} times in the last hour",
            "PodGroup {{ $labels.namespace }}/{{ $labels.podgroup }} (workload "
            "{{ $labels.workload }}, priority class {{ $labels.priority_class }}) "
            f"was preempted at least {repeated_preemptions} times in "
            f"{PREEMPTION_WINDOW}; it is losing its GPUs to higher-priority gangs.",
        ),
        _alert(
            "GangDeviceAllocationFailures",
            f"sum by (namespace, device_class) (increase({ALLOCATION_FAILURES_TOTAL}[{ALLOCATION_WINDOW}])) > 0",
            "15m",
            "warning",
            "ResourceClaims for DeviceClass {{ $labels.device_class }} cannot be allocated in {{ $labels.namespace }}",
            "The scheduler reported {{ $value | humanize }} failed attempts in "
            f"{ALLOCATION_WINDOW} to allocate ResourceClaims of DeviceClass "
            "{{ $labels.device_class }} for Pods in {{ $labels.namespace }}, "
            "continuously for 15 minutes.",
        ),
        _alert(
            "GangExporterDown",
            f'absent(up{{job="{APP_NAME}"}} == 1)',
            "10m",
            "warning",
            "The gang exporter is not being scraped",
            "No successful scrape of the gang exporter for 10 minutes: gang "
            "scheduling metrics and every alert above are blind.",
        ),
    ]
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "labels": operator_labels("rules"),
            "name": "gang-observability",
            "namespace": namespace,
        },
        "spec": {
            "groups": [
                {"interval": "1m", "name": "gang-observability.recording", "rules": recording_rules()},
                {"name": "gang-observability.alerts", "rules": alerts},
            ]
        },
    }
    result: dict[str, Any] = sort_keys(rule)
    return result
