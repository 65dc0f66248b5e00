"""The simulation agrees with ``make check`` over generated environments and gangs.

- a gang the capacity check rejects never starts;
- a gang alone in an empty environment that the check accepts starts within its pools'
  provisioning delay;
- with no preemption and every gang arriving at the start, the GPU-hours run equal the mix's.

The check's verdict comes from the real renderer and ``policy.checks.capacity.check_capacity``.
Generated pools have one instance type each: the model gives a pool's nodes its largest size
(``simulation.engine.cluster.node_instance``) while the check counts the best size per shape.
Pools over several zones are zone-pinned: for an unpinned one the check counts all of ``max_size``
in any one zone, while the model spreads its existing nodes over the zones (as the node group's
Auto Scaling group does). Sizes are static (``min_size = max_size``) or autoscaled from at least one
node, the shapes the scaling rules accept.
"""

from __future__ import annotations

from typing import Any

import pytest
from cdk8s import App
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from catalog.device_classes import DeviceShape
from catalog.priority_tiers import Tier
from charts.render import render_team_run
from config.errors import ConfigError
from config.model import EnvironmentConfig
from config.platform import GangTemplate, RunConfig, TeamRun, TopologyPreference
from policy.checks.capacity import check_capacity
from policy.environment.load import load_environment
from policy.gangs.plan import plan_gang
from policy.results import Status
from simulation.engine.cluster import cluster_model
from simulation.engine.event_loop import Mode, Simulation, fits_when_empty
from simulation.engine.jobs import JobRequest, gang_pods
from simulation.mix.load import MIXES_DIR, load_mix
from simulation.mix.sample import sample_jobs
from simulation.whatif import windows
from tests.conftest import EXAMPLE_ENVIRONMENTS
from tests.simulation.scenario import ZONES, cluster, environment, gang, h100_pool, sizes

INSTANCE_TYPES = ("p5.48xlarge", "p4d.24xlarge", "g6.12xlarge", "p5en.48xlarge")
SHAPES = (DeviceShape.H100_80GB, DeviceShape.A100_40GB, DeviceShape.L4, DeviceShape.H200, DeviceShape.HOPPER_OR_NEWER)


@st.composite
def pools(draw: st.DrawFn) -> list[dict[str, Any]]:
    found = []
    for index in range(draw(st.integers(1, 3))):
        max_size = draw(st.integers(1, 4))
        zones = draw(st.sampled_from([ZONES[:1], ZONES[1:], ZONES]))
        min_size = max_size if draw(st.booleans()) or max_size == 1 else draw(st.integers(1, max_size - 1))
        found.append(
            {
                "name": f"pool{index}",
                "instance_types": [draw(st.sampled_from(INSTANCE_TYPES))],
                "zones": zones,
                "zone_pinned": len(zones) > 1 or draw(st.booleans()),
                **sizes(min_size=min_size, max_size=max_size),
            }
        )
    return found


def environment_with_all_classes(pool_list: list[dict[str, Any]]) -> EnvironmentConfig:
    env = environment(pool_list)
    return env.model_copy(
        update={"platform": env.platform.model_copy(update={"device_classes": (*SHAPES, DeviceShape.MIG_1G_10GB)})}
    )


@st.composite
def runs(draw: st.DrawFn) -> RunConfig:
    return RunConfig(
        template=draw(st.sampled_from([GangTemplate.PYTORCH, GangTemplate.MPI])),
        replicas=draw(st.integers(1, 12)),
        gpus_per_replica=draw(st.integers(1, 8)),
        device_class=draw(st.sampled_from(SHAPES)),
        cpu_per_replica=draw(st.integers(1, 96)),
        memory_gib_per_replica=draw(st.integers(1, 900)),
        tier=Tier.STANDARD,
        image="simulation",
        topology=draw(st.sampled_from(list(TopologyPreference))),
    )


