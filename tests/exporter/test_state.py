"""The exporter's pure state machine through realistic object lifecycles."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from exporter.gang_exporter import gpus
from exporter.gang_exporter.state import (
    ADDED,
    DELETED,
    MODIFIED,
    PROBE_LABEL,
    PROBE_NAMESPACE,
    PROBE_PREFIX,
    GangState,
    GroupLabels,
    WaitingGroup,
    is_gate_probe,
    parse_count,
    parse_time,
)
from tests.exporter.gang_fixtures import (
    GPU_CLASS,
    NS,
    PRIORITY,
    claim,
    event,
    node,
    pod,
    podgroup,
    probe_job_podgroup,
    ts,
)

T0 = 1_750_000_000.0  # exporter start
LABELS = GroupLabels(NS, "llama-0", "llama-pretrain", "workers", PRIORITY)
UNSCHEDULABLE_MSG = (
    "0/16 nodes are available: 16 cannot allocate all claims. "
    "preemption: 0/16 nodes are available: 16 No preemption victims found."
)


def new_state() -> GangState:
    return GangState(started_at=T0, preemption_episode_seconds=120, retention_seconds=600)


def failed_scheduling(state: GangState, name: str, kind: str, involved: str, now: float, message: str) -> None:
    """A ``FailedScheduling`` event on ``kind``/``involved`` at ``now``."""
    add(
        state,
        "Event",
        event(name, reason="FailedScheduling", involved_kind=kind, involved_name=involved, last=now, message=message),
        now,
    )


def add(state: GangState, kind: str, obj: dict[str, Any], now: float, event_type: str = ADDED) -> None:
    state.apply(kind, event_type, obj, now)


# --------------------------------------------------------------- gang lifecycle


def test_creation_unschedulable_scheduled_deleted() -> None:
    state = new_state()
    created = T0 + 100
    add(state, "PodGroup", podgroup("llama-0", created=created), created)
    for i in range(4):
        add(state, "Pod", pod(f"llama-0-{i}", group="llama-0", created=created, gpus=8), created)

    snap = state.snapshot(created + 50)
    assert snap.pending_groups == {(NS, PRIORITY): 1}
    assert snap.waiting == (WaitingGroup(LABELS, "Pending", 50.0, 4, 4, 32),)
    assert snap.time_to_scheduled == {}

    add(
        state,
        "PodGroup",
        podgroup("llama-0", created=created, condition=("False", "Unschedulable", created + 60)),
        created + 60,
        MODIFIED,
    )
    snap = state.snapshot(created + 240)
    assert snap.waiting == (WaitingGroup(LABELS, "Unschedulable", 240.0, 4, 4, 32),)
    assert snap.pending_groups == {(NS, PRIORITY): 1}

    scheduled = podgroup("llama-0", created=created, condition=("True", "Scheduled", created + 300))
    add(state, "PodGroup", scheduled, created + 300, MODIFIED)
    add(state, "PodGroup", scheduled, created + 310, MODIFIED)  # resync: no second sample
    snap = state.snapshot(created + 400)
    assert snap.pending_groups == {(NS, PRIORITY): 0}
    assert snap.waiting == ()
    hist = snap.time_to_scheduled[(NS, PRIORITY)]
    assert (hist.count, hist.sum) == (1, 300.0)
    bucket = dict(zip(snap.buckets, hist.cumulative, strict=False))
    assert (bucket[120.0], bucket[300.0], bucket[600.0], hist.cumulative[-1]) == (0, 1, 1, 1)

    add(state, "PodGroup", scheduled, created + 500, DELETED)
    snap = state.snapshot(created + 500)
    assert snap.pending_groups == {}
    assert snap.time_to_scheduled[(NS, PRIORITY)].count == 1  # histograms are cumulative


def test_scheduler_error_reason_and_basic_policy() -> None:
    state = new_state()
    group = podgroup("svc", created=T0 + 10, condition=("False", "SchedulerError", T0 + 11))
    group["spec"]["schedulingPolicy"] = {"basic": {}}
    add(state, "PodGroup", group, T0 + 11)
    (waiting,) = state.snapshot(T0 + 20).waiting
    assert (waiting.reason, waiting.min_count, waiting.age_seconds) == ("SchedulerError", 1, 10.0)


def test_groups_scheduled_before_start_are_not_replayed() -> None:
    state = new_state()
    old = podgroup("old", created=T0 - 900, condition=("True", "Scheduled", T0 - 600))
    state.replace("PodGroup", [old], T0)
    snap = state.snapshot(T0 + 1)
    assert snap.time_to_scheduled == {}
    assert snap.pending_groups == {(NS, PRIORITY): 0}


def test_group_waiting_at_start_is_observed_with_full_duration() -> None:
    state = new_state()
    state.replace("PodGroup", [podgroup("g", created=T0 - 900)], T0)
    add(
        state,
        "PodGroup",
        podgroup("g", created=T0 - 900, condition=("True", "Scheduled", T0 + 100)),
        T0 + 100,
        MODIFIED,
    )
    hist = state.snapshot(T0 + 100).time_to_scheduled[(NS, PRIORITY)]
    assert (hist.count, hist.sum) == (1, 1000.0)


def test_recreated_group_with_same_name_is_observed_again() -> None:
    state = new_state()
    add(state, "PodGroup", podgroup("g", created=T0 + 1, condition=("True", "Scheduled", T0 + 6)), T0 + 6)
    add(state, "PodGroup", podgroup("g", created=T0 + 1), T0 + 7, DELETED)
    add(
        state, "PodGroup", podgroup("g", created=T0 + 8, uid="uid-2", condition=("True", "Scheduled", T0 + 28)), T0 + 28
    )
    hist = state.snapshot(T0 + 30).time_to_scheduled[(NS, PRIORITY)]
    assert (hist.count, hist.sum) == (2, 25.0)


def test_pending_gauge_by_priority_class() -> None:
    state = new_state()
    add(state, "PodGroup", podgroup("a", created=T0), T0)
    add(state, "PodGroup", podgroup("b", created=T0), T0)
    add(state, "PodGroup", podgroup("c", created=T0, priority_class="batch-low"), T0)
    add(
        state,
        "PodGroup",
        podgroup("d", created=T0, priority_class="batch-low", condition=("True", "Scheduled", T0 + 5)),
        T0 + 5,
    )
    assert state.snapshot(T0 + 5).pending_groups == {
        (NS, "batch-low"): 1,
        (NS, PRIORITY): 2,
    }


# --------------------------------------------------------------- preemption


def test_preemption_episode_counts_once_per_gang() -> None:
    state = new_state()
    start = T0 + 1000
    add(state, "PodGroup", podgroup("llama-0", created=start, condition=("True", "Scheduled", start + 10)), start + 10)
    for i in range(4):
        add(state, "Pod", pod(f"llama-0-{i}", group="llama-0", created=start, gpus=8, phase="Running"), start + 10)

    # Scheduler marks two victims, a third is already gone when its event arrives.
    add(
        state,
        "Pod",
        pod("llama-0-0", group="llama-0", created=start, gpus=8, preempted_at=start + 500, phase="Running"),
        start + 500,
        MODIFIED,
    )
    add(
        state,
        "Pod",
        pod("llama-0-1", group="llama-0", created=start, gpus=8, preempted_at=start + 501, phase="Running"),
        start + 501,
        MODIFIED,
    )
    add(state, "Pod", pod("llama-0-2", group="llama-0", created=start), start + 502, DELETED)
    preempted = event(
        "llama-0-2.preempted",
        reason="Preempted",
        involved_kind="Pod",
        involved_name="llama-0-2",
        event_type="Normal",
        last=start + 503,
        message="Preempted by pod uid-pod-serving-0 on node ip-10-0-1-5",
    )
    add(state, "Event", preempted, start + 503)
    # Both sources for the same victim, and a relist replaying the event.
    add(
        state,
        "Event",
        event(
            "llama-0-0.preempted",
            reason="Preempted",
            involved_kind="Pod",
            involved_name="llama-0-0",
            event_type="Normal",
            last=start + 500,
            message="Preempted by pod uid-pod-serving-0",
        ),
        start + 504,
    )
    state.replace("Event", [preempted], start + 505)

    snap = state.snapshot(start + 600)
    assert snap.preemptions == {LABELS: 1}
    assert snap.preempted_pods == {LABELS: 3}

    # A second wave an hour later is a second preemption of the group.
    add(
        state,
        "Pod",
        pod("llama-0-3", group="llama-0", created=start, gpus=8, preempted_at=start + 4000, phase="Running"),
        start + 4000,
        MODIFIED,
    )
    snap = state.snapshot(start + 4000)
    assert snap.preemptions == {LABELS: 2}
    assert snap.preempted_pods == {LABELS: 4}


def test_preemption_before_start_is_baseline_only() -> None:
    state = new_state()
    state.replace("PodGroup", [podgroup("llama-0", created=T0 - 500)], T0)
    state.replace("Pod", [pod("llama-0-0", group="llama-0", created=T0 - 500, preempted_at=T0 - 100)], T0)
    add(state, "Pod", pod("llama-0-0", group="llama-0", created=T0 - 500, preempted_at=T0 - 100), T0 + 5, MODIFIED)
    assert state.snapshot(T0 + 5).preemptions == {}


def test_preemption_of_pod_without_group_is_ignored() -> None:
    state = new_state()
    add(
        state,
        "Pod",
        pod("solo", group=None, created=T0, claim_template="gpu8", generated_claim="solo-gpus", preempted_at=T0 + 5),
        T0 + 5,
    )
    assert state.snapshot(T0 + 5).preemptions == {}


# --------------------------------------------------------------- DRA


def _dra_gang(state: GangState, now: float) -> None:
    add(state, "ResourceClaim", claim("llama-0-imex", device_class="imex.nvidia.com", count=1), now)
    add(state, "PodGroup", podgroup("llama-0", created=now, claims=[("imex", "llama-0-imex")]), now)
    for i in range(2):
        add(state, "ResourceClaim", claim(f"llama-0-{i}-gpus-x7k2p"), now)
        add(
            state,
            "Pod",
            pod(
                f"llama-0-{i}",
                group="llama-0",
                created=now,
                claim_template="gpu-8x",
                generated_claim=f"llama-0-{i}-gpus-x7k2p",
            ),
            now,
        )


def test_allocation_failures_counted_per_device_class() -> None:
    state = new_state()
    now = T0 + 100
    _dra_gang(state, now)

    failed = event(
        "llama-0-0.fs1",
        reason="FailedScheduling",
        involved_kind="Pod",
        involved_name="llama-0-0",
        message=UNSCHEDULABLE_MSG,
        last=now + 1,
    )
    add(state, "Event", failed, now + 1)
    snap = state.snapshot(now + 1)
    assert snap.allocation_failures == {
        (LABELS, GPU_CLASS): 1,
        (LABELS, "imex.nvidia.com"): 1,
    }

    # The same event deduplicated by the API server: count 1 -> 4 adds 3.
    failed["count"] = 4
    failed["lastTimestamp"] = ts(now + 60)
    add(state, "Event", failed, now + 60, MODIFIED)
    add(state, "Event", failed, now + 61, MODIFIED)  # replay: no change
    snap = state.snapshot(now + 61)
    assert snap.allocation_failures[(LABELS, GPU_CLASS)] == 4

    # A message naming one claim is attributed to that claim's class only.
    named = event(
        "llama-0-1.fs1",
        reason="FailedScheduling",
        involved_kind="Pod",
        involved_name="llama-0-1",
        last=now + 70,
        message='claim "llama-0-1-gpus-x7k2p": cannot allocate all claims',
    )
    add(state, "Event", named, now + 70)
    snap = state.snapshot(now + 70)
    assert snap.allocation_failures == {
        (LABELS, GPU_CLASS): 5,
        (LABELS, "imex.nvidia.com"): 4,
    }

    # Once every claim is allocated, claim-related noise is not a failure.
    for name in ("llama-0-imex", "llama-0-0-gpus-x7k2p", "llama-0-1-gpus-x7k2p"):
        add(state, "ResourceClaim", claim(name, allocated=True), now + 80, MODIFIED)
    add(
        state,
        "Event",
        event(
            "llama-0-0.fs2",
            reason="FailedScheduling",
            involved_kind="Pod",
            involved_name="llama-0-0",
            message=UNSCHEDULABLE_MSG,
            last=now + 90,
        ),
        now + 90,
    )
    assert state.snapshot(now + 90).allocation_failures[(LABELS, GPU_CLASS)] == 5


def test_allocation_failure_events_before_start_set_the_baseline() -> None:
    state = GangState(started_at=T0 + 1000)
    _dra_gang(state, T0)
    old = event(
        "llama-0-0.fs1",
        reason="FailedScheduling",
        involved_kind="Pod",
        involved_name="llama-0-0",
        message=UNSCHEDULABLE_MSG,
        last=T0 + 10,
        count=7,
    )
    state.replace("Event", [old], T0 + 1000)
    assert state.snapshot(T0 + 1000).allocation_failures == {}
    old["count"] = 9
    old["lastTimestamp"] = ts(T0 + 1010)
    add(state, "Event", old, T0 + 1010, MODIFIED)
    assert state.snapshot(T0 + 1010).allocation_failures == {
        (LABELS, GPU_CLASS): 2,
        (LABELS, "imex.nvidia.com"): 2,
    }


def test_unresolved_template_claim_counts_as_unknown_class() -> None:
    state = new_state()
    add(state, "PodGroup", podgroup("llama-0", created=T0), T0)
    add(state, "Pod", pod("llama-0-0", group="llama-0", created=T0, claim_template="gpu-8x"), T0)
    failed_scheduling(state, "fs", "Pod", "llama-0-0", T0 + 1, "waiting for resourceclaim to be created")
    assert state.snapshot(T0 + 1).allocation_failures == {(LABELS, "unknown"): 1}


def test_failed_scheduling_without_claims_is_not_an_allocation_failure() -> None:
    state = new_state()
    add(state, "PodGroup", podgroup("llama-0", created=T0), T0)
    add(state, "Pod", pod("llama-0-0", group="llama-0", created=T0, gpus=8), T0)
    failed_scheduling(
        state, "fs", "Pod", "llama-0-0", T0 + 1, "0/16 nodes are available: 16 Insufficient nvidia.com/gpu."
    )
    assert state.snapshot(T0 + 1).allocation_failures == {}


def test_podgroup_level_failed_scheduling_event() -> None:
    state = new_state()
    _dra_gang(state, T0)
    failed_scheduling(state, "pg.fs", "PodGroup", "llama-0", T0 + 5, "cannot allocate all claims")
    assert state.snapshot(T0 + 5).allocation_failures == {(LABELS, "imex.nvidia.com"): 1}


def test_requested_gpus_count_extended_resources_and_gpu_claims_only() -> None:
    state = new_state()
    _dra_gang(state, T0)
    add(state, "Pod", pod("llama-0-2", group="llama-0", created=T0, gpus=4), T0)
    # Terminated pods no longer hold a request.
    add(state, "Pod", pod("llama-0-3", group="llama-0", created=T0, gpus=4, phase="Failed"), T0)
    (waiting,) = state.snapshot(T0).waiting
    assert (waiting.pods, waiting.requested_gpus) == (3, 8 + 8 + 4)


# --------------------------------------------------------------- deletion, relist


def test_deleted_group_counters_kept_for_retention_then_pruned() -> None:
    state = new_state()
    add(state, "PodGroup", podgroup("llama-0", created=T0), T0)
    add(state, "Pod", pod("llama-0-0", group="llama-0", created=T0, preempted_at=T0 + 10, phase="Running"), T0 + 10)
    add(state, "PodGroup", podgroup("llama-0", created=T0), T0 + 20, DELETED)
    add(state, "Pod", pod("llama-0-0", group="llama-0", created=T0), T0 + 20, DELETED)
    state.prune(T0 + 600)
    snap = state.snapshot(T0 + 600)
    assert snap.waiting == ()
    assert snap.preemptions == {LABELS: 1}
    state.prune(T0 + 620)
    assert state.snapshot(T0 + 620).preemptions == {}


def test_relist_deletes_missing_objects() -> None:
    state = new_state()
    state.replace("PodGroup", [podgroup("a", created=T0), podgroup("b", created=T0)], T0)
    state.replace("Pod", [pod("a-0", group="a", created=T0, gpus=8)], T0)
    state.replace("PodGroup", [podgroup("a", created=T0)], T0 + 30)
    state.replace("Pod", [], T0 + 30)
    snap = state.snapshot(T0 + 30)
    assert [w.labels.podgroup for w in snap.waiting] == ["a"]
    assert (snap.waiting[0].pods, snap.waiting[0].requested_gpus) == (0, 0)


def test_unsupported_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unsupported kind"):
        new_state().apply("Deployment", ADDED, {}, T0)


# --------------------------------------------------------------- nodes


def test_allocatable_gpus_by_zone_and_model() -> None:
    state = new_state()
    state.replace(
        "Node",
        [
            node("ip-10-0-1-1", instance_type="p5.48xlarge", zone="us-east-1a", gpus=8),
            node("ip-10-0-1-2", instance_type="p5.48xlarge", zone="us-east-1a", gpus=8),
            node("ip-10-0-2-1", instance_type="p5en.48xlarge", zone="us-east-1b", gpus=8),
            node("ip-10-0-3-1", instance_type="g6e.12xlarge", zone="us-east-1b", gpus=4),
            node("ip-10-0-9-9", instance_type="m7i.4xlarge", zone="us-east-1a", gpus=None),
        ],
        T0,
    )
    assert state.snapshot(T0).allocatable_gpus == {
        ("us-east-1a", "p5.48xlarge", "H100-80GB"): 16,
        ("us-east-1b", "g6e.12xlarge", "L40S"): 4,
        ("us-east-1b", "p5en.48xlarge", "H200"): 8,
    }
    add(state, "Node", node("ip-10-0-1-2", instance_type="p5.48xlarge", zone="us-east-1a", gpus=8), T0 + 1, DELETED)
    assert state.snapshot(T0 + 1).allocatable_gpus[("us-east-1a", "p5.48xlarge", "H100-80GB")] == 8


@pytest.mark.parametrize(
    ("instance_type", "model"),
    [
        ("p5.48xlarge", "H100-80GB"),
        ("p5en.48xlarge", "H200"),
        ("p4d.24xlarge", "A100-40GB"),
        ("p6-b200.48xlarge", "B200"),
        ("g5.48xlarge", "A10G"),
        ("g6.xlarge", "L4"),
        ("g6e.48xlarge", "L40S"),
        ("m7i.large", "unknown"),
        ("", "unknown"),
    ],
)
def test_gpu_model_catalogue(instance_type: str, model: str) -> None:
    assert gpus.gpu_model(instance_type) == model


def test_gpu_models_agree_with_the_platform_catalog() -> None:
    from catalog.instances import INSTANCE_TYPES

    gpu_types = [t for t in INSTANCE_TYPES.values() if t.is_gpu]
    assert gpu_types
    for instance in gpu_types:
        assert gpus.gpu_model(instance.name) == str(instance.gpu_model), instance.name


# --------------------------------------------------------------- gate probes


def gang_in_probe_namespace(state: GangState, *, with_probes: bool) -> None:
    """A waiting gang in the probe namespace, optionally beside the gate probes' PodGroups."""
    created = T0 + 10
    groups = [podgroup("llama-0", created=created, namespace=PROBE_NAMESPACE)]
    if with_probes:
        groups += [
            probe_job_podgroup(created=T0 - 3600),
            podgroup(
                f"{PROBE_PREFIX}labelled",
                created=T0 - 3600,
                namespace=PROBE_NAMESPACE,
                labels={PROBE_LABEL: "GenericWorkload"},
            ),
        ]
    state.replace("PodGroup", groups, T0)
    state.replace("Pod", [pod("llama-0-0", group="llama-0", created=created, gpus=8, namespace=PROBE_NAMESPACE)], T0)
    if with_probes:
        for name in (probe_job_podgroup(created=T0)["metadata"]["name"], f"{PROBE_PREFIX}labelled"):
            add(
                state,
                "Event",
                event(
                    f"fs-{name}",
                    reason="FailedScheduling",
                    involved_kind="PodGroup",
                    involved_name=name,
                    message="cannot allocate all claims",
                    last=T0 + 20,
                    namespace=PROBE_NAMESPACE,
                ),
                T0 + 20,
            )
        # A later update (the scheduler never marks a pod-less group) still counts nothing.
        add(state, "PodGroup", probe_job_podgroup(created=T0 - 3600), T0 + 30, MODIFIED)


