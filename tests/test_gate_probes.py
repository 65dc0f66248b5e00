"""Gate probes: built from the registry, read back at deploy by aws-cdk-lib's real kubectl handler, and by verify."""

from __future__ import annotations

import copy
import functools
import json
import tarfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from catalog.feature_gates import FEATURE_GATES, Stage
from config import load_environment
from policy.checks import Status
from policy.gate_probes import PROBE_KINDS, GateProbe, field_value, gate_probes, probe_for
from policy.verify import expectations, gate_checks

Synth = Callable[[str], dict[str, Any]]
GET_HANDLER = "package/custom-resource-handlers/dist/aws-eks-v2/kubectl-handler/get/__init__.py"


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


@functools.cache  # finding it decompresses most of the 38 MB tarball: once per test process
def _get_handler_source() -> str:
    """The source of aws-cdk-lib's eks-v2 ``get`` handler, from the installed package's jsii assembly."""
    import importlib.util

    spec = importlib.util.find_spec("aws_cdk")
    assert spec is not None and spec.origin is not None
    (tarball,) = (Path(spec.origin).parent / "_jsii").glob("aws-cdk-lib@*.jsii.tgz")
    with tarfile.open(tarball) as archive:
        member = archive.extractfile(GET_HANDLER)
        assert member is not None
        return member.read().decode()


def _real_get_handler(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """aws-cdk-lib's eks-v2 ``get`` handler, loaded as a fresh module."""
    module = types.ModuleType("kubectl_get_handler")
    monkeypatch.setenv("PATH", "/usr/bin")  # the handler prepends the kubectl layer's folders at import
    exec(compile(_get_handler_source(), GET_HANDLER, "exec"), module.__dict__)
    return module


class FakeLambda:
    """``subprocess`` and ``time`` for the handler: kubectl answers from a recorded object, the clock from sleeps."""

    def __init__(self, recorded: dict[str, Any], probe: GateProbe) -> None:
        self.recorded, self.probe = recorded, probe
        self.now = 1_000.0
        self.commands: list[list[str]] = []

    def check_call(self, cmd: list[str]) -> int:
        return 0  # aws eks update-kubeconfig

    def check_output(self, cmd: list[str], stderr: Any = None) -> bytes:
        self.commands.append(cmd)
        value = field_value(self.recorded, self.probe.field.path)
        # kubectl prints nothing for a missing JSONPath key; the handler strips the quotes it asked for.
        return ("'" + (json.dumps(value) if value is not None else "") + "'").encode()

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _replay(
    monkeypatch: pytest.MonkeyPatch, template: dict[str, Any], probe: GateProbe, recorded: dict[str, Any]
) -> Any:
    handler = _real_get_handler(monkeypatch)
    fake = FakeLambda(recorded, probe)
    handler.subprocess = types.SimpleNamespace(  # type: ignore[attr-defined]
        check_call=fake.check_call, check_output=fake.check_output, PIPE=-1, CalledProcessError=Exception
    )
    handler.time = fake  # type: ignore[attr-defined]
    handler.os = types.SimpleNamespace(path=types.SimpleNamespace(isfile=lambda p: False), chmod=None)  # type: ignore[attr-defined]
    (props,) = [
        r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue" and r["Properties"]["ObjectName"] == probe.name
    ]
    return handler.get_handler({"RequestType": "Create", "ResourceProperties": props}, None)


@pytest.mark.synth
def test_deploy_read_back_passes_when_the_field_is_kept(synthesized: Synth, monkeypatch: pytest.MonkeyPatch) -> None:
    template = synthesized("dev")["gpu-cluster-dev"]
    (probe,) = [p for p in gate_probes(FEATURE_GATES) if p.gate == "WorkloadWithJob"]
    result = _replay(monkeypatch, template, probe, stored(probe, gate_on=True))
    assert json.loads(result["Data"]["Value"]) == [{"schedulingPolicy": {"gang": {"minCount": 1}}}]


@pytest.mark.synth
def test_deploy_fails_naming_the_gate_when_the_field_is_dropped(
    synthesized: Synth, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = synthesized("dev")["gpu-cluster-dev"]
    (probe,) = [p for p in gate_probes(FEATURE_GATES) if p.gate == "TopologyAwareWorkloadScheduling"]
    with pytest.raises(RuntimeError) as caught:
        _replay(monkeypatch, template, probe, stored(probe, gate_on=False))
    assert str(caught.value) == (
        "Timeout waiting for output from kubectl command: ['get', '-n', 'default', "
        "'workloads.v1beta1.scheduling.k8s.io', 'gate-probe-topologyawareworkloadscheduling', "
        "\"-o=jsonpath='{.spec.podGroupTemplates[*].schedulingConstraints.topology}'\"] (last_error=None)"
    )


@pytest.mark.synth
def test_each_relied_on_gate_is_read_back_after_its_probe_is_applied(synthesized: Synth) -> None:
    template = synthesized("dev")["gpu-cluster-dev"]
    resources = template["Resources"]
    (manifest_id,) = [
        k
        for k, r in resources.items()
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource" and "gate-probe-" in r["Properties"]["Manifest"]
    ]
    applied = {o["metadata"]["name"] for o in json.loads(resources[manifest_id]["Properties"]["Manifest"])}
    reads = {
        r["Properties"]["ObjectName"]: (r["Properties"]["JsonPath"], r["DependsOn"])
        for r in resources.values()
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue" and r["Properties"]["ObjectName"] in applied
    }
    env = load_environment(name="dev")
    assert set(reads) == applied == {p.name for p in gate_probes(env.feature_gates.control_plane)}
    for probe in gate_probes(env.feature_gates.control_plane):
        json_path, depends_on = reads[probe.name]
        assert json_path == probe.json_path and manifest_id in depends_on
    (output,) = [v for k, v in template["Outputs"].items() if k.startswith("ServedApiCheckWorkloadApi")]
    assert output["Value"].startswith("required: gates confirmed")


def test_verify_prints_one_row_per_gate_from_dry_run_answers() -> None:
    expect = expectations(load_environment(name="dev"))
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

    required = expectations(load_environment(name="dev"))
    answers = {
        p.gate: (None if p.kind.api_version.startswith("scheduling") else stored(p, gate_on=True))
        for p in required.probes
    }
    (failed,) = [c for c in gate_checks(required, answers) if c.subject.startswith("GenericWorkload")]
    assert (failed.status, failed.detail) == (
        Status.FAIL,
        "scheduling.k8s.io/v1beta1 not served, so Workload.spec cannot be kept",
    )
    dev_data["platform"]["workload_api"] = "optional"
    optional = expectations(env_from(dev_data))
    rows = gate_checks(optional, answers)
    assert {c.status for c in rows if c.subject.startswith(("GenericWorkload", "Topology", "DRA"))} == {Status.WARN}
    assert all("gang runs cannot start on this cluster" in c.detail for c in rows if c.status is Status.WARN)
