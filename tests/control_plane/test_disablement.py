"""Disablement rehearsed: a hierarchical run applied with every gate on, then the API server, scheduler and
controller manager restarted with CompositePodGroup off, then with GenericWorkload off (same etcd), then the
kit's fallback form of the same run (the run rendered for the environment without the gates) applied in place
of the native Pods.

The run is prod-example's ``pretrain-70b`` as its workload-aware twin renders it (shipped prod-example keeps
to what EKS serves, so ``dist/prod-example/`` holds the fallback form, which is what is applied last).

What the tests assert is what 1.37.2 did here (docs/control-plane.md, "Disablement, observed"). This
module starts a control plane of its own, because it restarts it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from control_plane import ControlPlaneError
from control_plane.build import build
from control_plane.configs import ConfigName, Configuration, configuration, for_declared_gates
from control_plane.run import ControlPlane
from tests.control_plane.apply import apply_all
from tests.control_plane.cluster import Cluster, NotServed, add_node, resource_slice, wait_until
from tests.control_plane.conftest import _unavailable
from tests.control_plane.environments import DIST
from tests.control_plane.nvidia import gpu
from tests.helpers import yaml_files
from tests.helpers.environments import workload_aware, workload_aware_render, workload_aware_run

ENV = "prod-example"
RUN = "teams/llm-research/pretrain-70b.yaml"
NAMESPACE = "team-llm-research"


@pytest.fixture(scope="module")
def plane() -> Iterator[ControlPlane]:
    gates = workload_aware(ENV).feature_gates.control_plane
    try:
        started = ControlPlane(build(), for_declared_gates(gates)).start(handle_signals=False)
    except ControlPlaneError as error:
        _unavailable(str(error))
    try:
        yield started
    finally:
        started.stop()


def _objects() -> list[dict]:
    """The twin's Namespaces, PriorityClasses, DeviceClasses and the run in native form (hierarchical)."""
    rendered = workload_aware_render(ENV)
    files = ("namespaces.yaml", "priority-classes.yaml", "device-classes.yaml")
    return [o for name in files for o in rendered.files[name]] + workload_aware_run(ENV, "llm-research", "pretrain-70b")


def _fallback_run() -> list[dict]:
    """The same run as the kit renders it for the environment without the gates: ``dist/prod-example/``."""
    return [o for o in yaml_files.load_all((DIST / ENV / RUN).read_text()) if isinstance(o, dict)]


def _served(cluster: Cluster, api_version: str, kind: str) -> bool:
    try:
        cluster.list(api_version, kind, NAMESPACE)
    except NotServed:
        return False
    return True


def test_turning_the_gates_off_under_a_hierarchical_run(plane: ControlPlane) -> None:
    cluster = Cluster(plane.kubeconfig)
    applied = apply_all(cluster, _objects())
    assert applied.refused == {} and applied.dropped == {}
    pods = cluster.list("v1", "Pod", NAMESPACE)
    assert len(pods) == 16

    # 1. CompositePodGroup off: the CompositePodGroup API goes away; what refers to it stays as stored.
    without_composite = tuple(g for g in plane.configuration.gates if g != "CompositePodGroup")
    plane.restart(Configuration(ConfigName.WORKLOAD_AWARE, without_composite))
    cluster = Cluster(plane.kubeconfig)
    assert not _served(cluster, "scheduling.k8s.io/v1alpha3", "CompositePodGroup")
    (workload,) = cluster.list("scheduling.k8s.io/v1beta1", "Workload", NAMESPACE)
    assert workload["spec"].get("compositePodGroupTemplates")  # kept: fields are dropped on write, not on read
    groups = cluster.list("scheduling.k8s.io/v1beta1", "PodGroup", NAMESPACE)
    assert groups and all(g["spec"].get("parentCompositePodGroupName") for g in groups)

    # 2. GenericWorkload off: Workload and PodGroup are no longer served; the Pods keep schedulingGroup,
    #    and the scheduler places them one by one: room for 3 of the 16 means 3 bind, holding their GPUs.
    plane.restart(configuration("eks"))
    cluster = Cluster(plane.kubeconfig)
    assert not _served(cluster, "scheduling.k8s.io/v1beta1", "Workload")
    assert not _served(cluster, "scheduling.k8s.io/v1beta1", "PodGroup")
    pods = cluster.list("v1", "Pod", NAMESPACE)
    assert len(pods) == 16 and all(p["spec"].get("schedulingGroup") for p in pods)

    def add_h100_nodes(first: int, count: int) -> None:
        efa = {"vpc.amazonaws.com/efa": "32", "hugepages-2Mi": "10240Mi"}
        for index in range(first, first + count):
            name = f"rehearsal-h100-{index}"
            labels = {"topology.kubernetes.io/zone": "us-west-2a"}
            add_node(cluster, name, labels=labels, cpu="192", memory="2048Gi", extra=efa)
            cluster.apply(resource_slice(name, [gpu(i, "h100") for i in range(8)]))

    add_h100_nodes(0, 3)

    def bound() -> int:
        return sum(1 for p in cluster.list("v1", "Pod", NAMESPACE) if p["spec"].get("nodeName"))

    assert wait_until(lambda: bound() == 3, timeout_s=30)

    # 3. The fallback form of the same run in place of the native Pods: a Pod's spec cannot change, so the
    #    native Pods are deleted (the bound ones give their GPUs back), then the fallback run is applied.
    #    It is accepted as it is (no field of it needs a gate), and it schedules as the fallback form does:
    #    Pod by Pod, 3 of 16 on room for 3, each holding its GPUs; all 16 once there is room for 16.
    for pod in cluster.list("v1", "Pod", NAMESPACE):
        cluster.delete(pod | {"apiVersion": "v1", "kind": "Pod"})
    assert wait_until(lambda: not cluster.list("v1", "Pod", NAMESPACE), timeout_s=30)
    fallback = _fallback_run()
    assert {o["kind"] for o in fallback} == {"Pod", "ResourceClaimTemplate", "Service"}
    applied = apply_all(cluster, fallback)
    assert applied.refused == {} and applied.dropped == {}
    pods = cluster.list("v1", "Pod", NAMESPACE)
    assert len(pods) == 16 and not [p for p in pods if p["spec"].get("schedulingGroup")]
    assert wait_until(lambda: bound() == 3, timeout_s=30)
    assert not wait_until(lambda: bound() > 3, timeout_s=3)  # the other 13 wait, the 3 keep their 24 GPUs
    add_h100_nodes(3, 13)
    assert wait_until(lambda: bound() == 16, timeout_s=60)
    zones = {
        (cluster.get({"apiVersion": "v1", "kind": "Node", "metadata": {"name": p["spec"]["nodeName"]}}) or {})[
            "metadata"
        ]["labels"]["topology.kubernetes.io/zone"]
        for p in cluster.list("v1", "Pod", NAMESPACE)
    }
    assert zones == {"us-west-2a"}
