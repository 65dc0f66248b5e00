"""Fixtures: the shipped Karpenter example as plain data, for tests that change one field."""

from __future__ import annotations

from typing import Any

import pytest

from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from tests.conftest import env_from
from tests.helpers import yaml_files


def example_data() -> dict[str, Any]:
    """``environments/karpenter-example.yaml`` as a dict: pools 0 and 1 are Karpenter, pool 2 a node group.

    The example runs the confirmed release 1.14.1 (its support range stops at Kubernetes 1.36, which
    the example acknowledges), with its Karpenter pools on the device plugin.
    """
    data: dict[str, Any] = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    return data


def example_env() -> EnvironmentConfig:
    """The Karpenter example, parsed and validated."""
    return env_from(example_data())


@pytest.fixture
def karpenter_data() -> dict[str, Any]:
    """``example_data()``, for tests that change one field."""
    return example_data()


@pytest.fixture
def karpenter_1_14_data(karpenter_data: dict[str, Any]) -> dict[str, Any]:
    """The example on the reference release 1.14.1, as shipped: Karpenter pools on the device plugin,
    the unsupported Kubernetes minor acknowledged."""
    assert karpenter_data["karpenter"] == {"acknowledge_unsupported_kubernetes": True}
    assert all(not p["dra"] and p["device_plugin"] for p in karpenter_data["gpu_pools"][:2])
    return karpenter_data


@pytest.fixture
def karpenter_1_15_data(karpenter_data: dict[str, Any]) -> dict[str, Any]:
    """The example on the unconfirmed 1.15.0 (DRA on Karpenter pools), its unverified row acknowledged:
    what the Karpenter pools would look like once a DRA-capable release is confirmed."""
    karpenter_data["karpenter"] = {"version": "1.15.0", "acknowledge_unverified_release": True}
    for pool in karpenter_data["gpu_pools"][:2]:
        pool.update(dra=True, device_plugin=False)
    return karpenter_data