def test_gate_probe_podgroups_count_in_no_metric_while_a_real_gang_does() -> None:
    with_probes, without = new_state(), new_state()
    gang_in_probe_namespace(with_probes, with_probes=True)
    gang_in_probe_namespace(without, with_probes=False)

    snap = with_probes.snapshot(T0 + 100)
    assert snap == without.snapshot(T0 + 100)
    labels = GroupLabels(PROBE_NAMESPACE, "llama-0", "llama-pretrain", "workers", PRIORITY)
    assert snap.waiting == (WaitingGroup(labels, "Pending", 90.0, 4, 1, 8),)
    assert snap.pending_groups == {(PROBE_NAMESPACE, PRIORITY): 1}
    assert snap.allocation_failures == {}

    # Deleting a probe (stack deletion) touches nothing; the gang is still counted when scheduled.
    add(with_probes, "PodGroup", probe_job_podgroup(created=T0 - 3600), T0 + 110, DELETED)
    scheduled = podgroup(
        "llama-0", created=T0 + 10, namespace=PROBE_NAMESPACE, condition=("True", "Scheduled", T0 + 120)
    )
    add(with_probes, "PodGroup", scheduled, T0 + 120, MODIFIED)
    snap = with_probes.snapshot(T0 + 130)
    assert snap.waiting == ()
    assert snap.pending_groups == {(PROBE_NAMESPACE, PRIORITY): 0}
    assert snap.time_to_scheduled[(PROBE_NAMESPACE, PRIORITY)].count == 1


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (probe_job_podgroup(created=T0), True),
        (podgroup("g", created=T0, namespace=PROBE_NAMESPACE, labels={PROBE_LABEL: "WorkloadWithJob"}), True),
        (podgroup("g", created=T0, namespace=PROBE_NAMESPACE, workload=f"{PROBE_PREFIX}genericworkload"), True),
        (podgroup("g", created=T0, namespace=PROBE_NAMESPACE, owners=[("batch/v1", "Job", f"{PROBE_PREFIX}x")]), True),
        # A real gang in the probe namespace, with a Job owner of its own.
        (podgroup("g", created=T0, namespace=PROBE_NAMESPACE, owners=[("batch/v1", "Job", "llama")]), False),
        # Probe-like names outside the probe namespace belong to a team.
        (podgroup("g", created=T0, labels={PROBE_LABEL: "x"}, workload=f"{PROBE_PREFIX}x"), False),
        (podgroup(f"{PROBE_PREFIX}x", created=T0, namespace=PROBE_NAMESPACE), False),
    ],
)
def test_gate_probe_rule(obj: dict[str, Any], expected: bool) -> None:
    assert is_gate_probe(obj) is expected


