"""The smoke test's decisions (plan, objects, outcome, timing) and its runner against a scripted API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from cli.live.smoke import Runner, pod_tolerations
from config.load import REPO_ROOT
from policy.environment.load import load_environment
from policy.live.smoke import (
    FINAL,
    STAYS_PENDING,
    Gang,
    Observation,
    Outcome,
    Scenario,
    classify,
    collection_path,
    device_taint_rule_manifest,
    gang_manifests,
    gpus_per_zone,
    judge,
    merge,
    object_path,
    observe,
    plan_scenarios,
    priority_class_manifests,
    seconds_to_scheduled,
    settled,
)
from policy.results import Status
from tests.helpers.environments import workload_aware

PAYLOADS = Path(__file__).resolve().parent / "payloads"
CI_GATES = frozenset(workload_aware("ci").feature_gates.control_plane)
"""ci on a control plane that serves the workload-aware gates: the smoke test's gangs need them."""
PROD_GATES = frozenset({"GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup"})


def payload(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return loaded


def pod_group(*conditions: dict[str, str], name: str = "fits") -> dict[str, Any]:
    """A PodGroup as the 1.37 API server returns it."""
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": name,
            "namespace": "smoke-gh7-1-gang-scheduled",
            "uid": "6c1d2e3f-4a5b-4c6d-8e7f-90a1b2c3d4e5",
            "resourceVersion": "51877",
            "creationTimestamp": "2026-11-29T14:02:11Z",
        },
        "spec": {
            "workloadRef": {"workloadName": name, "templateName": "workers"},
            "schedulingPolicy": {"gang": {"minCount": 2}},
            "priorityClassName": "smoke-gh7-1-low",
            "priority": 100,
        },
        "status": {"conditions": list(conditions)},
    }


def condition(
    kind: str, status: str, reason: str, at: str = "2026-11-29T14:02:19Z", message: str = ""
) -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "lastTransitionTime": at, "message": message}


