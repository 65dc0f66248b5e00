"""One node ceiling per pool: NodePool replicas and limits, and the quotas preflight asks for, all
derive from ``policy.infrastructure.node_pools.max_nodes``/``max_nodes_in_zone``."""

from __future__ import annotations

from typing import Any

import pytest

from addons.karpenter.plan import (
    GPU_RESOURCE,
    allowed_instance_types,
    karpenter_pools,
    node_pool_plans,
    node_pools,
)
from catalog.instances import INSTANCE_TYPES
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.node_pools import max_nodes, max_nodes_in_zone
from policy.live.preflight import quota_needs
from tests.addons.karpenter.conftest import example_data
from tests.conftest import env_from

ON_DEMAND_P, SPOT_P = "L-417A185B", "L-7212CCBC"
ON_DEMAND_G, SPOT_G = "L-DB2E81BA", "L-3819A6DF"
ON_DEMAND_STANDARD = "L-1216C47A"


def _flex(data: dict[str, Any]) -> dict[str, Any]:
    """The dynamic L40S pool: any g6e size, spot then on-demand, max_size 6, over two zones."""
    pool: dict[str, Any] = data["gpu_pools"][0]
    return pool


def _block(data: dict[str, Any]) -> dict[str, Any]:
    """The static p5en pool on a Capacity Block (capacity type reserved), max_size 2, one zone."""
    pool: dict[str, Any] = data["gpu_pools"][1]
    return pool


def _with(**flex: Any) -> EnvironmentConfig:
    data = example_data()
    _flex(data).update(flex)
    return env_from(data)


def _pool(env: EnvironmentConfig, name: str) -> GpuPoolConfig:
    (pool,) = [p for p in env.gpu_pools if p.name == name]
    return pool


def _needs(env: EnvironmentConfig) -> dict[str, tuple[int, tuple[str, ...]]]:
    return {n.quota.code: (n.vcpus, n.parts) for n in quota_needs(env)}


SHAPES = {
    "spread": {},
    "zone-pinned": {"zone_pinned": True},
    "listed types only": {"karpenter": {"capacity_types": ["on_demand"]}, "instance_types": ["g6e.12xlarge"]},
    "pinned, static": {"zone_pinned": True, "karpenter": {"mode": "static", "capacity_types": ["spot"]}},
}


@pytest.mark.parametrize("flex", SHAPES.values(), ids=list(SHAPES))
def test_node_pools_of_a_pool_add_up_to_its_node_ceiling(flex: dict[str, Any]) -> None:
    env = _with(**flex)
    for pool in karpenter_pools(env):
        plans = node_pool_plans(pool)
        assert sum(p.max_nodes for p in plans) == max_nodes(pool), pool.name
        for zone in pool.zones:
            (plan,) = [p for p in plans if zone in p.zones]
            # Pinned: each zone's NodePool holds max_size; spread: one NodePool may put every node in this zone.
            assert plan.max_nodes == max_nodes_in_zone(pool, zone) == pool.max_size, (pool.name, zone)
        types = allowed_instance_types(pool)
        objects = {o["metadata"]["name"]: o["spec"] for o in node_pools(pool)}
        assert sorted(objects) == sorted(p.name for p in plans)
        for plan in plans:
            spec = objects[plan.name]
            if "replicas" in spec:
                assert spec["replicas"] == plan.max_nodes and "limits" not in spec
            else:
                assert spec["limits"] == {
                    "cpu": str(plan.max_nodes * max(t.vcpus for t in types)),
                    GPU_RESOURCE: str(plan.max_nodes * max(t.gpus for t in types)),
                }


def test_zone_pinned_pool_gets_max_size_per_zone_like_its_node_group_twin() -> None:
    env = _with(zone_pinned=True)
    flex = _pool(env, "l40s-flex")
    limits = {o["metadata"]["name"]: o["spec"]["limits"] for o in node_pools(flex)}
    assert limits == {
        "l40s-flex-2a": {"cpu": "1152", GPU_RESOURCE: "48"},
        "l40s-flex-2b": {"cpu": "1152", GPU_RESOURCE: "48"},
    }
    assert max_nodes(flex) == 12


