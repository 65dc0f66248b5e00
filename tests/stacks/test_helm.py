"""A pinned Helm release: every field of the pin, and waiting only when a timeout is given."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from aws_cdk import Duration
from aws_cdk.assertions import Template

from addons.nvidia_dra_driver.pin import DRA_DRIVER
from stacks.helm import pinned_chart
from tests.helpers.small_stacks import cluster_stack, resources

PIN = dataclasses.replace(
    DRA_DRIVER,
    chart="example-chart",
    repository="https://charts.example.com",
    version="1.2.3",
    release="example-release",
    namespace="example-ns",
)


@pytest.fixture(scope="module")
def charts() -> dict[str, dict[str, Any]]:
    stack, cluster = cluster_stack()
    pinned_chart(stack, "Waits", cluster=cluster, pin=PIN, values={"a": {"b": 1}}, wait_timeout=Duration.minutes(7))
    pinned_chart(stack, "Applies", cluster=cluster, pin=PIN, values={}, create_namespace=False)
    found = resources(Template.from_stack(stack), "Custom::AWSCDK-EKS-HelmChart")
    return {k: r["Properties"] for k, r in found.items()}


def _chart(charts: dict[str, dict[str, Any]], prefix: str) -> dict[str, Any]:
    (found,) = [p for k, p in charts.items() if k.startswith(prefix)]
    return found


def test_every_field_of_the_pin_reaches_the_release(charts: dict[str, dict[str, Any]]) -> None:
    for properties in charts.values():
        assert (
            properties["Chart"],
            properties["Repository"],
            properties["Version"],
            properties["Release"],
            properties["Namespace"],
        ) == ("example-chart", "https://charts.example.com", "1.2.3", "example-release", "example-ns")


def test_a_timeout_makes_the_deployment_wait_for_the_release(charts: dict[str, dict[str, Any]]) -> None:
    waits = _chart(charts, "Waits")
    assert (waits["Wait"], waits["Timeout"]) == (True, "420s")
    assert json.loads(waits["Values"]) == {"a": {"b": 1}}
    assert waits["CreateNamespace"] is True  # eks-v2's default when the pin's caller leaves it unset


def test_without_a_timeout_the_release_is_applied_without_waiting(charts: dict[str, dict[str, Any]]) -> None:
    applies = _chart(charts, "Applies")
    assert applies.get("Wait") in (None, False)
    assert "Timeout" not in applies
    assert "CreateNamespace" not in applies  # false: the release goes into a namespace that exists
