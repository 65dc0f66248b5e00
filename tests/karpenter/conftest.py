"""Fixtures: the shipped Karpenter example as plain data, for tests that change one field."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from config.load import REPO_ROOT


@pytest.fixture
def karpenter_data() -> dict[str, Any]:
    """``environments/karpenter-example.yaml`` as a dict: pools 0 and 1 are Karpenter, pool 2 a node group."""
    data: dict[str, Any] = yaml.safe_load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    return data
