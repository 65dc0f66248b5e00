"""The environment's nodes as the simulation sees them: shapes from the catalog, sizes from the scaling adapter."""

from __future__ import annotations

import pytest

from catalog.device_classes import DeviceShape
from config.load import load_environment
from config.model import GpuPoolConfig
from simulation.engine.cluster import cluster_model
from simulation.pool_scaling import (
    reachable_nodes_in_zone,
    scale_up_delay_seconds,
    static_nodes_in_zone,
)
from tests.simulation.scenario import ZONES, environment, h100_pool


def test_prod_example_pools_per_zone() -> None:
    cluster = cluster_model(load_environment(name="prod-example"))
    rows = {
        (pz.pool.name, pz.zone): (pz.instance.name, pz.devices, pz.static, pz.reachable) for pz in cluster.pool_zones
    }
    assert rows[("h100", "us-east-1a")] == ("p5.48xlarge", 8, 0, 16)
    assert rows[("h100-mig", "us-east-1a")] == ("p5.48xlarge", 56, 0, 1)  # 8 GPUs x 7 1g.10gb slices
    assert rows[("h200-block", "us-east-1b")] == ("p5en.48xlarge", 8, 0, 2)
    assert not any(pool == "l40s-inference" for pool, _ in rows)  # device plugin: no DeviceClass devices
    hopper = {cluster.pool_zones[i].pool.name for i in cluster.serving[DeviceShape.HOPPER_OR_NEWER]}
    assert hopper == {"h100", "h200-block", "b200"}
    assert {cluster.pool_zones[i].pool.name for i in cluster.serving[DeviceShape.MIG_1G_10GB]} == {"h100-mig"}
    assert cluster.serving[DeviceShape.L40S] == []


TODAY = pytest.mark.skipif(
    "scaling" in GpuPoolConfig.model_fields,
    reason="pools declare scaling modes: policy.node_pools's own tests cover their node counts",
)


@TODAY
def test_static_nodes_spread_over_the_zones_of_an_unpinned_pool() -> None:
    env = environment([h100_pool(min_size=3, max_size=4, zone_pinned=False)])
    (pool,) = env.gpu_pools
    assert [static_nodes_in_zone(pool, z) for z in ZONES] == [2, 1]
    assert [reachable_nodes_in_zone(env, pool, z) for z in ZONES] == [4, 4]
    assert cluster_model(env).pool_limits == {"h100": 4}


@TODAY
def test_pinned_pool_sizes_are_per_zone() -> None:
    env = environment([h100_pool(min_size=1, max_size=3, desired_size=2)])
    (pool,) = env.gpu_pools
    assert [static_nodes_in_zone(pool, z) for z in ZONES] == [2, 2]
    assert static_nodes_in_zone(pool, "us-west-2c") == 0
    assert cluster_model(env).pool_limits == {"h100": 6}
    assert scale_up_delay_seconds(env, pool) == 600


@TODAY
def test_a_static_karpenter_pool_holds_its_maximum() -> None:
    env = load_environment(name="karpenter-example")
    block = next(p for p in env.gpu_pools if p.name == "h200-block")
    flex = next(p for p in env.gpu_pools if p.name == "l40s-flex")
    assert static_nodes_in_zone(block, "us-west-2a") == 2
    assert static_nodes_in_zone(flex, "us-west-2a") == 0