def job(env: EnvironmentConfig, run: RunConfig, *, name: str = "gang", minutes: float = 1.0) -> JobRequest:
    plan = plan_gang(env, team="research", run_name=name, run=run)
    required, optional, template = gang_pods(plan.groups, pools=plan.pools)
    return JobRequest(
        name=name,
        namespace=plan.namespace,
        template=template,
        job_class=name,
        tier=run.tier,
        device_class=run.device_class,
        required=required,
        optional=optional,
        topology_zone=plan.topology_key is not None,
        arrival_seconds=0.0,
        duration_seconds=minutes * 60,
    )


def capacity_verdict(env: EnvironmentConfig, run: RunConfig) -> bool:
    """Whether ``make check``'s capacity check accepts the run (rendered as the real templates)."""
    try:
        objects, _ = render_team_run(App(), env, TeamRun("research", "gang", "generated", run))
    except ConfigError:
        assume(False)
    return not any(c.status is Status.FAIL for c in check_capacity(env, objects))


def _zone_pool(name: str, instance_type: str, zones: list[str], size: int, *, pinned: bool) -> dict[str, Any]:
    return {
        "name": name,
        "instance_types": [instance_type],
        "zones": zones,
        "zone_pinned": pinned,
        "min_size": size,
        "max_size": size,
    }


# Pools with different EFA counts: the run is pinned to the p5 pools (5 nodes in us-west-2a), so 6 pods
# of 5 GPUs kept to one zone do not fit, although with the p5en pool's node the zone would hold them.
EFA_PINNED_POOLS = [
    _zone_pool("pool0", "p5.48xlarge", ["us-west-2a"], 4, pinned=False),
    _zone_pool("pool1", "p5.48xlarge", ["us-west-2a", "us-west-2b"], 1, pinned=True),
    _zone_pool("pool2", "p5en.48xlarge", ["us-west-2a", "us-west-2b"], 1, pinned=True),
]
EFA_PINNED_RUN = RunConfig(
    template=GangTemplate.PYTORCH,
    replicas=6,
    gpus_per_replica=5,
    device_class=DeviceShape.HOPPER_OR_NEWER,
    cpu_per_replica=1,
    memory_gib_per_replica=1,
    tier=Tier.STANDARD,
    image="simulation",
    topology=TopologyPreference.ZONE,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool_list=pools(), run=runs())
@example(pool_list=EFA_PINNED_POOLS, run=EFA_PINNED_RUN)
def test_a_gang_starts_alone_exactly_when_the_capacity_check_accepts_it(
    pool_list: list[dict[str, Any]], run: RunConfig
) -> None:
    env = environment_with_all_classes(pool_list)
    cluster = cluster_model(env)
    serving = [cluster.pool_zones[i] for i in cluster.serving[run.device_class]]
    assume(serving)  # a class no pool serves is the device-classes check's finding, not capacity's
    accepted = capacity_verdict(env, run)
    delay = max(pz.delay_seconds for pz in serving)
    (outcome,) = Simulation(cluster, [job(env, run)], horizon_seconds=delay + 3600).run().jobs
    event("accepted" if accepted else "rejected")
    if accepted:
        assert outcome.scheduled_seconds is not None and outcome.scheduled_seconds <= delay
    else:
        assert outcome.scheduled_seconds is None


