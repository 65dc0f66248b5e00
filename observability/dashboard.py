"""Grafana dashboard for gang scheduling, built with grafana-foundation-sdk.

GPU capacity comes from the exporter's ``gang_node_allocatable_gpus`` gauge,
which sums Node ``status.allocatable["nvidia.com/gpu"]`` by zone, instance type
and GPU model (derived from the instance type).
"""

from __future__ import annotations

import json
from typing import Any

from grafana_foundation_sdk.builders import common as common_b
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import prometheus as prom
from grafana_foundation_sdk.builders import table, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models.dashboard import (
    DashboardCursorSync,
    DataSourceRef,
    DataTransformerConfig,
    DynamicConfigValue,
    GridPos,
    VariableRefresh,
    VariableSort,
)
from grafana_foundation_sdk.models.prometheus import PromQueryFormat

from .manifests import APP_NAME, SCHEDULER_JOB

DASHBOARD_UID = "gang-observability"
DASHBOARD_TITLE = "GPU gangs: scheduling and capacity"
CONFIGMAP_NAME = "gang-observability-dashboard"
CONFIGMAP_KEY = "gang-observability.json"

DATASOURCE = DataSourceRef(type_val="prometheus", uid="${datasource}")
NS = 'namespace=~"$namespace"'
GROUP_BY = "namespace, podgroup, workload, template, priority_class"


def _query(expr: str, ref_id: str, legend: str = "") -> prom.Dataquery:
    query = prom.Dataquery().expr(expr).ref_id(ref_id).range()
    if legend:
        query = query.legend_format(legend)
    return query


def _instant(expr: str, ref_id: str) -> prom.Dataquery:
    return prom.Dataquery().expr(expr).ref_id(ref_id).instant().format(PromQueryFormat.TABLE)


def _pos(x: int, y: int, w: int, h: int) -> GridPos:
    return GridPos(h=h, w=w, x=x, y=y)


def _legend() -> common_b.VizLegendOptions:
    return (
        common_b.VizLegendOptions()
        .show_legend(True)
        .display_mode(common.LegendDisplayMode.TABLE)
        .placement(common.LegendPlacement.BOTTOM)
        .calcs(["lastNotNull", "max"])
    )


def _timeseries(
    panel_id: int, title: str, description: str, unit: str, pos: GridPos, *targets: prom.Dataquery
) -> timeseries.Panel:
    panel = (
        timeseries.Panel()
        .id(panel_id)
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .unit(unit)
        .grid_pos(pos)
        .legend(_legend())
        .line_width(1)
        .fill_opacity(10)
    )
    for target in targets:
        panel = panel.with_target(target)
    return panel


def _waiting_table(panel_id: int, pos: GridPos) -> table.Panel:
    columns = (
        ("A", "gang_podgroup_waiting_seconds", "Age", "s"),
        ("B", "gang_podgroup_waiting_requested_gpus", "GPUs requested", "none"),
        ("C", "gang_podgroup_waiting_min_count", "minCount", "none"),
        ("D", "gang_podgroup_waiting_pods", "Pods", "none"),
    )
    panel = (
        table.Panel()
        .id(panel_id)
        .title("Waiting gangs")
        .description("PodGroups without PodGroupInitiallyScheduled=True, oldest first.")
        .datasource(DATASOURCE)
        .grid_pos(pos)
        .sort_by([common_b.TableSortByFieldState().display_name("Age").desc(True)])
    )
    for ref_id, metric, _, _ in columns:
        panel = panel.with_target(_instant(f"max by ({GROUP_BY}, reason) ({metric}{{{NS}}})", ref_id))
    panel = panel.with_transformation(DataTransformerConfig(id_val="merge", options={}))
    panel = panel.with_transformation(
        DataTransformerConfig(
            id_val="organize",
            options={
                "excludeByName": {"Time": True},
                "indexByName": {
                    name: index
                    for index, name in enumerate(
                        (
                            "namespace",
                            "podgroup",
                            "workload",
                            "template",
                            "priority_class",
                            "reason",
                            *(f"Value #{c[0]}" for c in columns),
                        )
                    )
                },
                "renameByName": {f"Value #{c[0]}": c[2] for c in columns},
            },
        )
    )
    for _, _, header, unit in columns:
        panel = panel.override_by_name(header, [DynamicConfigValue(id_val="unit", value=unit)])
    return panel