def pod(name: str, node: str | None = None, conditions: list[dict[str, str]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingGroup": {"podGroupName": "fits"}}
    if node:
        spec["nodeName"] = node
    return {
        "metadata": {"name": name},
        "spec": spec,
        "status": {"phase": "Running" if node else "Pending", "conditions": conditions or []},
    }


SCHEDULED = condition("PodGroupInitiallyScheduled", "True", "Scheduled")
UNSCHEDULABLE = condition(
    "PodGroupInitiallyScheduled", "False", "Unschedulable", message="0/3 nodes are available: 3 Insufficient GPUs"
)


# --- plan ----------------------------------------------------------------------------------------


def test_capacity_comes_from_resource_slices_per_zone() -> None:
    assert gpus_per_zone(payload("nodes-dra"), payload("resourceslices")) == {"us-east-2a": 2}


def test_shipped_ci_plan_skips_every_gang_scenario_and_says_why() -> None:
    """EKS 1.37 as AWS runs it serves no Workload API: nothing to submit, so nothing fails for it."""
    gates = frozenset(load_environment(name="ci").feature_gates.control_plane)
    plan = plan_scenarios(gates=gates, gpus={"us-east-2a": 2})
    assert [s.name for s in plan] == [
        "gang-scheduled",
        "missing-parent",
        "zone-exhausted",
        "tainted-devices",
        "preemption",
    ]
    assert {s.skipped for s in plan} == {
        "the GenericWorkload gate is off: there is no Workload or PodGroup to submit "
        "(gangs render in the fallback form)"
    }
    assert all(s.gangs == () for s in plan)


def test_ci_plan_sizes_scenarios_to_its_two_gpus() -> None:
    plan = {s.name: s for s in plan_scenarios(gates=CI_GATES, gpus={"us-east-2a": 2})}
    assert list(plan) == ["gang-scheduled", "missing-parent", "zone-exhausted", "tainted-devices", "preemption"]
    assert [(g.name, g.size) for g in plan["gang-scheduled"].gangs] == [("fits", 2)]
    assert plan["missing-parent"].skipped == "the CompositePodGroup gate is off"
    assert [(g.name, g.size, g.zone_topology) for g in plan["zone-exhausted"].gangs] == [("too-big", 3, True)]
    assert plan["tainted-devices"].taint_devices
    assert [(g.name, g.size, g.priority) for g in plan["preemption"].gangs] == [("low", 2, "low"), ("high", 2, "high")]


def test_plan_with_composite_groups_tests_the_missing_parent() -> None:
    plan = {s.name: s for s in plan_scenarios(gates=PROD_GATES, gpus={"us-east-1a": 8, "us-east-1b": 16})}
    (orphan,) = plan["missing-parent"].gangs
    assert orphan.parent == "no-such-composite" and orphan.expect == STAYS_PENDING
    assert plan["zone-exhausted"].gangs[0].size == 17


def test_without_gpus_every_scenario_is_skipped_with_a_reason() -> None:
    plan = plan_scenarios(gates=PROD_GATES, gpus={})
    assert {s.name: s.skipped for s in plan if s.name != "missing-parent"} == dict.fromkeys(
        ["gang-scheduled", "zone-exhausted", "tainted-devices", "preemption"],
        "no GPU is published by the DRA driver (scale a DRA pool up, then run again)",
    )


# --- objects -------------------------------------------------------------------------------------


def _objects() -> list[dict[str, Any]]:
    tolerations = pod_tolerations(load_environment(name="ci"))
    gangs = [
        Gang("fits", 2, "low", frozenset({Outcome.SCHEDULED})),
        Gang("too-big", 3, "low", STAYS_PENDING, zone_topology=True),
        Gang("orphan", 1, "low", STAYS_PENDING, parent="no-such-composite"),
    ]
    objects = [*priority_class_manifests("smoke-gh7-1"), device_taint_rule_manifest("smoke-gh7-1-tainted-devices")]
    for gang in gangs:
        objects += gang_manifests(
            namespace="smoke-gh7-1-x",
            gang=gang,
            priority_class="smoke-gh7-1-low",
            tolerations=tolerations,
            image="registry.k8s.io/pause:3.10",
        )
    return objects


@pytest.mark.parametrize("obj", _objects(), ids=lambda o: f"{o['kind']}/{o['metadata']['name']}")
def test_smoke_objects_match_the_1_37_schema(obj: dict[str, Any]) -> None:
    kubernetes_validate.validate(obj, "1.37.0", strict=True)
    assert '"priority":' not in json.dumps(obj.get("spec", {})), "the Priority admission plugin sets priority"


def test_gang_objects_are_created_in_dependency_order_and_point_at_each_other() -> None:
    gang = Gang("fits", 2, "low", frozenset({Outcome.SCHEDULED}))
    objs = gang_manifests(
        namespace="ns", gang=gang, priority_class="smoke-low", tolerations=[], image="registry.k8s.io/pause:3.10"
    )
    assert [o["kind"] for o in objs] == ["ResourceClaimTemplate", "Workload", "PodGroup", "Pod", "Pod"]
    template = objs[1]["spec"]["podGroupTemplates"][0]
    assert template["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert objs[2]["spec"]["workloadRef"] == {"workloadName": "fits", "templateName": template["name"]}
    assert {p["spec"]["schedulingGroup"]["podGroupName"] for p in objs[3:]} == {"fits"}
    assert {p["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] for p in objs[3:]} == {"fits-gpu"}


def test_paths() -> None:
    assert collection_path("v1", "Pod", "ns") == "/api/v1/namespaces/ns/pods"
    assert collection_path("scheduling.k8s.io/v1beta1", "PodGroup", "ns") == (
        "/apis/scheduling.k8s.io/v1beta1/namespaces/ns/podgroups"
    )
    assert object_path(device_taint_rule_manifest("r")) == "/apis/resource.k8s.io/v1/devicetaintrules/r"


# --- outcomes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "pods", "events", "expected"),
    [
        (pod_group(SCHEDULED), [pod("fits-0", "n1"), pod("fits-1", "n2")], [], Outcome.SCHEDULED),
        (pod_group(SCHEDULED), [pod("fits-0"), pod("fits-1")], [], Outcome.SCHEDULED),
        (pod_group(UNSCHEDULABLE), [pod("fits-0"), pod("fits-1")], [], Outcome.UNSCHEDULABLE),
        (
            pod_group(condition("PodGroupInitiallyScheduled", "False", "SchedulerError")),
            [pod("fits-0")],
            [],
            Outcome.SCHEDULER_ERROR,
        ),
        (pod_group(), [pod("fits-0", "n1"), pod("fits-1")], [], Outcome.PARTIAL),
        (pod_group(), [pod("fits-0"), pod("fits-1")], [], Outcome.WAITING),
        (None, [], [], Outcome.WAITING),
        (
            pod_group(SCHEDULED, condition("DisruptionTarget", "True", "PreemptionByScheduler")),
            [pod("fits-0", "n1")],
            [],
            Outcome.PREEMPTED,
        ),
        (
            pod_group(SCHEDULED),
            [pod("fits-0", "n1", [condition("DisruptionTarget", "True", "PreemptionByScheduler")])],
            [],
            Outcome.PREEMPTED,
        ),
        (
            pod_group(SCHEDULED),
            [],
            [{"reason": "Preempted", "type": "Normal", "involvedObject": {"kind": "Pod", "name": "fits-1"}}],
            Outcome.SCHEDULED,  # an event about a pod this poll does not list
        ),
        (
            pod_group(SCHEDULED),
            [pod("fits-1", "n2")],
            [
                {
                    "reason": "Preempted",
                    "type": "Normal",
                    "message": "Preempted by pod group smoke-gh7-1-preemption/high on node n2",
                    "involvedObject": {"kind": "Pod", "name": "fits-1"},
                }
            ],
            Outcome.PREEMPTED,
        ),
    ],
)
def test_classify(group: dict[str, Any] | None, pods: list[Any], events: list[Any], expected: Outcome) -> None:
    assert classify(observe(group, pods, events)) is expected


def test_time_to_scheduled_uses_the_servers_timestamps() -> None:
    observation = observe(pod_group(SCHEDULED), [pod("fits-0", "n1"), pod("fits-1", "n2")], [])
    assert seconds_to_scheduled(observation) == 8.0
    assert seconds_to_scheduled(observe(pod_group(UNSCHEDULABLE), [], [])) is None


def test_history_keeps_what_later_polls_cannot_show() -> None:
    scheduled = observe(pod_group(SCHEDULED), [pod("low-0", "n1"), pod("low-1", "n2")], [])
    preempted = observe(pod_group(condition("DisruptionTarget", "True", "PreemptionByScheduler")), [], [])
    gone = observe(None, [], [])
    history = merge(merge(scheduled, preempted), gone)
    assert history.preempted and history.scheduled_at is not None and history.pods_bound == 2
    assert classify(history) is Outcome.PREEMPTED


def test_settled() -> None:
    fits = Scenario("s", "", (Gang("fits", 2, "low", frozenset({Outcome.SCHEDULED})),), window_seconds=300)
    assert not settled(fits, {"fits": Outcome.WAITING}, 10)
    assert settled(fits, {"fits": Outcome.SCHEDULED}, 10)
    assert settled(fits, {"fits": Outcome.PARTIAL}, 10), "all-or-nothing broke: stop and report"
    assert settled(fits, {"fits": Outcome.WAITING}, 300)
    pending = Scenario("p", "", (Gang("too-big", 3, "low", STAYS_PENDING),), window_seconds=90)
    assert not settled(pending, {"too-big": Outcome.UNSCHEDULABLE}, 30), "must stay pending for the whole window"
    assert settled(pending, {"too-big": Outcome.SCHEDULED}, 30), "it ran when it must not: decided"
    preemption = Scenario(
        "pre",
        "",
        (
            Gang("low", 2, "low", frozenset({Outcome.PREEMPTED})),
            Gang("high", 2, "high", frozenset({Outcome.SCHEDULED})),
        ),
    )
    assert not settled(preemption, {"low": Outcome.SCHEDULED, "high": Outcome.WAITING}, 30)
    assert settled(preemption, {"low": Outcome.PREEMPTED, "high": Outcome.SCHEDULED}, 30)
    assert Outcome.SCHEDULED in FINAL and Outcome.UNSCHEDULABLE not in FINAL


def test_judge_reports_outcome_timing_and_expectation() -> None:
    scenario = Scenario(
        "gang-scheduled",
        "a gang of 2 that fits starts whole",
        (Gang("fits", 2, "low", frozenset({Outcome.SCHEDULED})),),
    )
    observation = observe(pod_group(SCHEDULED), [pod("fits-0", "n1"), pod("fits-1", "n2")], [])
    check = judge(scenario, scenario.gangs[0], observation)
    assert (check.subject, check.status) == ("gang-scheduled/fits", Status.OK)
    assert check.detail == "scheduled in 8s, 2/2 pods bound (expected scheduled): a gang of 2 that fits starts whole"
    broken = judge(scenario, scenario.gangs[0], Observation(pods_bound=1, pods_seen=2))
    assert broken.status is Status.FAIL and broken.detail.startswith("partial, 1/2 pods bound")


# --- runner --------------------------------------------------------------------------------------


class ScriptedCluster:
    """Accepts creates and deletes; PodGroups schedule on the second poll; the low gang is then preempted."""

    def __init__(self) -> None:
        self.created: list[str] = []
        self.deleted: list[str] = []
        self.polls: dict[str, int] = {}
        self.now = 0.0

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.created.append(f"{body['kind']}/{body['metadata']['name']}")
        return body

    def delete(self, path: str) -> None:
        self.deleted.append(path)

    def get(self, path: str, **query: str) -> dict[str, Any] | None:
        if path.endswith("/events"):
            return {"items": []}
        if path.startswith("/api/v1/namespaces/") and path.count("/") == 4:
            return None  # deleted namespace is gone
        if "/podgroups/" in path:
            name = path.rsplit("/", 1)[1]
            self.polls[name] = self.polls.get(name, 0) + 1
            if self.polls[name] < 2:
                return pod_group(name=name)
            if name == "low" and "high" in self.polls:
                return pod_group(SCHEDULED, condition("DisruptionTarget", "True", "PreemptionByScheduler"), name=name)
            return pod_group(SCHEDULED, name=name)
        return {"items": []}

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_runner_submits_in_order_reports_and_cleans_up() -> None:
    cluster = ScriptedCluster()
    scenarios = [
        s for s in plan_scenarios(gates=CI_GATES, gpus={"us-east-2a": 2}) if s.name in ("gang-scheduled", "preemption")
    ]
    runner = Runner(
        cluster,  # type: ignore[arg-type]
        prefix="smoke-gh7-1",
        tolerations=[],
        clock=cluster.clock,
        sleep=cluster.sleep,
    )
    checks = runner.run(scenarios)
    assert [(c.subject, c.status) for c in checks] == [
        ("gang-scheduled/fits", Status.OK),
        ("preemption/low", Status.OK),
        ("preemption/high", Status.OK),
    ]
    assert cluster.created[:5] == [
        "PriorityClass/smoke-gh7-1-low",
        "PriorityClass/smoke-gh7-1-high",
        "Namespace/smoke-gh7-1-gang-scheduled",
        "ResourceClaimTemplate/fits-gpu",
        "Workload/fits",
    ]
    assert cluster.created.index("PodGroup/low") < cluster.created.index("Pod/low-0")
    assert cluster.created.index("Pod/low-1") < cluster.created.index("Workload/high"), "high waits for low to run"
    assert "/api/v1/namespaces/smoke-gh7-1-preemption" in cluster.deleted
    assert cluster.deleted[-2:] == [
        "/apis/scheduling.k8s.io/v1/priorityclasses/smoke-gh7-1-low",
        "/apis/scheduling.k8s.io/v1/priorityclasses/smoke-gh7-1-high",
    ]


def test_skips_cleanly_without_a_kubeconfig(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "cli.live.smoke", "--env", "ci"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        "smoke: skipped: no kubeconfig at --kubeconfig, $KUBECONFIG or ~/.kube/config, so there is no cluster to test"
    ]
    assert result.stderr == ""
