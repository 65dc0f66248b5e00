"""Post-deploy verification, decided over recorded API payloads (``kubectl get --raw`` documents)."""

from __future__ import annotations

import copy
import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from policy.environment.load import load_environment
from policy.live.verify import Expectations, evaluate, expectations, platform_object_names
from policy.results import Status
from tests.helpers.environments import workload_aware, write_workload_aware

PAYLOADS = Path(__file__).resolve().parent / "payloads"


def payload(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return loaded


def observed(**overrides: Any) -> dict[str, Any]:
    """A healthy ``ci`` cluster: two g6.xlarge DRA nodes, driver and platform objects in place."""
    base = {
        "api_group_list": payload("apis-1.37-generic-workload"),
        "device_classes": payload("deviceclasses"),
        "priority_classes": payload("priorityclasses"),
        "nodes": payload("nodes-dra"),
        "resource_slices": payload("resourceslices"),
    }
    return {**base, **overrides}


def ci_expectations(**kwargs: Any) -> Expectations:
    return expectations(load_environment(name="ci"), **kwargs)


def twin_expectations(**kwargs: Any) -> Expectations:
    """``ci`` on a control plane that serves the workload-aware gates (``tests.helpers.environments``)."""
    return expectations(workload_aware("ci"), **kwargs)


def verdicts(expect: Expectations, **kwargs: Any) -> list[tuple[str, str, Status, str]]:
    return [(c.check, c.subject, c.status, c.detail) for c in evaluate(expect, **observed(**kwargs))]


def test_expectations_follow_the_declared_gates() -> None:
    assert ci_expectations().api_versions == ("resource.k8s.io/v1",)  # shipped: only what EKS 1.37 serves
    assert twin_expectations().api_versions == ("resource.k8s.io/v1", "scheduling.k8s.io/v1beta1")
    prod = expectations(load_environment(path=Path(__file__).resolve().parent / "environment.yaml"))
    assert prod.api_versions == ("resource.k8s.io/v1", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1")
    assert prod.device_classes == ("gpu.nvidia.com",)


def test_healthy_cluster_passes() -> None:
    expect = twin_expectations(device_classes=["l4.gpu-platform.io"], priority_classes=["gpu-standard"])
    assert verdicts(expect) == [
        ("api", "resource.k8s.io/v1", Status.OK, "served"),
        ("api", "scheduling.k8s.io/v1beta1", Status.OK, "served"),
        ("DeviceClass", "gpu.nvidia.com", Status.OK, "present"),
        ("DeviceClass", "l4.gpu-platform.io", Status.OK, "present"),
        ("PriorityClass", "gpu-standard", Status.OK, "present"),
        ("ResourceSlice", "ip-10-0-41-17.us-east-2.compute.internal (g6.xlarge)", Status.OK, "1 GPU(s) published"),
        ("ResourceSlice", "ip-10-0-52-230.us-east-2.compute.internal (g6.xlarge)", Status.OK, "1 GPU(s) published"),
    ]


def test_shipped_ci_passes_on_eks_as_aws_runs_it() -> None:
    """No scheduling.k8s.io/v1beta1 (GenericWorkload off): the shipped ci relies on nothing of it."""
    expect = ci_expectations(device_classes=["l4.gpu-platform.io"], priority_classes=["gpu-standard"])
    assert verdicts(expect, api_group_list=payload("apis-1.37-no-workload-api")) == [
        ("api", "resource.k8s.io/v1", Status.OK, "served"),
        ("DeviceClass", "gpu.nvidia.com", Status.OK, "present"),
        ("DeviceClass", "l4.gpu-platform.io", Status.OK, "present"),
        ("PriorityClass", "gpu-standard", Status.OK, "present"),
        ("ResourceSlice", "ip-10-0-41-17.us-east-2.compute.internal (g6.xlarge)", Status.OK, "1 GPU(s) published"),
        ("ResourceSlice", "ip-10-0-52-230.us-east-2.compute.internal (g6.xlarge)", Status.OK, "1 GPU(s) published"),
    ]


def test_fails_when_the_workload_api_is_not_served() -> None:
    (failed,) = [
        c
        for c in evaluate(twin_expectations(), **observed(api_group_list=payload("apis-1.37-no-workload-api")))
        if c.status is Status.FAIL
    ]
    assert failed.subject == "scheduling.k8s.io/v1beta1"
    assert failed.detail == (
        "not served by the API server (needs GenericWorkload and --runtime-config=scheduling.k8s.io/v1beta1=true)"
    )


def test_fails_without_v1alpha3_when_composite_pod_groups_are_declared() -> None:
    prod = expectations(load_environment(path=Path(__file__).resolve().parent / "environment.yaml"))
    failed = [v for v in verdicts(prod) if v[2] is Status.FAIL]
    assert failed == [
        (
            "api",
            "scheduling.k8s.io/v1alpha3",
            Status.FAIL,
            "not served by the API server "
            "(needs CompositePodGroup and --runtime-config=scheduling.k8s.io/v1alpha3=true)",
        )
    ]


def test_fails_when_the_driver_class_or_platform_objects_are_missing() -> None:
    classes = payload("deviceclasses")
    classes["items"] = [i for i in classes["items"] if i["metadata"]["name"] != "gpu.nvidia.com"]
    expect = ci_expectations(
        device_classes=["l4.gpu-platform.io", "h100-80gb.gpu-platform.io"], priority_classes=["gpu-critical"]
    )
    failed = [(s, d) for _, s, st, d in verdicts(expect, device_classes=classes) if st is Status.FAIL]
    assert failed == [
        ("gpu.nvidia.com", "missing"),
        ("h100-80gb.gpu-platform.io", "missing"),
        ("gpu-critical", "missing"),
    ]


def test_fails_when_device_classes_cannot_be_listed() -> None:
    failed = [v for v in verdicts(ci_expectations(), device_classes=None) if v[2] is Status.FAIL]
    assert failed == [("DeviceClass", "gpu.nvidia.com", Status.FAIL, "could not list DeviceClass objects")]


def test_fails_when_a_gpu_node_publishes_no_resource_slice() -> None:
    slices = payload("resourceslices")
    slices["items"] = slices["items"][:1]
    failed = [v for v in verdicts(ci_expectations(), resource_slices=slices) if v[2] is Status.FAIL]
    assert failed == [
        (
            "ResourceSlice",
            "ip-10-0-52-230.us-east-2.compute.internal (g6.xlarge)",
            Status.FAIL,
            "no gpu.nvidia.com devices published",
        )
    ]


def test_fails_when_a_node_publishes_fewer_gpus_than_its_instance_type_has() -> None:
    nodes = payload("nodes-dra")
    nodes["items"][0]["metadata"]["labels"]["node.kubernetes.io/instance-type"] = "g6.12xlarge"
    failed = [v for v in verdicts(ci_expectations(), nodes=nodes) if v[2] is Status.FAIL]
    assert failed == [
        (
            "ResourceSlice",
            "ip-10-0-41-17.us-east-2.compute.internal (g6.12xlarge)",
            Status.FAIL,
            "1 of 4 GPUs published",
        )
    ]


def test_warns_when_the_product_name_differs_from_the_catalog() -> None:
    slices = payload("resourceslices")
    for item in slices["items"]:
        item["spec"]["devices"][0]["attributes"]["productName"] = {"string": "NVIDIA L4 (rev b)"}
    statuses = {v[2] for v in verdicts(ci_expectations(), resource_slices=slices) if v[0] == "ResourceSlice"}
    assert statuses == {Status.WARN}


def test_no_gpu_nodes_warns_unless_required() -> None:
    empty = {"apiVersion": "v1", "kind": "NodeList", "metadata": {}, "items": []}
    (slice_check,) = [c for c in evaluate(ci_expectations(), **observed(nodes=empty)) if c.check == "ResourceSlice"]
    assert slice_check.status is Status.WARN
    (required,) = [
        c
        for c in evaluate(ci_expectations(), require_gpu_nodes=True, **observed(nodes=empty))
        if c.check == "ResourceSlice"
    ]
    assert required.status is Status.FAIL


def test_platform_object_names_come_from_rendered_manifests() -> None:
    objects = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "l4.gpu-platform.io"}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "gpu-standard"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "platform-smoke"}},
    ]
    assert platform_object_names(objects) == (("l4.gpu-platform.io",), ("gpu-standard",))