def build() -> dash.Dashboard:
    """The dashboard builder (exposed for callers that want to extend it)."""
    builder = (
        dash.Dashboard(DASHBOARD_TITLE)
        .uid(DASHBOARD_UID)
        .description(
            "Gang scheduling on Kubernetes PodGroups: waiting gangs, time to "
            "scheduled, preemptions, DRA allocation failures and GPU capacity."
        )
        .tags(["gpu", "gang-scheduling", "podgroup", APP_NAME])
        .editable()
        .tooltip(DashboardCursorSync.CROSSHAIR)
        .time("now-6h", "now")
        .timezone("utc")
        .refresh("1m")
        .with_variable(dash.DatasourceVariable("datasource").label("Data source").type("prometheus"))
        .with_variable(
            dash.QueryVariable("namespace")
            .label("Namespace")
            .datasource(DATASOURCE)
            .query("label_values(gang_podgroups_pending, namespace)")
            .multi(True)
            .include_all(True)
            .all_value(".*")
            .refresh(VariableRefresh.ON_TIME_RANGE_CHANGED)
            .sort(VariableSort.ALPHABETICAL_ASC)
        )
    )

    builder = builder.with_row(dash.Row("Waiting gangs").id(1).grid_pos(_pos(0, 0, 24, 1)))
    builder = builder.with_panel(_waiting_table(2, _pos(0, 1, 16, 10)))
    builder = builder.with_panel(
        _timeseries(
            3,
            "Pending groups by priority class",
            "PodGroups not yet initially scheduled.",
            "none",
            _pos(16, 1, 8, 10),
            _query(f"sum by (priority_class) (gang_podgroups_pending{{{NS}}})", "A", "{{priority_class}}"),
        )
    )

    builder = builder.with_row(dash.Row("Time to scheduled").id(4).grid_pos(_pos(0, 11, 24, 1)))
    builder = builder.with_panel(
        _timeseries(
            5,
            "Time to scheduled by tier (p50 / p95, 1h window)",
            "PodGroup creation to PodGroupInitiallyScheduled=True, by priority class.",
            "s",
            _pos(0, 12, 24, 9),
            *(
                _query(
                    f"histogram_quantile({q}, sum by (priority_class, le) "
                    f"(rate(gang_podgroup_time_to_scheduled_seconds_bucket{{{NS}}}[1h])))",
                    ref,
                    f"{{{{priority_class}}}} {name}",
                )
                for ref, name, q in (("A", "p50", 0.5), ("B", "p95", 0.95))
            ),
        )
    )

    builder = builder.with_row(dash.Row("Disruption").id(6).grid_pos(_pos(0, 21, 24, 1)))
    builder = builder.with_panel(
        _timeseries(
            7,
            "Preemptions by group (1h)",
            "Preemptions of each PodGroup over the last hour (victims of one episode count once).",
            "none",
            _pos(0, 22, 12, 9),
            _query(
                f"sum by (namespace, podgroup) (increase(gang_podgroup_preemptions_total{{{NS}}}[1h])) > 0",
                "A",
                "{{namespace}}/{{podgroup}}",
            ),
        )
    )
    builder = builder.with_panel(
        _timeseries(
            8,
            "Allocation failures by DeviceClass (15m)",
            "Failed scheduling attempts attributed to unallocated ResourceClaims.",
            "none",
            _pos(12, 22, 12, 9),
            _query(
                f"sum by (device_class) (increase(gang_resourceclaim_allocation_failures_total{{{NS}}}[15m]))",
                "A",
                "{{device_class}}",
            ),
        )
    )

    builder = builder.with_row(dash.Row("GPU capacity").id(9).grid_pos(_pos(0, 31, 24, 1)))
    builder = builder.with_panel(
        _timeseries(
            10,
            "GPUs allocatable by zone and GPU model",
            "Sum of Node status.allocatable nvidia.com/gpu.",
            "none",
            _pos(0, 32, 12, 9),
            _query("sum by (zone, gpu_model) (gang_node_allocatable_gpus)", "A", "{{zone}} {{gpu_model}}"),
        )
    )
    builder = builder.with_panel(
        _timeseries(
            11,
            "GPUs requested by waiting gangs",
            "Extended-resource and DRA GPU requests of PodGroups not yet scheduled.",
            "none",
            _pos(12, 32, 12, 9),
            _query(
                f"sum by (priority_class) (gang_podgroup_waiting_requested_gpus{{{NS}}})", "A", "{{priority_class}}"
            ),
            _query(f"sum(gang_podgroup_waiting_requested_gpus{{{NS}}})", "B", "total"),
        )
    )

    sched = f'job="{SCHEDULER_JOB}"'
    builder = builder.with_row(
        dash.Row("kube-scheduler (workload-aware scheduling)").id(12).grid_pos(_pos(0, 41, 24, 1))
    )
    builder = builder.with_panel(
        _timeseries(
            13,
            "Pod-group scheduling attempts by result",
            "scheduler_podgroup_schedule_attempts_total (alpha, GenericWorkload gate).",
            "ops",
            _pos(0, 42, 12, 9),
            _query(
                f"sum by (result) (max without (instance) "
                f"(rate(scheduler_podgroup_schedule_attempts_total{{{sched}}}[5m])))",
                "A",
                "{{result}}",
            ),
        )
    )
    builder = builder.with_panel(
        _timeseries(
            14,
            "Queued pod groups",
            "scheduler_queued_entities for type=podgroup, by queue.",
            "none",
            _pos(12, 42, 12, 9),
            _query(
                f'sum by (queue) (max without (instance) (scheduler_queued_entities{{{sched}, type="podgroup"}}))',
                "A",
                "{{queue}}",
            ),
        )
    )
    return builder


def dashboard_model() -> dict[str, Any]:
    """The dashboard as plain JSON-compatible data."""
    result: dict[str, Any] = json.loads(json.dumps(build().build(), cls=JSONEncoder))
    return result


def dashboard_json() -> str:
    """Deterministic dashboard JSON (sorted keys, trailing newline)."""
    return json.dumps(dashboard_model(), sort_keys=True, indent=2) + "\n"


def dashboard_configmap(*, namespace: str) -> dict[str, Any]:
    """ConfigMap picked up by the Grafana dashboard sidecar (``grafana_dashboard: "1"``)."""
    return {
        "apiVersion": "v1",
        "data": {CONFIGMAP_KEY: dashboard_json()},
        "kind": "ConfigMap",
        "metadata": {
            "labels": {
                "app.kubernetes.io/component": "dashboard",
                "app.kubernetes.io/name": APP_NAME,
                "app.kubernetes.io/part-of": "gang-observability",
                "grafana_dashboard": "1",
            },
            "name": CONFIGMAP_NAME,
            "namespace": namespace,
        },
    }
