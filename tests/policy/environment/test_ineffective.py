"""Settings that would have no effect are refused or said, and repeated list entries are found."""

from __future__ import annotations

from typing import Any

from config.load import environment_model
from policy.environment.ineffective import (
    check_ineffective_settings,
    first_repeated_entry,
    ineffective_setting_notes,
)
from policy.environment.load import load_environment
from tests.helpers import refusal


def test_compute_domains_without_the_dra_driver_are_refused(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {**dev_data.get("dra_driver", {}), "enabled": False, "compute_domains": True}
    assert refusal(check_ineffective_settings, environment_model(dev_data)) == (
        "dra_driver.compute_domains: compute domains are a feature of the DRA driver, and "
        "dra_driver.enabled is false (got True); fix: set dra_driver.enabled: true, or remove compute_domains"
    )


def test_karpenter_settings_without_a_karpenter_pool_are_said_once(dev_data: dict[str, Any]) -> None:
    dev_data["karpenter"] = {"acknowledge_unverified_release": True}
    notes = ineffective_setting_notes(environment_model(dev_data))
    assert [n.split(":")[0] for n in notes] == ["karpenter"]
    assert "acknowledge_unverified_release set, but no GPU pool has provider: karpenter" in notes[0]


def test_the_shipped_dev_environment_sets_nothing_without_effect() -> None:
    assert ineffective_setting_notes(load_environment(name="dev")) == []


def test_the_first_repeated_entry_is_found_with_its_path(dev_data: dict[str, Any]) -> None:
    env = environment_model(dev_data)
    assert first_repeated_entry(env) is None
    zones = dev_data["gpu_pools"][0]["zones"]
    dev_data["gpu_pools"][0]["zones"] = [*zones, zones[0]]
    assert first_repeated_entry(environment_model(dev_data)) == (f"gpu_pools[0].zones[{len(zones)}]", zones[0])
