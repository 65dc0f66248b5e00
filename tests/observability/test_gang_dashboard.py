"""Grafana dashboard: queries parse, panels exist, output is deterministic."""

from __future__ import annotations

import json
import re
from typing import Any

import kubernetes_validate
import promql_parser

from exporter.gang_exporter.collector import render
from exporter.gang_exporter.state import GangState
from observability.dashboard import dashboard_configmap, dashboard_json


def panels() -> list[dict[str, Any]]:
    return [p for p in json.loads(dashboard_json())["panels"] if p["type"] != "row"]


def exprs() -> list[str]:
    return [t["expr"] for p in panels() for t in p["targets"]]


def test_every_query_parses_with_the_promql_parser() -> None:
    assert len(exprs()) >= 10
    for expr in exprs():
        promql_parser.parse(expr)


def test_required_panels() -> None:
    by_title = {p["title"]: p for p in panels()}
    table = by_title["Waiting gangs"]
    assert table["type"] == "table"
    assert "gang_podgroup_waiting_seconds" in table["targets"][0]["expr"]
    assert {t["format"] for t in table["targets"]} == {"table"}
    ttl = by_title["Time to scheduled by tier (p50 / p95, 1h window)"]
    assert [t["expr"].split(",")[0] for t in ttl["targets"]] == ["histogram_quantile(0.5", "histogram_quantile(0.95"]
    assert "gang_podgroup_preemptions_total" in by_title["Preemptions by group (1h)"]["targets"][0]["expr"]
    assert "by (device_class)" in by_title["Allocation failures by DeviceClass (15m)"]["targets"][0]["expr"]
    capacity = by_title["GPUs allocatable by zone and GPU model"]
    requested = by_title["GPUs requested by waiting gangs"]
    assert "by (zone, gpu_model)" in capacity["targets"][0]["expr"]
    # Side by side on the same row.
    assert capacity["gridPos"]["y"] == requested["gridPos"]["y"]


def test_panels_use_the_datasource_variable_and_unique_ids() -> None:
    model = json.loads(dashboard_json())
    ids = [p["id"] for p in model["panels"]]
    assert len(ids) == len(set(ids))
    for panel in panels():
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
    variables = {v["name"]: v for v in model["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["namespace"]["type"] == "query"


def test_gang_metrics_in_queries_are_exported() -> None:
    exported: set[str] = set()
    for family in render(GangState(started_at=0).snapshot(0)):
        suffixes = {"histogram": ("_bucket", "_sum", "_count"), "counter": ("_total",)}
        exported |= {family.name + s for s in suffixes.get(family.type, ("",))}
    for expr in exprs():
        for name in re.findall(r"\bgang_[a-z_]+", expr):
            assert name in exported, name


def test_deterministic_json_with_sorted_keys() -> None:
    text = dashboard_json()
    assert text == dashboard_json()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"


def test_configmap_for_the_grafana_sidecar() -> None:
    configmap = dashboard_configmap(namespace="monitoring")
    kubernetes_validate.validate(configmap, "1.37.0", strict=True)
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert configmap["metadata"]["namespace"] == "monitoring"
    (payload,) = configmap["data"].values()
    assert payload == dashboard_json()
    assert json.dumps(configmap, sort_keys=True) == json.dumps(
        dashboard_configmap(namespace="monitoring"), sort_keys=True
    )
