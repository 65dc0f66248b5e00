"""Karpenter's rules called on their own: NodePool name length, when the release is judged, shape first.

The refusals of whole environment files are in ``test_config.py``; these reach what a file cannot make
on its own (a pool name the model would accept but a zone suffix makes too long for a label).
"""

from __future__ import annotations

import pytest

from addons.karpenter.rules import check_karpenter, check_karpenter_pools_shape
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.environment.load import load_environment
from tests.addons.karpenter.conftest import example_env
from tests.helpers import refusal


def _with_pool(index: int, **changes: object) -> EnvironmentConfig:
    env = example_env()
    pools: list[GpuPoolConfig] = list(env.gpu_pools)
    pools[index] = pools[index].model_copy(update=changes)
    changed: EnvironmentConfig = env.model_copy(update={"gpu_pools": tuple(pools)})
    return changed


def _nodepool_refusal(name: str, nodepool: str, limit: int, index: int) -> str:
    return (
        f"gpu_pools[{index}].name: NodePool name {nodepool!r} is longer than 63 characters (Karpenter labels every "
        f"node with it, karpenter.sh/nodepool) (got {name!r}); fix: shorten the pool name to at most {limit} characters"
    )


def test_the_shipped_example_passes_both_checks() -> None:
    env = example_env()
    check_karpenter_pools_shape(env)
    check_karpenter(env)


def test_a_pool_name_too_long_for_the_nodepool_label_is_refused() -> None:
    name = "a" * 64  # l40s-flex spans two zones: one NodePool named after the pool
    assert refusal(check_karpenter, _with_pool(0, name=name)) == _nodepool_refusal(name, name, 63, 0)


def test_a_zone_pinned_pool_counts_its_zone_suffix() -> None:
    name = "b" * 61  # h200-block is zone-pinned: NodePool <name>-2a
    assert refusal(check_karpenter, _with_pool(1, name=name)) == _nodepool_refusal(name, f"{name}-2a", 60, 1)
    check_karpenter(_with_pool(1, name="b" * 60))


@pytest.mark.parametrize(("field", "value"), [("min_size", 1), ("desired_size", 0)])
def test_a_size_on_a_karpenter_pool_is_a_shape_refusal(field: str, value: int) -> None:
    assert refusal(check_karpenter_pools_shape, _with_pool(0, **{field: value})) == (
        f"gpu_pools[0].{field}: Karpenter pools have no minimum or initial size (got {value}); fix: remove it; "
        "for nodes that stay up set karpenter.mode: static (holds max_size nodes)"
    )


def test_without_karpenter_pools_the_release_is_not_judged() -> None:
    dev = load_environment(name="dev")
    unknown = dev.model_copy(update={"karpenter": dev.karpenter.model_copy(update={"version": "0.0.0"})})
    check_karpenter(unknown)
    assert refusal(check_karpenter, example_env().model_copy(update={"karpenter": unknown.karpenter})).startswith(
        "karpenter.version: Karpenter release is not in the compatibility table"
    )
