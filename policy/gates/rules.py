"""Feature-gate rules over the registry in ``catalog.feature_gates``."""

from __future__ import annotations

from collections.abc import Iterable

from catalog.eks_control_plane import EKS_SERVED
from catalog.feature_gates import FEATURE_GATES, Component, FeatureGate, Gate, Stage
from config.errors import ConfigError


def _lookup(name: str, field: str) -> FeatureGate:
    gate = FEATURE_GATES.get(name)
    if gate is None:
        known = ", ".join(sorted(g for g, v in FEATURE_GATES.items() if v.stage is not Stage.REMOVED))
        raise ConfigError(field, name, "unknown feature gate", f"use one of: {known}")
    if gate.stage is Stage.REMOVED:
        raise ConfigError(
            field,
            name,
            "feature gate was removed in Kubernetes 1.37",
            f"drop it; its behaviour is part of {gate.replaced_by}",
        )
    return gate


def effective_gates(declared: Iterable[str]) -> frozenset[str]:
    """Gates on in a component: the declared ones plus every gate that is on by default."""
    return frozenset(declared) | {n for n, g in FEATURE_GATES.items() if g.default}


def check_gates(
    *, control_plane: tuple[str, ...], kubelet: tuple[str, ...], served_beyond_eks: tuple[str, ...] = ()
) -> None:
    """Reject unknown, removed and dependency-broken gates, kubelet gates the kubelet lacks, and
    control-plane gates EKS 1.37 does not serve unless ``served_beyond_eks`` acknowledges them."""
    for index, name in enumerate(control_plane):
        gate = _lookup(name, f"feature_gates.control_plane[{index}]")
        if not gate.components & {Component.APISERVER, Component.SCHEDULER, Component.CONTROLLER_MANAGER}:
            raise ConfigError(
                f"feature_gates.control_plane[{index}]",
                name,
                "gate has no control-plane component",
                "list it under feature_gates.kubelet",
            )
    for index, name in enumerate(kubelet):
        gate = _lookup(name, f"feature_gates.kubelet[{index}]")
        if Component.KUBELET not in gate.components:
            raise ConfigError(
                f"feature_gates.kubelet[{index}]",
                name,
                "gate is not a kubelet gate",
                "list it under feature_gates.control_plane",
            )
    _check_served_by_eks(control_plane, served_beyond_eks)
    on = effective_gates(control_plane)
    for index, name in enumerate(control_plane):
        for dependency in FEATURE_GATES[name].depends_on:
            if dependency not in on:
                raise ConfigError(
                    f"feature_gates.control_plane[{index}]",
                    name,
                    f"gate needs {dependency}, which is off",
                    f"add {dependency} to feature_gates.control_plane or drop {name}",
                )
    for index, name in enumerate(kubelet):
        if name not in on:
            raise ConfigError(
                f"feature_gates.kubelet[{index}]",
                name,
                "kubelet gate is on while the control plane does not provide it",
                f"add {name} to feature_gates.control_plane or drop it from the kubelet",
            )


ACKNOWLEDGE_FIELD = "feature_gates.acknowledge_served_beyond_eks"


def _check_served_by_eks(control_plane: tuple[str, ...], acknowledged: tuple[str, ...]) -> None:
    """Each gate EKS does not serve is acknowledged, and each acknowledgement is of such a gate in use."""
    for index, name in enumerate(acknowledged):
        _lookup(name, f"{ACKNOWLEDGE_FIELD}[{index}]")
        if name not in control_plane:
            raise ConfigError(
                f"{ACKNOWLEDGE_FIELD}[{index}]",
                name,
                "acknowledges a gate the environment does not rely on",
                f"drop it, or add {name} to feature_gates.control_plane",
            )
        if EKS_SERVED[name].served:
            raise ConfigError(
                f"{ACKNOWLEDGE_FIELD}[{index}]",
                name,
                "EKS 1.37 serves this gate already, so there is nothing to acknowledge",
                "drop it from the list",
            )
    for index, name in enumerate(control_plane):
        row = EKS_SERVED[name]
        if not row.served and name not in acknowledged:
            stage = FEATURE_GATES[name].stage.value
            default = "on" if FEATURE_GATES[name].default else "off"
            raise ConfigError(
                f"feature_gates.control_plane[{index}]",
                name,
                f"EKS 1.37 does not serve this gate ({stage}, {default} by default; catalog/eks_control_plane.py)",
                f"drop it (gangs then render in the fallback form), or, if this cluster's control plane does "
                f"serve it, list it in {ACKNOWLEDGE_FIELD}",
            )


def served_beyond_eks(control_plane: Iterable[str]) -> tuple[str, ...]:
    """The declared gates that a plain EKS 1.37 cluster does not serve, sorted."""
    return tuple(sorted(n for n in control_plane if not EKS_SERVED[n].served))


def gang_scheduling_native(control_plane: Iterable[str]) -> bool:
    """Gangs get Workloads and PodGroups (all-or-nothing scheduling) only where GenericWorkload is on."""
    return Gate.GENERIC_WORKLOAD in effective_gates(control_plane)


def required_api_versions(control_plane: Iterable[str]) -> tuple[str, ...]:
    """API group versions the cluster must serve for the declared gates."""
    gates = effective_gates(control_plane)
    return tuple(sorted({v for n in gates for v in FEATURE_GATES[n].api_versions}))


def kubelet_feature_gates(kubelet: Iterable[str]) -> dict[str, bool]:
    """The ``featureGates`` map for the nodeadm ``NodeConfig`` (GA gates are locked on, so left out)."""
    return {n: True for n in sorted(kubelet) if not FEATURE_GATES[n].locked_on}
