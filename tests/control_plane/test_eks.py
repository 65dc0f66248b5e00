"""EKS 1.37 as AWS runs it (default gates): the rendered objects, DeviceClasses and ``make verify``.

One control plane for this module (``eks`` configuration); nodes are fake (Node objects with a
status, no kubelet) and carry ResourceSlices shaped like the NVIDIA DRA driver's.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest

from control_plane.configs import ConfigName
from control_plane.pins import KUBERNETES
from control_plane.run import ControlPlane
from tests.conftest import EXAMPLE_ENVIRONMENTS, REFERENCE, env_from, require_reference
from tests.control_plane.apply import CRD_KINDS, apply_all, check_applied, delete_all, dist_objects, needs_crd
from tests.control_plane.cluster import Cluster, Obj, add_node, cleanup, resource_slice, wait_until
from tests.control_plane.conftest import PlaneFor
from tests.control_plane.driver import gate_rows, prepare_for_verify, run_verify
from tests.control_plane.environments import DIST, claimed, claiming, with_gates
from tests.control_plane.gangs import NAMESPACE, Gang, Outcome, Scenario, checked, run_on_scheduler, simulated
from tests.control_plane.nvidia import every_kind_of_device
from tests.helpers.environments import workload_aware

EKS_ENVIRONMENTS = claiming(ConfigName.EKS)


def test_every_shipped_environment_claims_the_eks_configuration() -> None:
    assert list(EXAMPLE_ENVIRONMENTS) == EKS_ENVIRONMENTS


def test_binaries_and_server_report_the_pinned_release(eks_plane: ControlPlane, eks: Cluster) -> None:
    for name in ("kube-apiserver", "kube-scheduler", "kube-controller-manager"):
        out = subprocess.run([str(eks_plane.binaries.path(name)), "--version"], capture_output=True, text=True).stdout
        assert out.strip() == f"Kubernetes {KUBERNETES.version}", name
    assert (eks.get_path("/version") or {})["gitVersion"] == KUBERNETES.version


def test_eks_serves_no_workload_api(eks: Cluster) -> None:
    groups = {g["name"]: [v["version"] for v in g["versions"]] for g in (eks.get_path("/apis") or {})["groups"]}
    assert groups["scheduling.k8s.io"] == ["v1"]
    assert "v1" in groups["resource.k8s.io"]


def test_a_gated_field_is_dropped_not_refused(eks: Cluster) -> None:
    """What the kit's gate checks rely on: without WorkloadWithJob, Job.spec.scheduling disappears."""
    job: Obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "gated-field-probe", "namespace": "default"},
        "spec": {
            "parallelism": 2,
            "completions": 2,
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": 2}}},
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}},
        },
    }
    answer = eks.request("POST", eks.path(job, name=False), body=job, query={"dryRun": "All"})
    assert "scheduling" not in answer["spec"]


@pytest.mark.parametrize("env_name", EKS_ENVIRONMENTS)
def test_every_rendered_object_applies_strictly_and_reads_back(plane_for: PlaneFor, env_name: str) -> None:
    """``dist/<env>/`` on the configuration the environment claims (its declared gates): every shipped environment
    keeps to what EKS 1.37 serves, so its gangs are in the fallback form."""
    objects = [o for o in dist_objects(DIST / env_name) if not needs_crd(o)]
    assert not {"Workload", "PodGroup", "CompositePodGroup"} & {o["kind"] for o in objects}
    check_applied(Cluster(plane_for(claimed(env_name)).kubeconfig), objects)


@pytest.mark.reference
@pytest.mark.parametrize("env_name", EKS_ENVIRONMENTS)
def test_objects_of_reference_crds_apply_strictly_and_read_back(plane_for: PlaneFor, env_name: str) -> None:
    everything = dist_objects(DIST / env_name)
    objects = [o for o in everything if needs_crd(o) or o["kind"] == "Namespace"]
    for key in {(o["apiVersion"], o["kind"]) for o in objects if needs_crd(o)}:
        require_reference(REFERENCE / CRD_KINDS[key])
    check_applied(Cluster(plane_for(claimed(env_name)).kubeconfig), objects, reference=REFERENCE)


