"""Capacity that can really arrive: static nodes, autoscaler headroom, and what make check says about them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from addons.karpenter import pin as karpenter_catalog
from config.load import REPO_ROOT
from config.model import PoolScaling
from policy.checks.capacity import check_capacity
from policy.checks.competition import check_competition
from policy.environment.load import load_environment
from policy.infrastructure.node_pools import (
    node_group_plans,
    reachable_nodes_in_zone,
    scale_up_delay_seconds,
    static_nodes_in_zone,
)
from policy.results import Status
from tests.conftest import env_from
from tests.helpers import yaml_files
from tests.helpers.environments import workload_aware_data
from tests.policy.checks.test_suite import H100_RUN, _failures, _find, _objects


def _dev(**h100: Any) -> dict[str, Any]:
    data: dict[str, Any] = yaml_files.load((REPO_ROOT / "environments" / "dev.yaml").read_text())
    data["gpu_pools"][0].update(h100)
    return data


def _workload_aware_dev(**h100: Any) -> dict[str, Any]:
    """``_dev`` on a control plane that serves the workload-aware gates: gangs are PodGroups."""
    return workload_aware_data(_dev(**h100))


def test_static_pool_nodes_exist_before_a_gang_arrives() -> None:
    env = load_environment(name="dev")
    h100, l4 = env.gpu_pools
    assert h100.scaling is PoolScaling.STATIC
    assert [static_nodes_in_zone(h100, z) for z in ("us-west-2a", "us-west-2b")] == [2, 0]  # one zone only
    assert static_nodes_in_zone(l4, "us-west-2a") == 1  # autoscaled: its min_size
    assert static_nodes_in_zone(l4, "us-west-2b") == 0  # not a zone of the pool
    assert scale_up_delay_seconds(env, h100) == 0.0
    assert scale_up_delay_seconds(env, l4) == 930.0  # 30 s decision + 15 min node provisioning


def test_autoscaled_headroom_counts_only_for_pods_the_autoscaler_can_scale_for() -> None:
    env = load_environment(name="dev")
    l4 = env.gpu_pools[1]
    assert reachable_nodes_in_zone(env, l4, "us-west-2a") == 4
    # Cluster Autoscaler's DRA simulation does not support preempting pods: only the static node counts.
    assert reachable_nodes_in_zone(env, l4, "us-west-2a", preempting_pods=True) == 1
    device_plugin = env_from(_dev()).gpu_pools[1].model_copy(update={"dra": False, "device_plugin": True})
    assert reachable_nodes_in_zone(env, device_plugin, "us-west-2a", preempting_pods=True) == 4


def test_static_pool_plans_hold_max_size() -> None:
    pool = load_environment(name="dev").gpu_pools[0]
    assert {(p.min_size, p.desired_size, p.max_size) for p in node_group_plans(pool, cluster_name="x")} == {(2, 2, 2)}


def test_fails_gang_that_needs_nodes_nobody_adds() -> None:
    # dev's H100 pool as it used to be (0..16, nothing scaling it), now autoscaled with one node up:
    # the deadline gang preempts, so Cluster Autoscaler cannot scale for it.
    env = env_from(_workload_aware_dev(scaling="autoscaled", min_size=1, max_size=16))
    objects = _objects(env, run=H100_RUN | {"replicas": 16, "topology": "zone"})
    group = _find(objects, "PodGroup")
    assert _failures(check_capacity(env, objects)) == [
        (
            f"PodGroup/team-llm-research/{group['metadata']['name']}",
            "gang needs 16 pods of 8 x h100-80gb.gpu-platform.io, 180 CPU, 1800Gi in one zone, but no autoscaler "
            "will add the nodes: pool h100 is autoscaled, and Cluster Autoscaler's DRA simulation does not support "
            "pods with preemptionPolicy PreemptLowerPriority; counting only nodes that can come to exist, the "
            "largest zone (us-west-2a) can hold at most 1",
            "make the nodes exist before the gang: scaling: static (min_size = max_size) on pool h100; "
            "or lower replicas",
        )
    ]


def test_non_preempting_gang_can_rely_on_autoscaled_headroom() -> None:
    env = env_from(_workload_aware_dev(scaling="autoscaled", min_size=1, max_size=16))
    objects = _objects(env, run=H100_RUN | {"replicas": 16, "topology": "zone", "tier": "opportunistic"})
    assert [c for c in check_capacity(env, objects) if c.status is not Status.OK] == []


def _karpenter_data() -> dict[str, Any]:
    """The Karpenter example with DRA on its Karpenter pools: only the unconfirmed 1.15.0 allows that."""
    data: dict[str, Any] = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data["platform"]["teams"] = {"llm-research": {"namespace": "team-llm-research", "tiers": ["standard"]}}
    data["platform"]["device_classes"] += ["l40s"]
    data["karpenter"] = {"version": "1.15.0", "acknowledge_unverified_release": True}
    for pool in data["gpu_pools"][:2]:
        pool.update(dra=True, device_plugin=False)
    return data


L40S_RUN = H100_RUN | {
    "device_class": "l40s",
    "gpus_per_replica": 4,
    "cpu_per_replica": 40,
    "memory_gib_per_replica": 300,
    "tier": "standard",
    "replicas": 4,
}


def test_fails_dra_gang_on_a_dynamic_karpenter_pool() -> None:
    env = env_from(_karpenter_data())
    objects = _objects(env, run=L40S_RUN)
    (found,) = _failures(check_capacity(env, objects))
    assert found[1] == (
        "gang needs 4 pods of 4 x l40s.gpu-platform.io, 40 CPU, 300Gi in one zone, but no autoscaler will add "
        "the nodes: pool l40s-flex is a dynamic Karpenter pool, and no verified Karpenter release provisions nodes "
        "for pods that ask for GPUs only through a ResourceClaim; counting only nodes that can come to exist, the "
        "largest zone (us-west-2a) can hold at most 0"
    )
    assert (
        found[2] == "make the nodes exist before the gang: karpenter.mode: static on pool l40s-flex; or lower replicas"
    )


def test_warns_gang_that_waits_for_nodes_from_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    release = karpenter_catalog.KARPENTER_RELEASES["1.15.0"]
    monkeypatch.setitem(karpenter_catalog.KARPENTER_RELEASES, "1.15.0", dataclasses.replace(release, verified=True))
    env = env_from(_karpenter_data())
    objects = _objects(env, run=L40S_RUN)
    (warning,) = [c for c in check_capacity(env, objects) if c.status is Status.WARN]
    assert warning.detail == (
        "gang of 4 pods of 4 x l40s.gpu-platform.io, 40 CPU, 300Gi waits for nodes added from zero in pool "
        "l40s-flex; they come up one by one, so it may start about 16 minutes late, with the first nodes idle "
        "meanwhile"
    )
    assert warning.fix == "keep the gang's nodes up: min_size covering the gang, or scaling: static"


def test_competition_counts_reachable_capacity() -> None:
    env = env_from(_dev(scaling="autoscaled", min_size=2))
    run = H100_RUN | {"replicas": 2, "topology": "zone"}
    objects = _objects(env, a=run, b=run)
    (warning,) = [c for c in check_competition(env, objects) if c.status is Status.WARN]
    assert warning.detail.startswith("high-priority gangs need 4 pods together but one zone holds 2: ")


def test_fallback_gang_is_held_to_the_nodes_that_can_come_to_exist() -> None:
    """Without PodGroups the run's GPU Pods still count as one demand: no autoscaler adds nodes for them either."""
    env = env_from(_dev(scaling="autoscaled", min_size=1, max_size=16))
    objects = _objects(env, run=H100_RUN | {"replicas": 16, "topology": "zone"})
    assert not {o["kind"] for o in objects} & {"Workload", "PodGroup"}
    ((subject, detail, fix),) = _failures(check_capacity(env, objects))
    assert subject.startswith("Pods/team-llm-research/run-")
    assert detail.endswith(
        "counting only nodes that can come to exist, the largest zone (us-west-2a) can hold at most 1"
    )
    assert (
        fix
        == "make the nodes exist before the gang: scaling: static (min_size = max_size) on pool h100; or lower replicas"
    )


