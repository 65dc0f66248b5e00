"""The simulator on two zones, a few nodes and a few gangs: exact waits, preemptions and GPU-hours."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from catalog.device_classes import DeviceShape
from catalog.priority_tiers import Tier
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.capacity import PodShape
from simulation.engine.event_loop import JobOutcome, Mode, NeverStarted, Simulation, SimulationResult, Window
from simulation.engine.jobs import JobRequest
from simulation.whatif import sample_seconds
from tests.simulation.scenario import SCALE_UP_SECONDS, cluster, environment, gang, h100_pool

STATIC = environment([h100_pool(min_size=2, max_size=2)])  # 2 nodes in each of two zones, always there
HOURS = 6 * 3600


def run(
    jobs: list[JobRequest], *, env: EnvironmentConfig = STATIC, mode: Mode = Mode.GANG, windows: Sequence[Window] = ()
) -> dict[str, JobOutcome]:
    return {j.request.name: j for j in _result(jobs, env=env, mode=mode, windows=windows).jobs}


def _result(
    jobs: list[JobRequest], *, env: EnvironmentConfig = STATIC, mode: Mode = Mode.GANG, windows: Sequence[Window] = ()
) -> SimulationResult:
    return Simulation(cluster(env), jobs, mode=mode, horizon_seconds=HOURS, windows=windows).run()


def started_minutes(outcome: JobOutcome) -> float | None:
    return None if outcome.scheduled_seconds is None else outcome.scheduled_seconds / 60


def test_a_gang_kept_to_one_zone_binds_only_when_its_minimum_fits_one_zone() -> None:
    jobs = run([gang("three-in-a-zone", 3), gang("three-anywhere", 3, zone=False, at_minutes=1)])
    assert jobs["three-in-a-zone"].scheduled_seconds is None
    assert jobs["three-in-a-zone"].never_started is NeverStarted.EXCEEDS_CAPACITY
    assert started_minutes(jobs["three-anywhere"]) == 1


def test_queue_backfills_and_a_never_tier_waits_for_capacity() -> None:
    jobs = run(
        [
            gang("a", 2),
            gang("backfill", 4, tier=Tier.OPPORTUNISTIC, zone=False, at_minutes=10),
            gang("c", 2, at_minutes=20),
        ]
    )
    assert started_minutes(jobs["a"]) == 0
    assert started_minutes(jobs["c"]) == 20  # the waiting 4-node gang does not block the queue
    assert started_minutes(jobs["backfill"]) == 80  # needs all four nodes: after c ends at 80
    assert [j.preemptions for j in jobs.values()] == [0, 0, 0]


def test_higher_priority_first_then_earlier_creation() -> None:
    jobs = run(
        [
            gang("holder", 4, zone=False, minutes=30),
            gang("early-standard", 4, zone=False, at_minutes=1),
            gang("late-deadline", 4, zone=False, tier=Tier.DEADLINE, at_minutes=2, minutes=30),
            gang("later-standard", 4, zone=False, at_minutes=3),
        ]
    )
    assert started_minutes(jobs["late-deadline"]) == 2  # preempts the lower holder at once
    assert jobs["holder"].preemptions == 1
    assert started_minutes(jobs["holder"]) == 0  # initially scheduled once; that never goes back
    # When the deadline gang ends at 32, the earliest-created standard gang goes first: the
    # re-queued holder (created at 0) restarts, then the standard gangs in creation order.
    assert jobs["holder"].completed_seconds == 62 * 60
    assert started_minutes(jobs["early-standard"]) == 62
    assert started_minutes(jobs["later-standard"]) == 122


def test_preemption_evicts_the_whole_lower_gang_which_requeues_and_restarts() -> None:
    result = _result(
        [gang("low", 4, tier=Tier.OPPORTUNISTIC, zone=False, minutes=120), gang("high", 2, zone=False, at_minutes=30)]
    )
    jobs = {j.request.name: j for j in result.jobs}
    assert started_minutes(jobs["high"]) == 30
    assert jobs["low"].preemptions == 1
    assert jobs["high"].completed_seconds == 90 * 60
    assert jobs["low"].completed_seconds == (90 + 120) * 60  # needs all four nodes again, restarts at 90
    assert result.preempted_gpu_seconds == 32 * 30 * 60  # 32 GPUs for the 30 minutes it had run
    assert result.busy_gpu_seconds == (32 * 30 + 16 * 60 + 32 * 120) * 60


def test_a_gang_kept_to_one_zone_does_not_preempt() -> None:
    jobs = run(
        [gang("low", 4, tier=Tier.OPPORTUNISTIC, zone=False, minutes=120), gang("high", 2, zone=True, at_minutes=30)]
    )
    assert jobs["low"].preemptions == 0
    assert started_minutes(jobs["high"]) == 120


def test_a_never_tier_does_not_preempt_and_equal_priorities_do_not_preempt_each_other() -> None:
    jobs = run(
        [
            gang("first", 4, zone=False, minutes=60),
            gang("same-tier", 2, zone=False, at_minutes=5),
            gang("never", 2, tier=Tier.OPPORTUNISTIC, zone=False, at_minutes=6),
        ]
    )
    assert jobs["first"].preemptions == 0
    assert started_minutes(jobs["same-tier"]) == 60
    assert started_minutes(jobs["never"]) == 60  # the other two nodes


def test_device_classes_match_only_the_models_they_select() -> None:
    env = environment(
        [
            h100_pool(min_size=1, max_size=1, zones=["us-west-2a"]),
            {"name": "l4", "instance_types": ["g6.12xlarge"], "zones": ["us-west-2a"], "min_size": 1, "max_size": 1},
        ]
    )
    l4_pod = PodShape(4, 8, 32)
    jobs = run(
        [
            gang("hopper", 1, device_class=DeviceShape.HOPPER_OR_NEWER),
            gang("two-l4-nodes", 2, device_class=DeviceShape.L4, pod=l4_pod),
            gang("one-l4-node", 1, device_class=DeviceShape.L4, pod=l4_pod),
            gang("mig", 1, device_class=DeviceShape.MIG_1G_10GB, pod=PodShape(1, 1, 1)),
            gang("h200", 1, device_class=DeviceShape.H200),
        ],
        env=env,
    )
    assert started_minutes(jobs["hopper"]) == 0
    assert jobs["two-l4-nodes"].never_started is NeverStarted.EXCEEDS_CAPACITY  # free H100s do not count
    assert started_minutes(jobs["one-l4-node"]) == 0
    assert jobs["mig"].never_started is NeverStarted.NO_POOL
    assert jobs["h200"].never_started is NeverStarted.NO_POOL


def test_scale_up_takes_the_pools_delay_and_nodes_are_reused_once_free() -> None:
    env = environment([h100_pool(min_size=1, max_size=3)])  # one node per zone exists, three reachable
    delay = SCALE_UP_SECONDS / 60
    result = _result(
        [gang("a", 3, minutes=30), gang("b", 3, at_minutes=1, minutes=30), gang("c", 3, at_minutes=2)], env=env
    )
    jobs = {j.request.name: j for j in result.jobs}
    assert started_minutes(jobs["a"]) == delay  # the zone's node and two new ones
    assert started_minutes(jobs["b"]) == 1 + delay  # the other zone
    assert started_minutes(jobs["c"]) == delay + 30  # no headroom left: a's nodes once a ends
    assert result.nodes_added == 4


def test_per_pod_baseline_alternates_the_pods_of_gangs_created_together() -> None:
    """Two 3-pod gangs created together on four nodes: kube-scheduler's queue (priority, then creation)
    takes a's first pod, b's first, a's second, b's second; neither ever has three, and all 32 GPUs stay
    held idle to the horizon. With gangs, a runs first and b after it, and nothing is held idle."""
    jobs = [gang("a", 3, zone=False), gang("b", 3, zone=False)]
    gangs = _result(jobs)
    pods = _result(jobs, mode=Mode.POD)
    by_name = {j.request.name: j for j in pods.jobs}
    assert [by_name[n].never_started for n in "ab"] == [NeverStarted.PARTIAL, NeverStarted.PARTIAL]
    assert [by_name[n].most_pods_held for n in "ab"] == [2, 2]
    assert [by_name[n].pods_held_at_end for n in "ab"] == [2, 2]
    assert pods.idle_held_gpu_seconds == 32 * HOURS > 0
    assert pods.busy_gpu_seconds == 0
    assert [started_minutes(j) for j in gangs.jobs] == [0, 60]
    assert gangs.idle_held_gpu_seconds == 0


def test_per_pod_baseline_queues_an_earlier_gangs_pods_first() -> None:
    """Created a minute apart, a's pods are all ahead of b's: a runs, one of b's pods holds a node for a's hour."""
    jobs = [gang("a", 3, zone=False), gang("b", 3, zone=False, at_minutes=1)]
    pods = _result(jobs, mode=Mode.POD)
    by_name = {j.request.name: j for j in pods.jobs}
    assert started_minutes(by_name["a"]) == 0
    assert started_minutes(by_name["b"]) == 60
    assert pods.idle_held_gpu_seconds == 8 * 59 * 60  # from minute 1 to a's end at 60
    assert pods.busy_gpu_seconds == 2 * 24 * 3600


def test_per_pod_baseline_counts_one_preemption_per_episode() -> None:
    """A 2-pod deadline run evicts two pods of a 4-pod gang at one instant: one preemption of two pods, as the
    gang exporter counts (``gang_podgroup_preemptions_total``); with gangs the whole gang goes, once."""
    jobs = [
        gang("low", 4, tier=Tier.OPPORTUNISTIC, zone=False, minutes=120),
        gang("high", 2, tier=Tier.DEADLINE, zone=False, at_minutes=30),
    ]
    for mode, pods in ((Mode.POD, 2), (Mode.GANG, 4)):
        low = next(j for j in _result(jobs, mode=mode).jobs if j.request.name == "low")
        assert (mode, low.preemptions, low.preempted_pods) == (mode, 1, pods)
        assert (low.starts, low.last_started_seconds) == (2, 90 * 60)  # restarts when high ends
        assert low.completed_seconds == (90 + 120) * 60


def test_elastic_gang_starts_with_what_fits_above_its_minimum() -> None:
    result = _result([gang("holder", 1, zone=False, minutes=None), gang("elastic", 2, zone=False, optional=2)])
    elastic = next(j for j in result.jobs if j.request.name == "elastic")
    assert started_minutes(elastic) == 0
    assert result.samples[1].allocated_gpus == {("us-west-2a", "H100-80GB"): 16.0, ("us-west-2b", "H100-80GB"): 16.0}


def test_capacity_block_nodes_exist_only_inside_the_window() -> None:
    block = {
        "name": "h200-block",
        "instance_types": ["p5en.48xlarge"],
        "zones": ["us-west-2a"],
        "min_size": 1 if "scaling" in GpuPoolConfig.model_fields else 0,  # a static block pool, or one EKS starts empty
        "max_size": 1,
        "capacity": {"type": "capacity_block", "reservation_id": "cr-0123456789abcdef0"},
    }
    env = environment([block])
    result = _result(
        [gang("finetune", 1, device_class=DeviceShape.H200, minutes=240)],
        env=env,
        windows=[Window("h200-block", 3600, 3 * 3600)],
    )
    (job,) = result.jobs
    assert started_minutes(job) == 60
    assert job.interruptions == 1 and job.completed_seconds is None
    assert result.busy_gpu_seconds == 8 * 2 * 3600


def test_same_jobs_same_result() -> None:
    jobs = [gang(f"g{i}", 1 + i % 3, zone=bool(i % 2), at_minutes=i * 7, tier=list(Tier)[i % 4]) for i in range(20)]
    assert _result(jobs) == _result(jobs)


@pytest.mark.parametrize("hours", [4, 48, 168])
def test_a_gang_starts_when_a_preemption_frees_room_whatever_the_sampling_step(hours: int) -> None:
    """At 30 minutes a 2-node deadline run evicts a 4-node gang; the 2-node gang waiting since minute 10
    takes the other two nodes at that instant (1800 s), not at the next sample tick (every 1, 6 or 20
    minutes for 4, 48 or 168 hours). The evicted gang restarts when both end, at 90 minutes."""
    jobs = [
        gang("low", 4, tier=Tier.OPPORTUNISTIC, zone=False, minutes=120),
        gang("waiting", 2, tier=Tier.OPPORTUNISTIC, zone=False, at_minutes=10),
        gang("deadline", 2, tier=Tier.DEADLINE, zone=False, at_minutes=30),
    ]
    horizon = hours * 3600
    result = Simulation(cluster(STATIC), jobs, horizon_seconds=horizon, sample_seconds=sample_seconds(horizon)).run()
    found = {j.request.name: (j.scheduled_seconds, j.completed_seconds, j.preemptions) for j in result.jobs}
    assert found == {
        "low": (0.0, (90 + 120) * 60, 1),
        "waiting": (1800.0, 90 * 60, 0),
        "deadline": (1800.0, 90 * 60, 0),
    }
