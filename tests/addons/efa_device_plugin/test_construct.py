"""The EFA device plugin's release: on the EFA pools only, its image from the cluster's Region."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Template

from addons.efa_device_plugin.construct import EfaDevicePlugin
from policy.environment.load import load_environment
from tests.helpers.small_stacks import cluster_stack, only


@pytest.fixture(scope="module")
def chart() -> dict[str, Any]:
    """prod-example's release (us-east-1; the h100, h200-block, b200 and h100-mig pools have EFA)."""
    stack, cluster = cluster_stack()
    EfaDevicePlugin(stack, "EfaDevicePlugin", cluster=cluster, env=load_environment(name="prod-example"))
    _, resource = only(Template.from_stack(stack), "Custom::AWSCDK-EKS-HelmChart")
    properties: dict[str, Any] = resource["Properties"]
    return properties


def test_the_pinned_chart_goes_to_kube_system(chart: dict[str, Any]) -> None:
    assert (chart["Chart"], chart["Repository"], chart["Namespace"], chart["Release"]) == (
        "aws-efa-k8s-device-plugin",
        "https://aws.github.io/eks-charts",
        "kube-system",
        "aws-efa-k8s-device-plugin",
    )
    assert "Wait" not in chart  # nothing in the stack waits for EFA devices


def test_it_runs_on_efa_nodes_only_and_pulls_from_the_regions_registry(chart: dict[str, Any]) -> None:
    values = json.loads(chart["Values"])
    assert values["nodeSelector"] == {"gpu-platform.io/efa": "true"}
    assert values["image"]["repository"].endswith(".dkr.ecr.us-east-1.amazonaws.com/eks/aws-efa-k8s-device-plugin")
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"} in values[
        "tolerations"
    ]
