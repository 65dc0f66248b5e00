"""What the cluster stack reads back at deploy (the DRA DeviceClass) and states about the gates (outputs)."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import CfnResource
from aws_cdk.assertions import Template

from addons.nvidia_dra_driver.settings import DraDriverConfig
from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from stacks.verification import ServedApiCheck
from tests.helpers.environments import workload_aware
from tests.helpers.small_stacks import cluster_stack, resources


def _outputs(template: Template, construct_id: str) -> dict[str, Any]:
    return {
        k.removeprefix(construct_id)[:-8]: v["Value"]
        for k, v in template.to_json()["Outputs"].items()
        if k.startswith(construct_id)
    }


@pytest.fixture(scope="module")
def template() -> Template:
    """dev as shipped (fallback form, DRA driver on), dev without the driver, and dev's workload-aware twin."""
    stack, cluster = cluster_stack()
    dev = load_environment(name="dev")
    driver = CfnResource(stack, "DraDriver", type="AWS::CloudFormation::WaitConditionHandle")
    ServedApiCheck(stack, "Shipped", cluster=cluster, env=dev, after=[driver])
    no_driver: EnvironmentConfig = dev.model_copy(update={"dra_driver": DraDriverConfig(enabled=False)})
    ServedApiCheck(stack, "NoDriver", cluster=cluster, env=no_driver)
    ServedApiCheck(stack, "Native", cluster=cluster, env=workload_aware("dev"))
    return Template.from_stack(stack)


def test_shipped_form_is_the_fallback_relying_on_no_gate(template: Template) -> None:
    outputs = _outputs(template, "Shipped")
    assert outputs["WorkloadApi"] == (
        "fallback: no gang relies on the Workload API (EKS 1.37 does not serve GenericWorkload)"
    )
    assert outputs["ServedBeyondEks"] == "none"


def test_the_dra_device_class_is_read_back_after_the_driver(template: Template) -> None:
    read_backs = resources(template, "Custom::AWSCDK-EKS-KubernetesObjectValue")
    assert sorted(k[: -len("DraDeviceClass") - 8] for k in read_backs) == ["Native", "Shipped"]
    ((logical_id, resource),) = [(k, r) for k, r in read_backs.items() if k.startswith("Shipped")]
    properties = resource["Properties"]
    assert (properties["ObjectType"], properties["ObjectName"], properties["JsonPath"]) == (
        "deviceclasses.v1.resource.k8s.io",
        "gpu.nvidia.com",
        ".metadata.name",
    )
    assert properties["TimeoutSeconds"] == 300
    assert "DraDriver" in resource["DependsOn"]
    assert _outputs(template, "Shipped")["ServedDraDeviceClass"] == {"Fn::GetAtt": [logical_id, "Value"]}


def test_without_the_dra_driver_nothing_is_read_back(template: Template) -> None:
    assert set(_outputs(template, "NoDriver")) == {"WorkloadApi", "ServedBeyondEks"}


def test_a_control_plane_serving_the_gates_names_what_make_verify_checks(template: Template) -> None:
    outputs = _outputs(template, "Native")
    assert outputs["WorkloadApi"].startswith("required: make deploy's make verify step checks the gates (")
    assert outputs["ServedBeyondEks"] == (
        "DRAWorkloadResourceClaims,GenericWorkload,TopologyAwareWorkloadScheduling,WorkloadWithJob"
    )