def test_fallback_form_of_an_environment_without_workload_gates_applies(eks: Cluster, dev_data: dict[str, Any]) -> None:
    """An environment built by the test that declares no workload gate renders the form EKS serves (no Workload,
    PodGroup or CompositePodGroup; GPU Pods without ``schedulingGroup``), and the real API server keeps all of it."""
    from charts.render import render_environment

    rendered = render_environment(env_from(with_gates(dev_data, [])))
    objects = [o for o in rendered.all_objects() if not needs_crd(o)]
    kinds = {o["kind"] for o in objects}
    assert not {"Workload", "PodGroup", "CompositePodGroup"} & kinds
    pods = [o for o in objects if o["kind"] == "Pod"]
    assert pods and not [p for p in pods if "schedulingGroup" in p["spec"]]
    check_applied(eks, objects)


# --- DRA: each platform DeviceClass gets exactly the devices it names --------------------------------

EXPECTED_DEVICES = {
    "h100-80gb.gpu-platform.io": {"gpu-0"},
    "h200.gpu-platform.io": {"gpu-1"},
    "b200.gpu-platform.io": {"gpu-2"},
    "l4.gpu-platform.io": {"gpu-3"},
    "l40s.gpu-platform.io": {"gpu-4"},
    "a100-40gb.gpu-platform.io": {"gpu-5"},
    "hopper-or-newer.gpu-platform.io": {"gpu-0", "gpu-1", "gpu-2"},
    "mig-1g-10gb.gpu-platform.io": {"gpu-6-mig-1g-10gb-0", "gpu-6-mig-1g-10gb-1"},
}
"""Device names of ``nvidia.every_kind_of_device()``: what each class must select (the vfio device
``gpu-7`` and the 2g.20gb slice belong to no platform class)."""


def platform_device_classes() -> dict[str, Obj]:
    classes: dict[str, Obj] = {}
    for path in sorted(DIST.glob("*/device-classes.yaml")):
        for obj in dist_objects(path.parent):
            if obj["kind"] == "DeviceClass" and obj["metadata"]["name"].endswith(".gpu-platform.io"):
                classes[obj["metadata"]["name"]] = obj
    return classes


def _claim_all(name: str, device_class: str) -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpus", "exactly": {"deviceClassName": device_class, "allocationMode": "All"}}]
            }
        },
    }


def _pod_with_claim(name: str, claim: str, node_name: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": node_name},
            "resourceClaims": [{"name": "gpus", "resourceClaimName": claim}],
            "containers": [{"name": "c", "image": "pause", "resources": {"claims": [{"name": "gpus"}]}}],
        },
    }


def _allocate(cluster: Cluster, classes: dict[str, Obj], node_prefix: str) -> dict[str, set[str] | str]:
    """Per class: the devices the real scheduler allocated to an all-devices claim on a node of its own
    holding every kind of device, or the reason the Pod stayed unscheduled."""
    created: list[Obj] = []
    try:
        jobs = {}
        for index, (name, device_class) in enumerate(sorted(classes.items())):
            created.append(device_class)
            cluster.apply(device_class)
            node_name = f"{node_prefix}-{index}"
            add_node(cluster, node_name, labels={"gpu-platform.io/test": node_prefix})
            created.insert(0, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node_name}})
            slice_ = resource_slice(node_name, every_kind_of_device())
            cluster.apply(slice_)
            created.append(slice_)
            claim = _claim_all(f"{node_prefix}-{index}", name)
            pod = _pod_with_claim(f"{node_prefix}-{index}", claim["metadata"]["name"], node_name)
            cluster.create(claim)
            cluster.create(pod)
            created += [claim, pod]
            jobs[name] = (claim, pod)

        def settled() -> bool:
            for _claim, pod in jobs.values():
                got = cluster.get(pod) or {}
                if not got.get("spec", {}).get("nodeName") and not _unschedulable(got):
                    return False
            return True

        wait_until(settled, timeout_s=30)
        out: dict[str, set[str] | str] = {}
        for name, (claim, pod) in jobs.items():
            got_claim = cluster.get(claim) or {}
            results = got_claim.get("status", {}).get("allocation", {}).get("devices", {}).get("results", [])
            got_pod = cluster.get(pod) or {}
            out[name] = {r["device"] for r in results} if results else _unschedulable(got_pod) or "pending"
        return out
    finally:
        cleanup(cluster, created)


