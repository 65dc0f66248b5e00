"""Check: every GPU Pod tolerates the taints of the pools that serve it."""

from __future__ import annotations

from typing import Any

from config.model import EnvironmentConfig, GpuPoolConfig
from policy.checks.demands import pod_gpu_shape
from policy.checks.objects import CLASSES_BY_NAME, Obj, fail, index_by_key, namespace_of
from policy.gangs.plan import pools_serving
from policy.gates.fields import subject
from policy.results import Check


def _tolerates(tolerations: list[dict[str, Any]], pool: GpuPoolConfig) -> bool:
    def covered(key: str, value: str, effect: str) -> bool:
        return any(
            t.get("key") in (key, None)
            and t.get("effect") in (effect, None)
            and (t.get("operator") == "Exists" or t.get("value", "") == value)
            for t in tolerations
        )

    return all(covered(t.key, t.value, t.effect.value) for t in pool.taints if t.effect.value != "PreferNoSchedule")


def check_tolerations(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    claims = index_by_key(objects, "ResourceClaimTemplate")
    found = []
    for obj in objects:
        if obj.get("kind") == "Pod":
            pod_spec = obj["spec"]
        elif obj.get("kind") in ("Job", "StatefulSet"):
            pod_spec = obj["spec"]["template"]["spec"]
        else:
            continue
        shape = pod_gpu_shape(pod_spec, namespace_of(obj), claims)
        spec = CLASSES_BY_NAME.get(shape[0]) if shape else None
        if spec is None:
            continue
        pools = pools_serving(env, spec)
        if pools and not any(_tolerates(pod_spec.get("tolerations", []), p) for p in pools):
            taints = sorted({f"{t.key}={t.value}:{t.effect.value}" for p in pools for t in p.taints})
            found.append(
                fail(
                    "tolerations",
                    subject(obj),
                    f"needs {spec.name} but tolerates the taints of no pool that serves it ({', '.join(taints)})",
                    "add tolerations for those taints",
                )
            )
    return found