def test_gate_probe_identifiers_agree_with_the_platform_policy() -> None:
    from catalog.feature_gates import FEATURE_GATES
    from policy.live import gate_probes

    assert (PROBE_NAMESPACE, PROBE_LABEL, PROBE_PREFIX) == (
        gate_probes.PROBE_NAMESPACE,
        gate_probes.PROBE_LABEL,
        gate_probes.PROBE_PREFIX,
    )
    probes = gate_probes.gate_probes(FEATURE_GATES)
    assert any(p.manifest["kind"] == "Job" for p in probes)
    for probe in probes:
        meta = probe.manifest["metadata"]
        assert is_gate_probe(probe.manifest), probe.name
        # What a controller would compile from it: owned by the probe, named after it, no labels.
        compiled = probe_job_podgroup(created=T0, job=meta["name"], workload=f"{meta['name']}-647cf7d9")
        assert compiled["metadata"]["namespace"] == meta["namespace"]
        assert is_gate_probe(compiled), probe.name


# --------------------------------------------------------------- parsing helpers


def test_parse_helpers() -> None:
    assert parse_time("2026-05-01T10:00:00Z") == 1777629600.0
    assert parse_time("2026-05-01T10:00:00.250000Z") == 1777629600.25
    assert parse_time("not a time") is None
    assert [parse_count(v) for v in ("8", 8, "8000m", "x", None, True)] == [8, 8, 8, 0, 0, 0]


def test_fixture_objects_are_valid_kubernetes_1_37() -> None:
    objects = [
        podgroup("g", created=T0, condition=("False", "Unschedulable", T0), claims=[("imex", "g-imex")]),
        probe_job_podgroup(created=T0),
        pod("p", group="g", created=T0, gpus=8, preempted_at=T0),
        pod("q", group="g", created=T0, claim_template="t", generated_claim="q-gpus"),
        event("e", reason="FailedScheduling", involved_kind="Pod", involved_name="p", message="m", last=T0, count=2),
        claim("c", allocated=True),
        node("n", instance_type="p5.48xlarge", zone="us-east-1a", gpus=8),
    ]
    for obj in objects:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_start_is_compared_at_api_timestamp_resolution() -> None:
    # Exporter starts at .6 s; the API reports the transition truncated to the second.
    state = GangState(started_at=T0 + 0.6)
    state.replace("PodGroup", [podgroup("g", created=T0 - 10)], T0 + 0.6)
    state.apply("PodGroup", MODIFIED, podgroup("g", created=T0 - 10, condition=("True", "Scheduled", T0 + 0.9)), T0 + 1)
    assert state.snapshot(T0 + 1).time_to_scheduled[(NS, PRIORITY)].count == 1
