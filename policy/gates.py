"""Feature-gate rules over the registry in ``catalog.feature_gates``."""

from __future__ import annotations

from collections.abc import Iterable

from catalog.feature_gates import FEATURE_GATES, Component, FeatureGate, Stage
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


def check_gates(*, control_plane: tuple[str, ...], kubelet: tuple[str, ...]) -> None:
    """Reject unknown, removed and dependency-broken gates, and kubelet gates the kubelet lacks."""
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


def required_api_versions(control_plane: Iterable[str]) -> tuple[str, ...]:
    """API group versions the cluster must serve for the declared gates."""
    gates = effective_gates(control_plane)
    return tuple(sorted({v for n in gates for v in FEATURE_GATES[n].api_versions}))


def kubelet_feature_gates(kubelet: Iterable[str]) -> dict[str, bool]:
    """The ``featureGates`` map for the nodeadm ``NodeConfig`` (GA gates are locked on, so left out)."""
    return {n: True for n in sorted(kubelet) if not FEATURE_GATES[n].locked_on}
