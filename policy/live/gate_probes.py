"""Gate probes: one pod-less object per relied-on gate, using one field the gate unlocks, read back.

A disabled gate does not make the API server refuse a gated field: the registry strategy drops
it on create (``dropDisabledFields`` in ``PrepareForCreate``), so the only proof a gate is on is
the field surviving a round trip. The field comes from the gate registry
(``catalog.feature_gates``: the first ``unlocks`` entry of a kind with a probe object below);
this module knows how to build a minimal object of each kind and a sample value for each leaf
field, nothing per gate.

Probes create no Pods: Workloads and CompositePodGroups have no pods of their own, and the Job
is created suspended. The deploy-time check applies them and reads the field with the cluster's
kubectl provider; ``make verify`` sends them with ``dryRun=All``, which stores nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from catalog import versions
from catalog.feature_gates import FEATURE_GATES, FeatureGate, FieldRef, Stage
from catalog.labels import DOMAIN

Json = dict[str, Any]

PROBE_NAMESPACE = "default"
PROBE_LABEL = f"{DOMAIN}/gate-probe"
"""Names the gate a probe object checks. The gang exporter keeps a copy of these three names to ignore probes."""
PROBE_PREFIX = "gate-probe-"


@dataclass(frozen=True)
class ProbeKind:
    api_version: str
    plural: str
    spec: Callable[[str], Json]
    """Minimal valid spec of an object named ``name``."""

    @property
    def object_type(self) -> str:
        """``<plural>.<version>.<group>``: how ``kubectl get`` (and ``KubernetesObjectValue``) names the type."""
        group, _, version = self.api_version.rpartition("/")
        return ".".join(p for p in (self.plural, version, group) if p)

    def path(self, namespace: str, name: str | None = None) -> str:
        """REST path of the collection (or of ``name``) in ``namespace``."""
        group, _, version = self.api_version.rpartition("/")
        root = f"/apis/{group}/{version}" if group else f"/api/{version}"
        return f"{root}/namespaces/{namespace}/{self.plural}" + (f"/{name}" if name else "")


def _workload_spec(name: str) -> Json:
    return {"podGroupTemplates": [{"name": "probe", "schedulingPolicy": {"basic": {}}}]}


def _job_spec(name: str) -> Json:
    return {
        "suspend": True,
        "parallelism": 1,
        "completions": 1,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "probe", "image": versions.SMOKE_TEST_IMAGE}],
            }
        },
    }


def _composite_spec(name: str) -> Json:
    return {"workloadRef": {"workloadName": name, "templateName": "probe"}, "schedulingPolicy": {"basic": {}}}


PROBE_KINDS: dict[str, ProbeKind] = {
    "Workload": ProbeKind(versions.SCHEDULING_API_VERSION, "workloads", _workload_spec),
    "Job": ProbeKind("batch/v1", "jobs", _job_spec),
    "CompositePodGroup": ProbeKind(versions.COMPOSITE_POD_GROUP_API_VERSION, "compositepodgroups", _composite_spec),
}

FIELD_SAMPLES: dict[str, Any] = {
    "scheduling": {"schedulingPolicy": {"gang": {"minCount": 1}}},
    "topology": [{"key": "topology.kubernetes.io/zone"}],
    "preemptionPolicy": "Never",
    "resourceClaims": [{"name": "probe", "resourceClaimTemplateName": "probe"}],
}
"""A value for each leaf field a probe sets (the whole ``spec`` of a gated kind needs none)."""


@dataclass(frozen=True)
class GateProbe:
    gate: str
    field: FieldRef
    kind: ProbeKind
    manifest: Json

    @property
    def name(self) -> str:
        return str(self.manifest["metadata"]["name"])

    @property
    def json_path(self) -> str:
        """The field as a kubectl JSONPath (``[]`` becomes ``[*]``)."""
        return "." + self.field.path.replace("[]", "[*]")


def _set(obj: Json, path: str, value: Any) -> None:
    head, _, rest = path.partition(".")
    key = head.removesuffix("[]")
    if not rest:
        obj[key] = copy.deepcopy(value)
        return
    child = obj.setdefault(key, {})
    _set(child[0] if head.endswith("[]") else child, rest, value)


def _probe_field(gate: FeatureGate) -> FieldRef | None:
    for ref in gate.unlocks:
        if ref.kind in PROBE_KINDS and (ref.path == "spec" or ref.path.rpartition(".")[2] in FIELD_SAMPLES):
            return ref
    return None


def probe_for(gate: FeatureGate) -> GateProbe | None:
    """The probe of ``gate``, or ``None`` for a GA gate (it cannot be off) or one without a probeable field."""
    ref = _probe_field(gate) if gate.stage is not Stage.GA else None
    if ref is None:
        return None
    kind = PROBE_KINDS[ref.kind]
    name = f"{PROBE_PREFIX}{gate.name.lower()}"
    manifest: Json = {
        "apiVersion": kind.api_version,
        "kind": ref.kind,
        "metadata": {
            "name": name,
            "namespace": PROBE_NAMESPACE,
            "labels": {PROBE_LABEL: gate.name},
            "annotations": {PROBE_LABEL: f"deploy-time check that {gate.name} keeps {ref}; creates no pods"},
        },
        "spec": kind.spec(name),
    }
    if ref.path != "spec":
        _set(manifest, ref.path, FIELD_SAMPLES[ref.path.rpartition(".")[2]])
    return GateProbe(gate.name, ref, kind, manifest)


def gate_probes(gates: Iterable[str]) -> list[GateProbe]:
    """Probes of the given gates (the environment's control-plane gates), sorted by gate."""
    return [p for name in sorted(set(gates)) if (p := probe_for(FEATURE_GATES[name])) is not None]


def field_value(obj: Mapping[str, Any] | None, path: str) -> Any:
    """The values at ``path`` (``[]`` iterates lists) in ``obj``; ``None`` when absent or empty everywhere."""
    values: list[Any] = [obj] if obj is not None else []
    for part in path.split("."):
        key = part.removesuffix("[]")
        found = [v.get(key) for v in values if isinstance(v, Mapping)]
        values = [f for f in found if f not in (None, [], {}, "")]
        if part.endswith("[]"):
            values = [item for v in values if isinstance(v, list) for item in v]
    return values or None