def test_gpu_limit_is_max_size_nodes_of_the_largest_size_the_families_allow() -> None:
    # Only g6e.12xlarge (4 GPUs, 48 vCPUs) is listed, but the family lets Karpenter pick g6e.48xlarge
    # (8 GPUs, 192 vCPUs): the limits are sized for max_size nodes of the largest, no more.
    env = _with(instance_types=["g6e.12xlarge"])
    flex = _pool(env, "l40s-flex")
    assert max(t.gpus for t in allowed_instance_types(flex)) == INSTANCE_TYPES["g6e.48xlarge"].gpus == 8
    (spec,) = [o["spec"] for o in node_pools(flex)]
    assert spec["limits"] == {"cpu": str(6 * 192), GPU_RESOURCE: str(6 * 8)}
    # Without instance_families the pool launches exactly its instance types.
    listed = _with(instance_types=["g6e.12xlarge"], karpenter={"capacity_types": ["spot"]})
    (spec,) = [o["spec"] for o in node_pools(_pool(listed, "l40s-flex"))]
    assert spec["limits"] == {"cpu": str(6 * 48), GPU_RESOURCE: str(6 * 4)}


def test_quotas_follow_the_karpenter_capacity_types() -> None:
    # l40s-flex may run wholly on spot or wholly on on-demand; h200-block runs on its Capacity Block.
    assert _needs(env_from(example_data())) == {
        ON_DEMAND_STANDARD: (8, ("system: 4 x m7i.large",)),
        ON_DEMAND_G: (1152, ("l40s-flex: 6 x g6e.48xlarge",)),
        SPOT_G: (1152, ("l40s-flex: 6 x g6e.48xlarge",)),
        ON_DEMAND_P: (384, ("h100: 2 x p5.48xlarge",)),
    }


@pytest.mark.parametrize(
    ("capacity_types", "quotas"),
    [
        (["spot"], {SPOT_G}),
        (["on_demand"], {ON_DEMAND_G}),
        (["spot", "on_demand"], {SPOT_G, ON_DEMAND_G}),
    ],
)
def test_a_karpenter_pool_counts_against_the_quota_of_each_market_it_may_use(
    capacity_types: list[str], quotas: set[str]
) -> None:
    env = _with(karpenter={"instance_families": ["g6e"], "capacity_types": capacity_types})
    counted = {code for code, (_, parts) in _needs(env).items() if any(p.startswith("l40s-flex:") for p in parts)}
    assert counted == quotas


def test_reserved_capacity_needs_no_quota_but_its_on_demand_fallback_does() -> None:
    data = example_data()
    assert _block(data)["karpenter"]["capacity_types"] == ["reserved"]
    assert not [p for _, parts in _needs(env_from(data)).values() for p in parts if p.startswith("h200-block:")]
    _block(data)["karpenter"]["capacity_types"] = ["reserved", "on_demand"]
    _block(data)["karpenter"].pop("mode")
    assert _needs(env_from(data))[ON_DEMAND_P] == (768, ("h200-block: 2 x p5en.48xlarge", "h100: 2 x p5.48xlarge"))


def test_quota_need_of_a_dynamic_pool_is_its_node_pools_cpu_limits() -> None:
    env = _with(zone_pinned=True, instance_types=["g6e.12xlarge"], karpenter={"instance_families": ["g6e"]})
    flex = _pool(env, "l40s-flex")
    cpu = sum(int(o["spec"]["limits"]["cpu"]) for o in node_pools(flex))
    assert _needs(env)[ON_DEMAND_G] == (cpu, ("l40s-flex: 12 x g6e.48xlarge",))
    assert cpu == max_nodes(flex) * 192
