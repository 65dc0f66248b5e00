"""The environment's nodes as the simulation sees them: shapes from the catalog, counts from the scaling modes."""

from __future__ import annotations

import pytest

from catalog.device_classes import DeviceShape
from policy.environment.load import load_environment
from policy.infrastructure.node_pools import (
    reachable_nodes,
    reachable_nodes_in_zone,
    scale_up_delay_seconds,
    static_nodes_in_zone,
)
from simulation.engine.cluster import cluster_model
from tests.conftest import EXAMPLE_ENVIRONMENTS


def test_prod_example_pools_per_zone() -> None:
    cluster = cluster_model(load_environment(name="prod-example"))
    rows = {(pz.pool.name, pz.zone): (pz.instance.name, pz.devices) for pz in cluster.pool_zones}
    assert rows[("h100", "us-east-1a")] == ("p5.48xlarge", 8)
    assert rows[("h100-mig", "us-east-1a")] == ("p5.48xlarge", 56)  # 8 GPUs x 7 1g.10gb slices
    assert rows[("h200-block", "us-east-1b")] == ("p5en.48xlarge", 8)
    assert not any(pool == "l40s-inference" for pool, _ in rows)  # device plugin: no DeviceClass devices
    hopper = {cluster.pool_zones[i].pool.name for i in cluster.serving[DeviceShape.HOPPER_OR_NEWER]}
    assert hopper == {"h100", "h200-block", "b200"}
    assert {cluster.pool_zones[i].pool.name for i in cluster.serving[DeviceShape.MIG_1G_10GB]} == {"h100-mig"}
    assert cluster.serving[DeviceShape.L40S] == []


@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_node_counts_and_delays_are_the_pools_scaling_modes(name: str) -> None:
    """What ``make check`` counts is what the simulation can get, for preempting gangs and the rest."""
    env = load_environment(name=name)
    cluster = cluster_model(env)
    for pz in cluster.pool_zones:
        assert pz.static == static_nodes_in_zone(pz.pool, pz.zone)
        assert pz.reachable == reachable_nodes_in_zone(env, pz.pool, pz.zone)
        assert pz.reachable_preempting == reachable_nodes_in_zone(env, pz.pool, pz.zone, preempting_pods=True)
        assert pz.delay_seconds == scale_up_delay_seconds(env, pz.pool)
        assert cluster.limit_for(pz.pool.name, preempting=False) == reachable_nodes(env, pz.pool)
        assert cluster.limit_for(pz.pool.name, preempting=True) == reachable_nodes(env, pz.pool, preempting_pods=True)
