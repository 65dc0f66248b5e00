"""PrometheusRule: PromQL parses, alerts are keyed to groups and have runbooks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import promql_parser

from exporter.gang_exporter.collector import render
from exporter.gang_exporter.state import GangState
from observability.rules import prometheus_rule

RUNBOOKS = Path(__file__).resolve().parents[2] / "observability" / "RUNBOOKS.md"
TIERS = {"training-high": 600, "training-low": 3600, "batch": 14400}


def rule(**overrides: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "namespace": "gpu-observability",
        "tier_objectives_seconds": TIERS,
        "pending_groups_threshold": 10,
        "repeated_preemptions": 3,
    }
    kwargs.update(overrides)
    return prometheus_rule(**kwargs)


def all_rules(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for group in obj["spec"]["groups"] for r in group["rules"]]


def alerts(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in all_rules(obj) if "alert" in r]


def github_anchor(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def exported_metric_names() -> set[str]:
    names: set[str] = set()
    for family in render(GangState(started_at=0).snapshot(0)):
        if family.type == "histogram":
            names |= {f"{family.name}_{s}" for s in ("bucket", "sum", "count")}
        elif family.type == "counter":
            names.add(f"{family.name}_total")
        else:
            names.add(family.name)
    return names


def test_shape() -> None:
    obj = rule()
    assert obj["apiVersion"] == "monitoring.coreos.com/v1"
    assert obj["kind"] == "PrometheusRule"
    assert obj["metadata"]["namespace"] == "gpu-observability"
    names = [g["name"] for g in obj["spec"]["groups"]]
    assert len(names) == len(set(names))


def test_every_expression_parses_with_the_promql_parser() -> None:
    for r in all_rules(rule()):
        promql_parser.parse(r["expr"])


def test_recording_rules_for_time_to_scheduled_by_priority_class() -> None:
    records = {r["record"]: r["expr"] for r in all_rules(rule()) if "record" in r}
    p50 = records["priority_class:gang_podgroup_time_to_scheduled_seconds:p50_1h"]
    p95 = records["priority_class:gang_podgroup_time_to_scheduled_seconds:p95_1h"]
    assert p50.startswith("histogram_quantile(0.5, sum by (priority_class, le)")
    assert p95.startswith("histogram_quantile(0.95, sum by (priority_class, le)")
    for name in records:
        assert re.fullmatch(r"[a-z_]+:[a-z0-9_]+:[a-z0-9_]+", name), name


def test_every_alert_has_runbook_summary_and_description() -> None:
    text = RUNBOOKS.read_text()
    anchors = {github_anchor(line[3:]) for line in text.splitlines() if line.startswith("## ")}
    for alert in alerts(rule()):
        annotations = alert["annotations"]
        assert annotations["summary"] and annotations["description"]
        doc, _, anchor = annotations["runbook_url"].partition("#")
        assert doc == "observability/RUNBOOKS.md"
        assert anchor in anchors, anchor
        assert alert["labels"]["severity"] in {"warning", "critical"}


def test_one_pending_alert_per_tier_with_its_objective() -> None:
    pending = [a for a in alerts(rule()) if a["alert"] == "GangPendingOverObjective"]
    assert sorted(a["labels"]["tier"] for a in pending) == sorted(TIERS)
    for alert in pending:
        tier = alert["labels"]["tier"]
        assert f'priority_class="{tier}"' in alert["expr"]
        assert alert["expr"].endswith(f"> {TIERS[tier]}")
        # Keyed to the group: one alert instance per PodGroup.
        assert "by (namespace, podgroup, workload, template, priority_class)" in alert["expr"]


def test_threshold_and_repeat_count_are_applied() -> None:
    by_name = {a["alert"]: a for a in alerts(rule(pending_groups_threshold=7, repeated_preemptions=4))}
    assert by_name["GangPendingGroupsHigh"]["expr"].endswith("> 7")
    assert by_name["GangPreemptedRepeatedly"]["expr"].endswith(">= 4")
    assert "podgroup" in by_name["GangPreemptedRepeatedly"]["expr"]
    assert "device_class" in by_name["GangDeviceAllocationFailures"]["expr"]


def test_rules_only_reference_exported_metrics() -> None:
    exported = exported_metric_names()
    for r in all_rules(rule()):
        for name in re.findall(r"\bgang_[a-z_]+", r["expr"]):
            if not r["expr"].startswith("absent"):
                assert name in exported, name


def test_deterministic() -> None:
    assert json.dumps(rule()) == json.dumps(rule())
    assert json.dumps(rule()) == json.dumps(rule(), sort_keys=True)
    shuffled = dict(reversed(list(TIERS.items())))
    assert json.dumps(rule(tier_objectives_seconds=shuffled)) == json.dumps(rule())