class FakeKube:
    """Answers ``cli.live.verify.fetch`` from the recorded payloads, by API path."""

    def __init__(self, documents: dict[str, Any]) -> None:
        self.documents = documents
        self.asked: list[tuple[str, dict[str, str]]] = []

    def get(self, path: str, **query: str) -> dict[str, Any] | None:
        self.asked.append((path, query))
        return copy.deepcopy(self.documents.get(path))

    def request(self, method: str, path: str, *, body: Any = None, query: Any = None) -> dict[str, Any]:
        """A dry-run create on a cluster without the Workload API: the probe's API is not served."""
        from kubernetes.client.exceptions import ApiException

        self.asked.append((f"{method} {path}", dict(query or {})))
        raise ApiException(status=404, reason="Not Found")


def eks_cluster() -> FakeKube:
    """EKS 1.37 as AWS runs it (no ``scheduling.k8s.io/v1beta1``), with the driver and platform objects."""
    return FakeKube(
        {
            "/apis": payload("apis-1.37-no-workload-api"),
            "/apis/resource.k8s.io/v1/deviceclasses": payload("deviceclasses"),
            "/apis/scheduling.k8s.io/v1/priorityclasses": payload("priorityclasses"),
            "/api/v1/nodes": payload("nodes-dra"),
            "/apis/resource.k8s.io/v1/resourceslices": payload("resourceslices"),
        }
    )


