"""Karpenter configuration rules: a ``fails_...`` test with the exact one-line message for each."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from addons.karpenter.pin import KARPENTER_RELEASES
from addons.karpenter.settings import KarpenterCapacityType, KarpenterMode
from config.model import CapacityProvider
from tests.addons.karpenter.conftest import example_env
from tests.conftest import env_from
from tests.helpers import env_refusal


def _pool(data: dict[str, Any], index: int) -> dict[str, Any]:
    pool: dict[str, Any] = data["gpu_pools"][index]
    return pool


def test_example_parses_into_karpenter_pools() -> None:
    env = example_env()
    flex, block, h100 = env.gpu_pools
    assert (flex.provider, block.provider, h100.provider) == (
        CapacityProvider.KARPENTER,
        CapacityProvider.KARPENTER,
        CapacityProvider.MANAGED_NODE_GROUP,
    )
    assert flex.karpenter is not None and block.karpenter is not None
    assert flex.karpenter.capacity_types == (KarpenterCapacityType.SPOT, KarpenterCapacityType.ON_DEMAND)
    assert block.karpenter.mode is KarpenterMode.STATIC
    # The confirmed release, on a Kubernetes minor past its table (acknowledged), without DRA on its pools.
    assert (env.karpenter.version, env.karpenter.acknowledge_unsupported_kubernetes) == ("1.14.1", True)
    assert not env.karpenter.acknowledge_unverified_release
    assert [(p.dra, p.device_plugin) for p in (flex, block, h100)] == [(False, True), (False, True), (True, False)]


def test_fails_same_pool_name_for_karpenter_and_a_managed_node_group(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 2)["name"] = "l40s-flex"
    assert env_refusal(karpenter_data) == (
        "gpu_pools[2].name: pool name is claimed by both a managed node group pool and a Karpenter pool "
        "(gpu_pools[0]); their nodes would share one gpu-platform.io/pool label (got 'l40s-flex'); "
        "fix: give the Karpenter pool its own name"
    )


def test_fails_reserved_pool_without_reservation_selector(karpenter_data: dict[str, Any]) -> None:
    del _pool(karpenter_data, 1)["karpenter"]["capacity_reservations"]
    assert env_refusal(karpenter_data) == (
        "gpu_pools[1].karpenter.capacity_reservations: capacity type reserved needs a capacity reservation "
        "selector (got []); fix: add capacity_reservations: [{id: cr-...}] (a Capacity Block or ODCR) or select "
        "reservations by tags"
    )


def test_fails_dra_with_a_karpenter_release_without_dra(karpenter_data: dict[str, Any]) -> None:
    for pool in karpenter_data["gpu_pools"][:2]:
        pool.update(dra=True, device_plugin=False)
    assert env_refusal(karpenter_data) == (
        "karpenter.version: Karpenter 1.14.1 cannot provision for DRA claims, and Karpenter pools "
        "['l40s-flex', 'h200-block'] use DRA (got '1.14.1'); fix: use a Karpenter release with DRA support "
        "(1.15 or later) or set device_plugin: true, dra: false on those pools"
    )


def test_fails_unacknowledged_unsupported_kubernetes_minor(karpenter_1_14_data: dict[str, Any]) -> None:
    karpenter_1_14_data["karpenter"]["acknowledge_unsupported_kubernetes"] = False
    assert env_refusal(karpenter_1_14_data) == (
        "karpenter.version: Karpenter 1.14.1 supports Kubernetes 1.29-1.36, not the cluster's 1.37 "
        "(got '1.14.1'); fix: use a Karpenter release that supports it, or set "
        "karpenter.acknowledge_unsupported_kubernetes: true to run it anyway"
    )


def test_acknowledged_unsupported_kubernetes_minor_loads(karpenter_1_14_data: dict[str, Any]) -> None:
    env = env_from(karpenter_1_14_data)
    assert env.karpenter.acknowledge_unsupported_kubernetes


def test_fails_unverified_release_without_acknowledgement(karpenter_data: dict[str, Any]) -> None:
    karpenter_data["karpenter"] = {"version": "1.15.0"}
    assert env_refusal(karpenter_data) == (
        "karpenter.version: the compatibility row Karpenter 1.15.0 (Kubernetes 1.29-1.37, DRA) is an assumption, "
        "not verified against upstream (got '1.15.0'); fix: check it in "
        "https://karpenter.sh/docs/upgrading/compatibility/ and set verified=True on its row in "
        "addons/karpenter/pin.py, or set karpenter.acknowledge_unverified_release: true to run it anyway"
    )


def test_acknowledged_unverified_release_loads(karpenter_data: dict[str, Any]) -> None:
    karpenter_data["karpenter"] = {"version": "1.15.0", "acknowledge_unverified_release": True}
    assert env_from(karpenter_data).karpenter.acknowledge_unverified_release


def test_verified_release_needs_no_acknowledgement(
    karpenter_data: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(KARPENTER_RELEASES, "1.15.0", dataclasses.replace(KARPENTER_RELEASES["1.15.0"], verified=True))
    karpenter_data["karpenter"] = {"version": "1.15.0"}
    assert not env_from(karpenter_data).karpenter.acknowledge_unverified_release


def test_unverified_release_needs_no_acknowledgement_without_karpenter_pools(karpenter_data: dict[str, Any]) -> None:
    karpenter_data["karpenter"] = {"version": "1.15.0"}
    karpenter_data["gpu_pools"] = karpenter_data["gpu_pools"][2:]
    assert env_from(karpenter_data).karpenter.version == "1.15.0"


@pytest.mark.parametrize(
    ("family", "problem"), [("m7i", "instance family has no GPUs"), ("p9", "unknown instance family")]
)
def test_fails_instance_family_without_gpus(karpenter_data: dict[str, Any], family: str, problem: str) -> None:
    _pool(karpenter_data, 0)["karpenter"]["instance_families"] = ["g6e", family]
    assert env_refusal(karpenter_data) == (
        f"gpu_pools[0].karpenter.instance_families[1]: {problem} (got '{family}'); "
        "fix: use GPU families such as g5, g6, g6e, p4d, p4de, p5, p5e, p5en, p6-b200"
    )


def test_fails_instance_type_outside_the_families(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 0)["instance_types"] = ["g6e.12xlarge", "g6.12xlarge"]
    assert env_refusal(karpenter_data) == (
        "gpu_pools[0].instance_types[1]: instance type is outside karpenter.instance_families ['g6e'] "
        "(got 'g6.12xlarge'); fix: add its family to karpenter.instance_families or drop the instance type"
    )


def test_fails_karpenter_section_on_a_managed_node_group(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 2)["karpenter"] = {"mode": "static"}
    line = env_refusal(karpenter_data)
    assert line.startswith("gpu_pools[2].karpenter: a karpenter section on a managed node group pool has no effect")
    assert line.endswith("fix: set provider: karpenter or remove the karpenter section")


def test_fails_capacity_on_a_karpenter_pool(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 0)["capacity"] = {"type": "spot"}
    assert env_refusal(karpenter_data) == (
        "gpu_pools[0].capacity: Karpenter pools choose capacity with karpenter.capacity_types "
        "(got {'type': 'spot'}); fix: remove capacity and set karpenter.capacity_types "
        "(and karpenter.capacity_reservations)"
    )


@pytest.mark.parametrize(("key", "value"), [("min_size", 1), ("desired_size", 0)])
def test_fails_minimum_size_on_a_karpenter_pool(karpenter_data: dict[str, Any], key: str, value: int) -> None:
    _pool(karpenter_data, 0)[key] = value
    assert env_refusal(karpenter_data) == (
        f"gpu_pools[0].{key}: Karpenter pools have no minimum or initial size (got {value}); "
        "fix: remove it; for nodes that stay up set karpenter.mode: static (holds max_size nodes)"
    )


def test_fails_reservations_without_reserved_capacity(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 1)["karpenter"]["capacity_types"] = ["on_demand"]
    assert env_refusal(karpenter_data) == (
        "gpu_pools[1].karpenter.capacity_types: capacity reservations are only used with capacity type reserved "
        "(got ['on_demand']); fix: add reserved to karpenter.capacity_types or remove "
        "karpenter.capacity_reservations"
    )


@pytest.mark.parametrize(
    "selector",
    [
        {},
        {"id": "cr-0a1b2c3d4e5f60789", "tags": {"team": "llm"}},
        {"id": "cr-0a1b2c3d4e5f60789", "owner_account": "111122223333"},
    ],
)
def test_fails_reservation_selector_with_both_or_neither(
    karpenter_data: dict[str, Any], selector: dict[str, Any]
) -> None:
    _pool(karpenter_data, 1)["karpenter"]["capacity_reservations"] = [selector]
    assert env_refusal(karpenter_data) == (
        f"gpu_pools[1].karpenter.capacity_reservations[0]: a reservation selector names either an id or tags "
        f"(owner_account only with tags) (got {selector!r}); fix: keep exactly one of id and tags"
    )


def test_reservations_by_tags_with_an_owner_load(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 1)["karpenter"]["capacity_reservations"] = [
        {"tags": {"purpose": "training"}, "owner_account": "111122223333"}
    ]
    assert env_from(karpenter_data).gpu_pools[1].karpenter is not None


def test_fails_unknown_karpenter_version(karpenter_data: dict[str, Any]) -> None:
    karpenter_data["karpenter"] = {"version": "0.37.0"}
    assert env_refusal(karpenter_data) == (
        "karpenter.version: Karpenter release is not in the compatibility table (addons/karpenter/pin.py) "
        "(got '0.37.0'); fix: use one of 1.14.1, 1.15.0 or add a checked row to the table"
    )


def test_fails_malformed_ami_release(karpenter_data: dict[str, Any]) -> None:
    karpenter_data["karpenter"] = {"ami_release": "latest"}
    assert env_refusal(karpenter_data) == (
        "karpenter.ami_release: not in the allowed form (got 'latest'); "
        "fix: use an amazon-eks-ami release: v and a date as 8 digits (e.g. v20260930)"
    )


def test_fails_karpenter_with_auto_mode(karpenter_data: dict[str, Any]) -> None:
    karpenter_data["cluster"]["auto_mode"] = {"enabled": True}
    karpenter_data["dra_driver"] = {"enabled": False}
    for index in (0, 1, 2):
        _pool(karpenter_data, index).update(dra=False, device_plugin=True)
    assert env_refusal(karpenter_data) == (
        "cluster.auto_mode: EKS Auto Mode runs its own Karpenter, whose NodePool API conflicts with a Karpenter "
        "install (got {'enabled': True, 'node_pools': []}); fix: remove cluster.auto_mode or move the "
        "provider: karpenter pools to managed_node_group"
    )


def test_fails_cluster_name_too_long_for_the_node_role(karpenter_data: dict[str, Any]) -> None:
    name = "gpu-" + "k" * 50
    karpenter_data["cluster"]["name"] = name
    assert env_refusal(karpenter_data) == (
        f"cluster.name: the Karpenter node role name '{name}-karpenter-node' is longer than 64 characters "
        f"(got '{name}'); fix: shorten the cluster name to 49 characters or less"
    )


def test_fails_unknown_key_in_the_karpenter_section(karpenter_data: dict[str, Any]) -> None:
    _pool(karpenter_data, 0)["karpenter"]["max_gpus"] = 8
    assert env_refusal(karpenter_data) == (
        "gpu_pools[0].karpenter.max_gpus: unknown key (got 8); fix: remove it or use one of: capacity_reservations, "
        "capacity_types, consolidate_after_minutes, instance_families, mode"
    )
