"""The local control plane's pure parts: pins, the wrapper go.mod, configurations, one-line errors.

These run everywhere (no Go needed); ``tests/control_plane/`` runs the programs themselves.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.feature_gates import FEATURE_GATES, Component
from config.load import REPO_ROOT
from control_plane import build, configs, pins
from control_plane.configs import ConfigName
from control_plane.errors import ControlPlaneError

REPO = REPO_ROOT

K8S_GO_MOD_EXCERPT = """module k8s.io/kubernetes

go 1.26.0

require (
\tgo.etcd.io/etcd/api/v3 v3.7.0
\tk8s.io/api v0.0.0
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
\tk8s.io/streaming => ./staging/src/k8s.io/streaming
)
"""


def test_pins_name_their_source_and_the_day_they_were_checked() -> None:
    for pin in pins.PINS:
        assert re.fullmatch(r"v\d+\.\d+\.\d+", pin.version), pin
        assert pin.source.startswith("https://proxy.golang.org/"), pin
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", pin.checked), pin
    assert pins.KUBERNETES.version.startswith("v1.37.")
    major, minor = (int(p) for p in pins.ETCD.version.removeprefix("v").split(".")[:2])
    assert (major, minor) >= (3, 5)  # Kubernetes 1.31+ needs etcd >= 3.5.11


def test_wrapper_go_mod_replaces_every_staging_module_with_its_published_version() -> None:
    modules = build.staging_replaces(K8S_GO_MOD_EXCERPT)
    assert modules == ["k8s.io/api", "k8s.io/apimachinery", "k8s.io/streaming"]
    text = build.wrapper_go_mod(
        module="example/build", pin=pins.KUBERNETES, replaces=modules, replace_version=build.staging_version("v1.37.2")
    )
    assert f"require k8s.io/kubernetes {pins.KUBERNETES.version}\n" in text
    assert "\tk8s.io/apimachinery => k8s.io/apimachinery v0.37.2\n" in text
    assert "./staging" not in text


def test_etcd_wrapper_takes_the_sibling_replaces() -> None:
    etcd_mod = "replace (\n\tgo.etcd.io/etcd/api/v3 => ../api\n\tgo.etcd.io/etcd/pkg/v3 => ../pkg\n)\n"
    etcd_mod += "replace go.etcd.io/etcd => ./FORBIDDEN_DEPENDENCY\n"
    assert build.sibling_replaces(etcd_mod) == ["go.etcd.io/etcd/api/v3", "go.etcd.io/etcd/pkg/v3"]


def test_ldflags_make_the_binaries_report_the_release() -> None:
    flags = build.kube_ldflags("v1.37.2")
    assert "-X k8s.io/component-base/version.gitVersion=v1.37.2" in flags
    assert "-X k8s.io/component-base/version.gitMinor=37" in flags
    with pytest.raises(ValueError, match="not a release version"):
        build.kube_ldflags("master")


def test_cache_lives_outside_the_repository_and_is_keyed_by_the_build_inputs(tmp_path: Path) -> None:
    root = build.cache_root({"XDG_CACHE_HOME": str(tmp_path)})
    assert root == tmp_path / "gpu-platform" / "control-plane"
    assert REPO not in root.parents
    key = build.cache_key("go1.26.8")
    assert key.startswith(f"kubernetes-{pins.KUBERNETES.version}-etcd-{pins.ETCD.version}-")
    assert key != build.cache_key("go1.26.9")


def test_eks_configuration_sets_no_gate_and_no_runtime_config() -> None:
    eks = configs.configuration("eks")
    assert eks.gates == ()
    assert eks.runtime_config() == ""
    assert all(eks.feature_gates(c) == "" for c in Component)


def test_workload_aware_gates_go_to_the_components_the_gate_table_names() -> None:
    wa = configs.configuration("workload-aware")
    for gate in ("GenericWorkload", "TopologyAwareWorkloadScheduling", "WorkloadWithJob", "CompositePodGroup",
                 "DRAWorkloadResourceClaims"):  # fmt: skip
        assert gate in wa.gates
    assert wa.runtime_config() == "scheduling.k8s.io/v1alpha3=true,scheduling.k8s.io/v1beta1=true"
    scheduler = wa.feature_gates(Component.SCHEDULER).split(",")
    assert "WorkloadWithJob=true" not in scheduler  # apiserver and controller-manager only
    assert "GenericWorkload=true" in scheduler
    for gate in wa.gates:
        for component in (Component.APISERVER, Component.SCHEDULER, Component.CONTROLLER_MANAGER):
            on = f"{gate}=true" in wa.feature_gates(component).split(",")
            needed_by = {
                g for g in wa.gates if component in FEATURE_GATES[g].components and gate in FEATURE_GATES[g].depends_on
            }
            assert on == (component in FEATURE_GATES[gate].components or bool(needed_by)), (gate, component)
    # kube-controller-manager 1.37 refuses CompositePodGroup without the gate it depends on
    assert "TopologyAwareWorkloadScheduling=true" in wa.feature_gates(Component.CONTROLLER_MANAGER).split(",")


def test_the_configuration_an_environment_claims_follows_its_declared_gates() -> None:
    assert configs.for_declared_gates(["GenericWorkload", "WorkloadWithJob"]) == configs.configuration("workload-aware")
    assert configs.for_declared_gates([]).name is ConfigName.EKS
    extra = configs.for_declared_gates(["GenericWorkload", "PodGroupPreemptionPolicy"])
    assert extra.name is ConfigName.WORKLOAD_AWARE
    assert extra.gates == (*configs.WORKLOAD_AWARE_GATES, "PodGroupPreemptionPolicy")


def test_fails_on_an_unknown_configuration_name_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown 'gke'; use one of: eks, workload-aware"):
        configs.configuration("gke")


def test_scheduler_profile_disables_no_plugin() -> None:
    text = configs.scheduler_config("/tmp/kubeconfig")
    assert "disabled" not in text  # GangScheduling comes with the defaults when GenericWorkload is on
    assert "leaderElect: false" in text


def test_fails_without_go_in_one_line_naming_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ControlPlaneError) as raised:
        build.find_go()
    assert str(raised.value) == (
        "no Go toolchain on PATH (the control plane is built from its Go modules); "
        "fix: install Go >= 1.26 (https://go.dev/dl/) and put it on PATH"
    )


def test_command_without_go_says_so_in_one_line_and_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "control_plane", "--config", "eks", "--build-only"],
        cwd=REPO, env={"PATH": "/nonexistent", "HOME": "/nonexistent"}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: control-plane: no Go toolchain on PATH")


def test_make_refuses_a_configuration_it_does_not_know() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-s", "control-plane", "CONFIG=eks;touch /tmp/x"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "error: CONFIG: not a control-plane configuration" in line
    assert "(got 'eks;touch /tmp/x'); fix: use CONFIG=eks or CONFIG=workload-aware" in line


def test_free_port_is_on_loopback_and_free() -> None:
    from control_plane.run import free_port

    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
