"""Regions and zones that exist, from catalog/regions.py."""

from __future__ import annotations

from typing import Any

from config.load import environment_model
from config.validate_network import check_region, check_zone
from tests.helpers import refusal


def test_a_region_that_does_not_exist_is_refused(dev_data: dict[str, Any]) -> None:
    dev_data["region"] = "us-west-9"
    assert refusal(check_region, environment_model(dev_data)) == (
        "region: no AWS region has this name (catalog/regions.py) (got 'us-west-9'); fix: use an AWS region "
        "code such as us-east-1, us-west-2 or eu-west-1, or add a checked row to the table"
    )


def test_a_zone_of_another_region_or_none_at_all_is_refused(dev_data: dict[str, Any]) -> None:
    env = environment_model(dev_data)
    check_region(env)
    check_zone(env, "network.availability_zones[0]", f"{env.region}a")
    assert refusal(check_zone, env, "network.availability_zones[0]", "eu-west-1a").startswith(
        f"network.availability_zones[0]: zone is not in region {env.region} (got 'eu-west-1a')"
    )
    assert refusal(check_zone, env, "network.availability_zones[0]", f"{env.region}z").startswith(
        f"network.availability_zones[0]: region {env.region} has no such Availability Zone (catalog/regions.py)"
    )
