"""Pure node-pool policy: plans, labels, user data, tolerations, DRA chart values."""

from __future__ import annotations

from typing import Any

import pytest

from addons.nvidia_dra_driver.values import device_plugin_values, dra_driver_values
from catalog.labels import DEVICE_MANAGEMENT_LABEL
from policy.environment.load import load_environment
from policy.infrastructure.node_pools import gpu_node_labels, node_config_user_data, node_group_plans
from tests.conftest import REFERENCE, env_from
from tests.helpers import yaml_files
from tests.helpers.chart_values import unknown_keys

DRA_CHART_VALUES = REFERENCE / "dra-driver-nvidia-gpu-v0.4.1" / "chart-values.yaml"


def test_zone_pinned_pool_gets_one_node_group_per_zone() -> None:
    pool = load_environment(name="prod-example").gpu_pools[0]
    plans = node_group_plans(pool, cluster_name="gpu-prod")
    assert [(p.name, p.zones) for p in plans] == [
        ("gpu-prod-h100-1a", ("us-east-1a",)),
        ("gpu-prod-h100-1b", ("us-east-1b",)),
        ("gpu-prod-h100-1c", ("us-east-1c",)),
    ]
    assert {(p.min_size, p.max_size, p.desired_size) for p in plans} == {(16, 16, 16)}  # static


def test_unpinned_pool_spans_its_zones() -> None:
    (pool,) = [p for p in load_environment(name="prod-example").gpu_pools if p.name == "l40s-inference"]
    (plan,) = node_group_plans(pool, cluster_name="gpu-prod")
    assert plan.zones == ("us-east-1a", "us-east-1b")
    assert plan.desired_size == pool.min_size == 1


def test_platform_labels_override_pool_labels(dev_data: dict[str, Any]) -> None:
    """A pool that writes a platform label is refused (``tests/config/test_refused_input.py``); one built in code
    still cannot mislabel itself."""
    dev_data["gpu_pools"][0]["labels"] = {"team": "research"}
    pool = env_from(dev_data).gpu_pools[0]
    labels = gpu_node_labels(
        pool.model_copy(update={"labels": {DEVICE_MANAGEMENT_LABEL: "device-plugin", "team": "research"}})
    )
    assert labels[DEVICE_MANAGEMENT_LABEL] == "dra"
    assert labels["team"] == "research"


def test_user_data_is_a_mime_nodeconfig_with_the_kubelet_gates() -> None:
    text = node_config_user_data(("DRAWorkloadResourceClaims",))
    assert text.startswith("MIME-Version: 1.0\nContent-Type: multipart/mixed;")
    part = text.split("Content-Type: application/node.eks.aws\n\n", 1)[1].split("\n--", 1)[0]
    assert yaml_files.load(part) == {
        "apiVersion": "node.eks.aws/v1alpha1",
        "kind": "NodeConfig",
        "spec": {"kubelet": {"config": {"featureGates": {"DRAWorkloadResourceClaims": True}}}},
    }


@pytest.mark.reference
def test_every_dra_driver_value_exists_in_the_chart() -> None:
    chart = yaml_files.load(DRA_CHART_VALUES.read_text())
    assert unknown_keys(dra_driver_values(load_environment(name="prod-example")), chart) == []
    assert unknown_keys({"kubeletPlugin": {"nodeSelectorr": {}}}, chart) == ["kubeletPlugin.nodeSelectorr"]


def test_dra_driver_values_pin_the_kubelet_plugin_to_dra_pools() -> None:
    values = dra_driver_values(load_environment(name="prod-example"))
    assert values["gpuResourcesEnabledOverride"] is True
    assert values["resourceApiVersion"] == "resource.k8s.io/v1"
    assert values["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}
    assert values["kubeletPlugin"] == {
        "nodeSelector": {"gpu-platform.io/device-management": "dra"},
        "tolerations": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Equal", "value": "true"}],
    }


def test_device_plugin_stays_off_dra_pools() -> None:
    env = load_environment(name="prod-example")
    values = device_plugin_values(env)
    assert values["nodeSelector"] == {"gpu-platform.io/device-management": "device-plugin"}
    dra_pools = [p for p in env.gpu_pools if p.dra]
    assert dra_pools and all(gpu_node_labels(p)[DEVICE_MANAGEMENT_LABEL] == "dra" for p in dra_pools)