def _unschedulable(pod: Obj) -> str:
    for c in pod.get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable":
            return str(c.get("message", "Unschedulable"))
    return ""


def test_each_platform_device_class_gets_exactly_the_devices_it_names(eks: Cluster) -> None:
    classes = platform_device_classes()
    assert set(classes) <= set(EXPECTED_DEVICES), f"no expectation for {set(classes) - set(EXPECTED_DEVICES)}"
    assert len(classes) >= 6
    allocated = _allocate(eks, classes, "dra")
    assert allocated == {name: EXPECTED_DEVICES[name] for name in classes}


def test_a_broken_selector_is_caught_by_the_real_scheduler(eks: Cluster) -> None:
    """The marketing size as a memory floor (``>= 80Gi``) rejects a real H100, which reports 81559Mi."""
    broken = copy.deepcopy(platform_device_classes()["h100-80gb.gpu-platform.io"])
    broken["metadata"]["name"] = "h100-broken.gpu-platform.io"
    broken["spec"]["selectors"][0]["cel"]["expression"] += (
        "\n&& device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0"
    )
    allocated = _allocate(eks, {"h100-broken.gpu-platform.io": broken}, "dra-broken")
    outcome = allocated["h100-broken.gpu-platform.io"]
    assert isinstance(outcome, str)
    assert "cannot allocate all claims" in outcome or "resource" in outcome.lower(), outcome


# --- make verify against the live server ---------------------------------------------------------------


def _verify(plane: ControlPlane, cluster: Cluster, tmp_path: Path, *, twin: bool) -> tuple[int, str, dict[str, str]]:
    created = prepare_for_verify(cluster)
    try:
        code = run_verify(plane.kubeconfig, tmp_path, twin=twin)
    finally:
        cleanup(cluster, created)
    return code, VERIFY_OUTPUT.read(), gate_rows(VERIFY_OUTPUT.last)


class _Captured:
    """``capsys``'s output of the last verify run, also printed (``-s`` shows it; the docs quote it)."""

    capsys: pytest.CaptureFixture[str] | None = None
    last = ""

    def read(self) -> str:
        assert self.capsys is not None
        self.last = self.capsys.readouterr().out
        print(self.last)
        return self.last


VERIFY_OUTPUT = _Captured()


@pytest.fixture
def verify_output(capsys: pytest.CaptureFixture[str]) -> _Captured:
    VERIFY_OUTPUT.capsys = capsys
    return VERIFY_OUTPUT


WORKLOAD_API_ROWS = {"api scheduling.k8s.io/v1beta1", "api scheduling.k8s.io/v1alpha3"}


def test_verify_of_shipped_dev_in_the_eks_configuration_finds_nothing_missing(
    eks_plane: ControlPlane, eks: Cluster, tmp_path: Path, verify_output: _Captured
) -> None:
    """``make verify ENV=dev`` against the eks configuration: dev relies on no gate EKS lacks, so no gate row
    and no Workload API row, and nothing fails."""
    code, out, rows = _verify(eks_plane, eks, tmp_path, twin=False)
    assert out.startswith("verify dev (cluster gpu-dev)\n"), out
    assert code == 0, out
    assert "FAIL" not in rows.values(), out
    assert not [r for r in rows if r.startswith("gate ")], out
    assert not WORKLOAD_API_ROWS & set(rows), out


def test_verify_of_a_workload_aware_dev_in_the_eks_configuration_reports_the_missing_gates(
    eks_plane: ControlPlane, eks: Cluster, tmp_path: Path, verify_output: _Captured
) -> None:
    """``make verify CONFIG=<dev's workload-aware twin>`` against the eks configuration: every declared gate
    and the Workload API are missing."""
    code, out, rows = _verify(eks_plane, eks, tmp_path, twin=True)
    assert code == 1, out
    failed = {r for r, status in rows.items() if status == "FAIL"}
    gates = {f"gate {g}" for g in workload_aware("dev").feature_gates.control_plane}
    assert failed == {"api scheduling.k8s.io/v1beta1", *gates}, out
    assert out.rstrip().endswith(f"{len(rows) - len(failed)} ok, 0 warn, {len(failed)} fail, 0 skip"), out


