"""GPU device management releases: the DRA driver on DRA pools (waited for), the device plugin off them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Template

from addons.nvidia_dra_driver.construct import DevicePlugin, DraDriver
from policy.environment.load import load_environment
from tests.helpers.small_stacks import cluster_stack, only


@pytest.fixture(scope="module")
def template() -> Template:
    """prod-example: DRA pools and the device-plugin pool l40s-inference."""
    stack, cluster = cluster_stack()
    env = load_environment(name="prod-example")
    DraDriver(stack, "DraDriver", cluster=cluster, env=env)
    DevicePlugin(stack, "DevicePlugin", cluster=cluster, env=env)
    return Template.from_stack(stack)


def _chart(template: Template, prefix: str) -> dict[str, Any]:
    _, resource = only(template, "Custom::AWSCDK-EKS-HelmChart", prefix)
    properties: dict[str, Any] = resource["Properties"]
    return properties


def test_dra_driver_is_waited_for_and_runs_its_kubelet_plugin_on_dra_pools(template: Template) -> None:
    chart = _chart(template, "DraDriver")
    assert (chart["Chart"], chart["Version"], chart["Namespace"], chart["CreateNamespace"]) == (
        "dra-driver-nvidia-gpu",
        "0.4.1",
        "nvidia",
        True,
    )
    assert (chart["Wait"], chart["Timeout"]) == (True, "600s")
    values = json.loads(chart["Values"])
    assert values["kubeletPlugin"]["nodeSelector"] == {"gpu-platform.io/device-management": "dra"}
    assert values["resources"]["computeDomains"] == {"enabled": False}


def test_device_plugin_runs_only_on_device_plugin_pools_and_is_not_waited_for(template: Template) -> None:
    chart = _chart(template, "DevicePlugin")
    assert (chart["Chart"], chart["Version"], chart["Namespace"]) == ("nvidia-device-plugin", "0.18.2", "nvidia")
    assert "Wait" not in chart
    values = json.loads(chart["Values"])
    assert values["nodeSelector"] == {"gpu-platform.io/device-management": "device-plugin"}
