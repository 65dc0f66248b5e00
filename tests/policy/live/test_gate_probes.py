"""Gate probes: built from the registry and sent by make verify (after deploy, with the cluster up), never
applied or read back by the stack that creates the cluster."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import kubernetes_validate
import pytest

from catalog.feature_gates import FEATURE_GATES, Stage
from policy.environment.load import load_environment
from policy.live.gate_probes import PROBE_KINDS, GateProbe, field_value, gate_probes, probe_for
from policy.live.verify import expectations, gate_checks
from policy.results import Status
from tests.conftest import EXAMPLE_ENVIRONMENTS
from tests.helpers.environments import workload_aware, workload_aware_data

Synth = Callable[[str], dict[str, Any]]


def _drop(obj: dict[str, Any], path: str) -> None:
    """What the API server's ``dropDisabledFields`` does to a field whose gate is off."""
    head, _, rest = path.partition(".")
    key = head.removesuffix("[]")
    if key not in obj:
        return
    if not rest:
        del obj[key]
        return
    for child in obj[key] if head.endswith("[]") else [obj[key]]:
        _drop(child, rest)


def stored(probe: GateProbe, *, gate_on: bool) -> dict[str, Any]:
    """The object as the API server returns it after create: server metadata added, the gated field kept or not."""
    obj = copy.deepcopy(probe.manifest)
    obj["metadata"].update({"uid": "5e0c3c8e-0000-4000-8000-000000000001", "resourceVersion": "4711"})
    if not gate_on:
        _drop(obj, probe.field.path)
    return obj


def test_every_gate_that_can_be_off_and_unlocks_a_field_has_a_probe() -> None:
    expected = {n for n, g in FEATURE_GATES.items() if g.stage in (Stage.ALPHA, Stage.BETA) and g.unlocks}
    probes = gate_probes(FEATURE_GATES)
    assert {p.gate for p in probes} == expected
    for probe in probes:
        assert probe.field in FEATURE_GATES[probe.gate].unlocks
        assert probe.manifest["kind"] in PROBE_KINDS and probe.manifest["kind"] != "Pod"
        assert field_value(probe.manifest, probe.field.path) is not None
        kubernetes_validate.validate(probe.manifest, "1.37.0", strict=True)
    (job,) = [p for p in probes if p.manifest["kind"] == "Job"]
    assert job.manifest["spec"]["suspend"] is True  # creates no Pods
    assert probe_for(FEATURE_GATES["DynamicResourceAllocation"]) is None  # GA: cannot be off


def test_dropping_the_field_is_seen() -> None:
    for probe in gate_probes(FEATURE_GATES):
        if probe.field.path != "spec":
            assert field_value(stored(probe, gate_on=False), probe.field.path) is None
            assert field_value(stored(probe, gate_on=True), probe.field.path) is not None


def _gated_reads(template: dict[str, Any]) -> list[str]:
    """What in one stack could fail its deployment for a missing gate: applied probes, read-backs of gated
    fields or of gated API versions."""
    probe_paths = {p.json_path for p in gate_probes(FEATURE_GATES)}
    found = []
    for logical_id, resource in template["Resources"].items():
        properties = resource.get("Properties") or {}
        if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesResource" and "gate-probe-" in json.dumps(properties):
            found.append(f"{logical_id}: applies gate probes")
        if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue":
            if (properties["ObjectType"], properties["ObjectName"]) != DEVICE_CLASS_READ_BACK:
                found.append(f"{logical_id}: reads {properties['ObjectType']}/{properties['ObjectName']}")
            if properties["JsonPath"] in probe_paths:
                found.append(f"{logical_id}: reads the gated field {properties['JsonPath']}")
    return found


DEVICE_CLASS_READ_BACK = ("deviceclasses.v1.resource.k8s.io", "gpu.nvidia.com")
"""The one read-back the cluster stack keeps: the DRA driver's DeviceClass, through GA resource.k8s.io/v1."""


def assert_no_gate_is_probed_in_the_stack(templates: dict[str, Any]) -> None:
    for stack, template in templates.items():
        if not stack.startswith("__"):
            assert _gated_reads(template) == [], stack