def test_a_port_in_use_fails_in_one_line_and_leaves_nothing_behind(
    eks_plane: ControlPlane, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from control_plane import ControlPlaneError, run

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setattr(run, "free_port", lambda: taken.getsockname()[1])
        plane = run.ControlPlane(eks_plane.binaries, eks_plane.configuration)
        with pytest.raises(ControlPlaneError) as raised:
            plane.start(timeout_s=20)
    assert str(raised.value).startswith("etcd could not listen: a port was taken (address already in use); fix: see ")
    assert "\n" not in str(raised.value)
    assert plane.processes == {}
    assert not plane.dir.exists()


# --- the fallback form's gangs on the real scheduler -----------------------------------------------------

FALLBACK_SCENARIOS = (
    Scenario("fb-fit", "fallback run, room for all (2 nodes, 2 Pods)", (1, 1), Gang("fb-fit", 2)),
    Scenario("fb-partial", "fallback run, room for fewer (2 nodes, 3 Pods)", (1, 1), Gang("fb-partial", 3)),
    Scenario("fb-zones", "fallback zone run, two zones (2 + 2 nodes, 2 Pods)", (2, 2), Gang("fb-zones", 2, zone=True)),
    Scenario(
        "fb-bigzone",
        "fallback zone run larger than a zone (2 + 2 nodes, 3 Pods)",
        (2, 2),
        Gang("fb-bigzone", 3, zone=True),
    ),
)

FALLBACK_AGREEMENT: dict[str, tuple[Outcome, Outcome, str]] = {
    # scenario: (real 1.37 scheduler, simulator's per-pod baseline, make check on Pods/<ns>/<run>)
    "fb-fit": (Outcome.ALL_BOUND, Outcome.ALL_BOUND, "ok"),
    "fb-partial": (Outcome.SOME_BOUND, Outcome.SOME_BOUND, "fail"),
    "fb-zones": (Outcome.ALL_BOUND, Outcome.ALL_BOUND, "ok"),
    # Disagreement, the scheduler is the truth: the required zone Pod affinity keeps the run in the first Pod's
    # zone (2 bind there, the third waits although the other zone is free); the simulator's per-pod baseline
    # models no topology (Mode.POD), so it places all 3 across the zones (docs/control-plane.md, limits).
    "fb-bigzone": (Outcome.SOME_BOUND, Outcome.ALL_BOUND, "fail"),
}
"""docs/control-plane.md's agreement table, fallback rows, as the tests find them."""


@pytest.fixture(scope="module")
def fallback_gang_cluster(eks: Cluster) -> Any:
    from tests.helpers import yaml_files

    def dev_file(name: str) -> list[Obj]:
        return [o for o in yaml_files.load_all((DIST / "dev" / name).read_text()) if isinstance(o, dict)]

    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        *dev_file("priority-classes.yaml"),
        *[o for o in dev_file("device-classes.yaml") if o["metadata"]["name"] == "h100-80gb.gpu-platform.io"],
    ]
    applied = apply_all(eks, objects)
    assert applied.refused == {}
    yield eks
    delete_all(eks, applied.objects)


@pytest.mark.parametrize("scenario", FALLBACK_SCENARIOS, ids=[s.name for s in FALLBACK_SCENARIOS])
def test_fallback_gangs_on_the_real_scheduler_the_simulator_and_check(
    fallback_gang_cluster: Cluster, scenario: Scenario
) -> None:
    observed = run_on_scheduler(fallback_gang_cluster, scenario, fallback=True)
    row = (observed.outcome, simulated(scenario, fallback=True), checked(scenario, fallback=True))
    print(f"{scenario.title}: scheduler {row[0]}, simulator {row[1]}, check {row[2]}; zones {observed.zones}")
    if scenario.arriving.zone:
        assert len(observed.zones) == 1, f"a fallback zone run spread over {observed.zones}"
    assert row == FALLBACK_AGREEMENT[scenario.name]