def test_command_reads_the_cluster_and_reports(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import cli.live.verify

    kube = eks_cluster()
    monkeypatch.setattr(cli.live.verify, "connect", lambda path, context: kube)
    kubeconfig = tmp_path / "kubeconfig"
    arn = "arn:aws:eks:us-east-2:123456789012:cluster/gpu-ci"
    kubeconfig.write_text(
        f"current-context: {arn}\ncontexts:\n- name: {arn}\n  context: {{cluster: {arn}}}\n"
        f"clusters:\n- name: {arn}\n  cluster: {{server: 'https://example.invalid'}}\n"
    )
    rendered = tmp_path / "dist"
    rendered.mkdir()
    (rendered / "device-classes.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: l4.gpu-platform.io\n"
    )
    out = io.StringIO()
    with redirect_stdout(out):
        config = write_workload_aware("ci", tmp_path / "ci-workload-aware.yaml")
        code = cli.live.verify.main(
            ["--config", str(config), "--kubeconfig", str(kubeconfig), "--expect-from", str(rendered), "--json"]
        )
    report = json.loads(out.getvalue())
    assert code == 1
    assert [c["subject"] for c in report["checks"] if c["status"] == "fail"] == [
        "scheduling.k8s.io/v1beta1",
        "DRAWorkloadResourceClaims (Workload.spec.podGroupTemplates[].resourceClaims)",
        "GenericWorkload (Workload.spec)",
        "TopologyAwareWorkloadScheduling (Workload.spec.podGroupTemplates[].schedulingConstraints.topology)",
    ]
    assert ("POST /apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads", {"dryRun": "All"}) in kube.asked
    assert "l4.gpu-platform.io" in [c["subject"] for c in report["checks"]]
    assert ("/api/v1/nodes", {"labelSelector": "gpu-platform.io/device-management=dra"}) in kube.asked
    assert ("/apis/resource.k8s.io/v1/resourceslices", {"fieldSelector": "spec.driver=gpu.nvidia.com"}) in kube.asked


def test_command_without_a_kubeconfig_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli.live.verify

    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cli.live.verify.main(["--env", "ci"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_fails_existing_prometheus_without_the_operator_served(dev_data: dict[str, Any]) -> None:
    from tests.conftest import env_from

    dev_data["observability"] = {"prometheus": "existing"}
    expect = expectations(env_from(dev_data))
    assert expect.existing_api_groups == ("monitoring.coreos.com",)
    (failed,) = [c for c in evaluate(expect, **observed()) if c.subject == "monitoring.coreos.com"]
    assert (failed.status, failed.detail, failed.fix) == (
        Status.FAIL,
        "not served: observability.prometheus is existing, but no Prometheus Operator CRDs are installed",
        "install the Prometheus Operator, or set observability.prometheus: install (or none) and deploy",
    )
    with_operator = copy.deepcopy(payload("apis-1.37-generic-workload"))
    with_operator["groups"].append(
        {"name": "monitoring.coreos.com", "versions": [{"groupVersion": "monitoring.coreos.com/v1", "version": "v1"}]}
    )
    (served,) = [
        c for c in evaluate(expect, **observed(api_group_list=with_operator)) if c.subject == "monitoring.coreos.com"
    ]
    assert served.status is Status.OK
