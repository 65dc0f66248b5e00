"""Which gates a rendered object needs, read from the registry's field lists."""

from __future__ import annotations

from catalog.feature_gates import Gate
from policy.gates.fields import MissingGate, field_present, missing_gates, subject

POD = {
    "kind": "Pod",
    "metadata": {"namespace": "research", "name": "worker-0"},
    "spec": {"schedulingGroup": {"podGroupName": "gang"}, "containers": [{"name": "main"}]},
}


def test_a_field_is_present_only_with_a_value() -> None:
    assert field_present(POD, "spec.schedulingGroup")
    assert field_present(POD, "spec.containers[].name")
    assert not field_present(POD, "spec.nodeName")
    assert not field_present({"spec": {"containers": []}}, "spec.containers[].name")


def test_a_gated_field_with_its_gate_off_is_named_with_the_gate() -> None:
    assert list(missing_gates([POD], frozenset())) == [
        MissingGate("Pod/research/worker-0", "spec.schedulingGroup", Gate.GENERIC_WORKLOAD)
    ]


def test_with_the_gate_on_nothing_is_missing() -> None:
    assert list(missing_gates([POD], frozenset({Gate.GENERIC_WORKLOAD}))) == []


def test_a_pod_without_gated_fields_needs_no_gate() -> None:
    plain = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "main"}]}}
    assert list(missing_gates([plain], frozenset())) == []
    assert subject(plain) == "Pod/p"