@pytest.mark.synth
@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_shipped_stacks_probe_no_gate_and_read_back_no_gated_field(synthesized: Synth, env: str) -> None:
    assert_no_gate_is_probed_in_the_stack(synthesized(env))
    template = synthesized(env)[f"gpu-cluster-{env}"]
    (output,) = [v for k, v in template["Outputs"].items() if k.startswith("ServedApiCheckWorkloadApi")]
    assert output["Value"] == "fallback: no gang relies on the Workload API (EKS 1.37 does not serve GenericWorkload)"


@pytest.mark.synth
@pytest.mark.parametrize("env", ["dev", "prod-example"])
def test_workload_aware_stacks_leave_every_gate_to_make_verify(synthesized_workload_aware: Synth, env: str) -> None:
    """Even where every gate is relied on (and acknowledged), the stack that creates the cluster probes none:
    a missing gate can no longer roll the cluster back; make deploy's verify step reports it."""
    templates = synthesized_workload_aware(env)
    assert_no_gate_is_probed_in_the_stack(templates)
    template = templates[f"gpu-cluster-{env}"]
    reads = [
        (r["Properties"]["ObjectType"], r["Properties"]["ObjectName"])
        for r in template["Resources"].values()
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue"
    ]
    assert reads == [DEVICE_CLASS_READ_BACK]
    gates = workload_aware(env).feature_gates.control_plane
    (output,) = [v for k, v in template["Outputs"].items() if k.startswith("ServedApiCheckWorkloadApi")]
    probed = ", ".join(p.gate for p in gate_probes(gates))
    assert output["Value"] == f"required: make deploy's make verify step checks the gates ({probed})"
    assert len(gate_probes(gates)) >= 4


def test_shipped_environments_leave_verify_no_gate_to_probe() -> None:
    for env in EXAMPLE_ENVIRONMENTS:
        assert expectations(load_environment(name=env)).probes == (), env


def test_verify_prints_one_row_per_gate_from_dry_run_answers() -> None:
    expect = expectations(workload_aware("dev"))
    answers = {p.gate: stored(p, gate_on=p.gate != "WorkloadWithJob") for p in expect.probes}
    rows = [(c.subject, c.status, c.detail) for c in gate_checks(expect, answers)]
    assert rows == [
        (
            "DRAWorkloadResourceClaims (Workload.spec.podGroupTemplates[].resourceClaims)",
            Status.OK,
            "field kept (server-side dry-run)",
        ),
        ("GenericWorkload (Workload.spec)", Status.OK, "field kept (server-side dry-run)"),
        (
            "TopologyAwareWorkloadScheduling (Workload.spec.podGroupTemplates[].schedulingConstraints.topology)",
            Status.OK,
            "field kept (server-side dry-run)",
        ),
        (
            "WorkloadWithJob (Job.spec.scheduling)",
            Status.FAIL,
            "the API server dropped Job.spec.scheduling: WorkloadWithJob is off",
        ),
    ]


def test_verify_rows_when_the_workload_api_is_not_served(dev_data: dict[str, Any]) -> None:
    from tests.conftest import env_from

    required = expectations(workload_aware("dev"))
    answers = {
        p.gate: (None if p.kind.api_version.startswith("scheduling") else stored(p, gate_on=True))
        for p in required.probes
    }
    (failed,) = [c for c in gate_checks(required, answers) if c.subject.startswith("GenericWorkload")]
    assert (failed.status, failed.detail) == (
        Status.FAIL,
        "scheduling.k8s.io/v1beta1 not served, so Workload.spec cannot be kept",
    )
    workload_aware_data(dev_data)["platform"]["workload_api"] = "optional"
    optional = expectations(env_from(dev_data))
    rows = gate_checks(optional, answers)
    assert {c.status for c in rows if c.subject.startswith(("GenericWorkload", "Topology", "DRA"))} == {Status.WARN}
    assert all("gang runs cannot start on this cluster" in c.detail for c in rows if c.status is Status.WARN)
