"""The gate registry and the rules over it."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.eks_control_plane import EKS_SERVED
from catalog.feature_gates import FEATURE_GATES, Stage
from config.errors import ConfigError
from policy.gates.rules import check_gates, kubelet_feature_gates, required_api_versions
from tests.conftest import env_from
from tests.helpers import refusal
from tests.helpers.environments import workload_aware_data


def _acknowledged(control_plane: tuple[str, ...]) -> tuple[str, ...]:
    """The gates EKS 1.37 does not serve, acknowledged: these tests are about the registry's own rules, on a
    control plane that serves what is declared (``tests/catalog/test_eks_control_plane.py`` covers the EKS rule)."""
    return tuple(n for n in control_plane if n in EKS_SERVED and not EKS_SERVED[n].served)


def _fails(control_plane: tuple[str, ...] = (), kubelet: tuple[str, ...] = ()) -> str:
    return refusal(
        check_gates, control_plane=control_plane, kubelet=kubelet, served_beyond_eks=_acknowledged(control_plane)
    )


def test_registry_dependencies_exist_and_are_not_removed() -> None:
    for gate in FEATURE_GATES.values():
        for dependency in gate.depends_on:
            assert FEATURE_GATES[dependency].stage is not Stage.REMOVED, (gate.name, dependency)


def test_removed_gates_name_their_replacement() -> None:
    removed = {g.name: g.replaced_by for g in FEATURE_GATES.values() if g.stage is Stage.REMOVED}
    assert removed == {"GangScheduling": "GenericWorkload", "WorkloadAwarePreemption": "GenericWorkload"}


def test_fails_unknown_gate() -> None:
    line = _fails(("GenericWorkload", "GangSchedulingV2"))
    assert line.startswith(
        "feature_gates.control_plane[1]: unknown feature gate (got 'GangSchedulingV2'); fix: use one of: "
    )
    assert "GenericWorkload" in line and "GangScheduling," not in line


@pytest.mark.parametrize("removed", ["GangScheduling", "WorkloadAwarePreemption"])
def test_fails_removed_gate(removed: str) -> None:
    assert _fails(("GenericWorkload", removed)) == (
        f"feature_gates.control_plane[1]: feature gate was removed in Kubernetes 1.37 (got '{removed}'); "
        "fix: drop it; its behaviour is part of GenericWorkload"
    )


def test_fails_dependency_off() -> None:
    assert _fails(("GenericWorkload", "CompositePodGroup")) == (
        "feature_gates.control_plane[1]: gate needs TopologyAwareWorkloadScheduling, which is off "
        "(got 'CompositePodGroup'); fix: add TopologyAwareWorkloadScheduling to feature_gates.control_plane "
        "or drop CompositePodGroup"
    )


def test_fails_kubelet_gate_the_control_plane_lacks() -> None:
    assert _fails(("GenericWorkload",), ("DRAWorkloadResourceClaims",)) == (
        "feature_gates.kubelet[0]: kubelet gate is on while the control plane does not provide it "
        "(got 'DRAWorkloadResourceClaims'); fix: add DRAWorkloadResourceClaims to feature_gates.control_plane "
        "or drop it from the kubelet"
    )


def test_fails_control_plane_only_gate_on_kubelet() -> None:
    assert _fails(("GenericWorkload",), ("GenericWorkload",)) == (
        "feature_gates.kubelet[0]: gate is not a kubelet gate (got 'GenericWorkload'); "
        "fix: list it under feature_gates.control_plane"
    )


def test_gate_errors_surface_through_the_environment(dev_data: dict[str, Any]) -> None:
    workload_aware_data(dev_data)["feature_gates"]["control_plane"].append("GangScheduling")
    with pytest.raises(ConfigError, match=r"^feature_gates.control_plane\[4\]: feature gate was removed"):
        env_from(dev_data)


def test_ga_dependencies_count_as_on() -> None:
    gates = ("GenericWorkload", "DRAWorkloadResourceClaims")
    check_gates(control_plane=gates, kubelet=(), served_beyond_eks=_acknowledged(gates))


def test_required_api_versions_follow_the_gates() -> None:
    assert required_api_versions(()) == ("resource.k8s.io/v1",)
    assert required_api_versions(("GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup")) == (
        "resource.k8s.io/v1",
        "scheduling.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1beta1",
    )


def test_kubelet_gates_leave_out_locked_gates() -> None:
    assert kubelet_feature_gates(("DynamicResourceAllocation", "DRAWorkloadResourceClaims")) == {
        "DRAWorkloadResourceClaims": True,
    }
