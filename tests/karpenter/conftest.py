"""Fixtures: the shipped Karpenter example as plain data, for tests that change one field."""

from __future__ import annotations

from typing import Any

import pytest

from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from tests import yaml_files
from tests.conftest import env_from


def example_data() -> dict[str, Any]:
    """``environments/karpenter-example.yaml`` as a dict: pools 0 and 1 are Karpenter, pool 2 a node group.

    The pinned release's compatibility row is unverified, so the example acknowledges it; it is
    set here too, so these tests judge Karpenter objects whatever the example file says about it.
    """
    data: dict[str, Any] = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data.setdefault("karpenter", {}).setdefault("acknowledge_unverified_release", True)
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
    """The example on the reference release 1.14.1: Karpenter pools on the device plugin, the
    unsupported Kubernetes minor acknowledged."""
    karpenter_data["karpenter"] = {"version": "1.14.1", "acknowledge_unsupported_kubernetes": True}
    for pool in karpenter_data["gpu_pools"][:2]:
        pool.update(dra=False, device_plugin=True)
    return karpenter_data