def test_fails_at_synth_on_the_pool_whose_nodes_nobody_adds() -> None:
    """The synth refusal names the pool's scaling in the environment file and the run whose gang needs the nodes."""
    from charts.render import render_checked
    from config.errors import ConfigError

    env = env_from(_dev(scaling="autoscaled", min_size=1))
    with pytest.raises(ConfigError) as caught:
        render_checked(env)
    line = caught.value.line()
    group = line.split("(Pods/", 1)[1].split(")", 1)[0]  # dev's fallback form: the run's GPU Pods
    assert line == (
        "environments/dev.yaml: gpu_pools[0].scaling: the gang of teams/llm-research/finetune-8b.yaml "
        f"(Pods/{group}): gang needs 2 pods of 8 x hopper-or-newer.gpu-platform.io, 96 CPU, 900Gi in one zone, but "
        "no autoscaler will add the nodes: pool h100 is autoscaled, and Cluster Autoscaler's DRA simulation does not "
        "support pods with preemptionPolicy PreemptLowerPriority; counting only nodes that can come to exist, the "
        "largest zone (us-west-2a) can hold at most 1 (got 'autoscaled'); fix: make the nodes exist before the gang: "
        "scaling: static (min_size = max_size) on pool h100; or lower replicas in "
        "teams/llm-research/finetune-8b.yaml (full report: make check ENV=dev)"
    )
