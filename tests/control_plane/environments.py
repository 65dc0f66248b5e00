"""Which configuration each shipped environment claims, and test-built environments for both forms."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

from control_plane.configs import ConfigName, Configuration, for_declared_gates
from policy.environment.load import load_environment
from tests.conftest import EXAMPLE_ENVIRONMENTS

DIST = Path(__file__).resolve().parents[2] / "dist"


@cache
def claimed(env_name: str) -> Configuration:
    """The configuration ``env_name`` claims: from its declared control-plane gates, never per name."""
    return for_declared_gates(load_environment(name=env_name).feature_gates.control_plane)


def claiming(config: ConfigName) -> list[str]:
    return [e for e in EXAMPLE_ENVIRONMENTS if claimed(e).name is config]


def with_gates(data: dict[str, Any], gates: list[str]) -> dict[str, Any]:
    """``data`` (an environment file's content) with ``gates`` as its control-plane gates."""
    changed = copy.deepcopy(data)
    changed.setdefault("feature_gates", {})["control_plane"] = gates
    kubelet = [g for g in changed["feature_gates"].get("kubelet", []) if g in gates]
    changed["feature_gates"]["kubelet"] = kubelet
    return changed