@settings(max_examples=40, deadline=None)
@given(
    pool_list=pools(),
    gangs=st.lists(st.tuples(runs(), st.integers(1, 240)), min_size=1, max_size=6),
)
@example(
    pool_list=[
        {
            **_zone_pool("pool0", "p5.48xlarge", ["us-west-2a", "us-west-2b"], 1, pinned=True),
            "max_size": 2,
            "scaling": "autoscaled",
        },
        _zone_pool("pool1", "p5.48xlarge", ["us-west-2a", "us-west-2b"], 1, pinned=True),
        _zone_pool("pool2", "p5en.48xlarge", ["us-west-2a", "us-west-2b"], 1, pinned=True),
    ],
    gangs=[
        (
            EFA_PINNED_RUN.model_copy(
                update={"replicas": 9, "gpus_per_replica": 3, "topology": TopologyPreference.NONE}
            ),
            1,
        )
    ],
)
def test_without_preemption_or_later_arrivals_gpu_hours_equal_the_mix(
    pool_list: list[dict[str, Any]], gangs: list[tuple[RunConfig, int]]
) -> None:
    env = environment_with_all_classes(pool_list)
    cluster = cluster_model(env)
    jobs = [job(env, run, name=f"g{i}", minutes=minutes) for i, (run, minutes) in enumerate(gangs)]
    jobs = [j for j in jobs if fits_when_empty(cluster, j) and not j.optional]
    assume(jobs)
    horizon = sum(j.duration_seconds or 0 for j in jobs) + 600 * (len(jobs) + 1)
    result = Simulation(cluster, jobs, horizon_seconds=horizon).run()  # one tier: nobody preempts
    assert all(j.completed_seconds is not None for j in result.jobs)
    wanted = sum(j.gpus * (j.duration_seconds or 0) for j in jobs)
    assert abs(result.busy_gpu_seconds - wanted) < 1e-6 * max(1.0, wanted)
    assert result.preempted_gpu_seconds == 0


@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_shipped_mixes_keep_the_books_balanced(name: str) -> None:
    """After a run of the shipped mix: no node over- or under-committed, no negative count, and the
    GPUs counted as running are exactly those of the running gangs."""
    env = load_environment(name=name)
    mix = load_mix(env, name=name)
    jobs = sample_jobs(env, mix, seed=2, horizon_seconds=mix.hours * 3600, mix_dir=MIXES_DIR)
    for mode in Mode:
        run = Simulation(cluster_model(env), jobs, mode=mode, horizon_seconds=mix.hours * 3600, windows=windows(mix))
        result = run.run()
        assert all(v >= -1e-6 for s in result.samples for v in s.allocated_gpus.values())
        assert all(v >= 0 for s in result.samples for v in s.pending_by_priority_class.values())
        assert all(0 <= n.free[0] <= n.pool_zone.devices and n.free[1] >= 0 and n.free[2] >= -1e-6 for n in run.nodes)
        running = sum(j.placed_gpus for j in run.jobs if j.running)
        assert abs(running - run.busy_gpus) < 1e-6 and run.idle_gpus >= -1e-6
        assert sum(1 for j in result.jobs if j.scheduled_seconds is not None) > 0


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.tuples(st.integers(1, 3), st.integers(0, 2)),
    gangs=st.lists(
        st.tuples(
            st.integers(1, 5), st.sampled_from(list(Tier)), st.booleans(), st.integers(0, 120), st.integers(5, 240)
        ),
        min_size=1,
        max_size=10,
    ),
    mode=st.sampled_from(list(Mode)),
)
def test_results_do_not_depend_on_the_sampling_step(
    nodes: tuple[int, int], gangs: list[tuple[int, Tier, bool, int, int]], mode: Mode
) -> None:
    """Whole-node gangs of every tier, drawn at random on a pool that may scale up: every gang's start,
    end and preemptions, and the GPU-hours, are the same whether the time series is sampled every
    minute or every 20 minutes."""
    existing, extra = nodes
    env = environment([h100_pool(min_size=existing, max_size=existing + extra)])
    jobs = [
        gang(f"g{i}", pods, tier=tier, zone=zone, at_minutes=at, minutes=minutes)
        for i, (pods, tier, zone, at, minutes) in enumerate(gangs)
    ]
    found = []
    for step in (60.0, 1200.0):
        result = Simulation(cluster(env), jobs, mode=mode, horizon_seconds=12 * 3600, sample_seconds=step).run()
        outcomes = [(j.scheduled_seconds, j.completed_seconds, j.preemptions, j.preempted_pods) for j in result.jobs]
        areas = (result.busy_gpu_seconds, result.idle_held_gpu_seconds, result.preempted_gpu_seconds)
        found.append((outcomes, [round(a, 3) for a in areas], result.nodes_added))
    assert found[0] == found[1]
