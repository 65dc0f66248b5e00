"""Check: every field a rendered object uses is unlocked by a gate the cluster has."""

from __future__ import annotations

from config.model import EnvironmentConfig
from policy.checks.objects import Obj, fail
from policy.gates.fields import missing_gates
from policy.gates.rules import effective_gates
from policy.results import Check


def check_feature_gates(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    gates_on = effective_gates(env.feature_gates.control_plane)
    return [
        fail(
            "feature-gates",
            m.subject,
            f"field {m.field} needs feature gate {m.gate}, which the cluster lacks",
            f"add {m.gate} to feature_gates.control_plane (if the cluster provides it) or stop using the field",
        )
        for m in missing_gates(objects, gates_on)
    ]
