"""What AWS would refuse at deploy is refused at synth, with the limit and its source."""

from __future__ import annotations

from typing import Any

from catalog.service_limits import NODES_PER_MANAGED_NODE_GROUP, PLATFORM_TAG_COUNT, TAGS_PER_RESOURCE
from config.load import environment_model
from config.validate_limits import check_service_limits
from tests.helpers import refusal


def test_the_shipped_dev_environment_is_within_every_limit(dev_data: dict[str, Any]) -> None:
    check_service_limits(environment_model(dev_data))


def test_tags_leave_room_for_the_platform_own(dev_data: dict[str, Any]) -> None:
    room = TAGS_PER_RESOURCE.value - PLATFORM_TAG_COUNT
    dev_data["tags"] = {f"k{i}": "v" for i in range(room)}
    check_service_limits(environment_model(dev_data))
    dev_data["tags"] = {f"k{i}": "v" for i in range(room + 1)}
    line = refusal(check_service_limits, environment_model(dev_data))
    assert line.startswith(f"tags: more than {room} tags: AWS allows {TAGS_PER_RESOURCE.value} per resource")


def test_a_node_group_above_the_eks_limit_names_the_pool(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][0]["max_size"] = NODES_PER_MANAGED_NODE_GROUP.value + 1
    assert refusal(check_service_limits, environment_model(dev_data)) == (
        f"gpu_pools[0].max_size: more than the {NODES_PER_MANAGED_NODE_GROUP.value} nodes per managed node group "
        f"AWS allows ({NODES_PER_MANAGED_NODE_GROUP.source}) (got {NODES_PER_MANAGED_NODE_GROUP.value + 1}); "
        "fix: split the capacity over more pools"
    )
