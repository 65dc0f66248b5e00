"""Disablement rehearsed: a hierarchical run applied with every gate on, then the API server, scheduler and
controller manager restarted with CompositePodGroup off, then with GenericWorkload off (same etcd).

What the tests assert is what 1.37.2 did here (docs/control-plane.md, "Disablement, observed"). This
module starts a control plane of its own, because it restarts it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from control_plane import ControlPlaneError
from control_plane.build import build
from control_plane.configs import ConfigName, Configuration, configuration
from control_plane.run import ControlPlane
from tests import yaml_files
from tests.control_plane.apply import apply_all
from tests.control_plane.cluster import Cluster, NotServed, add_node, resource_slice, wait_until
from tests.control_plane.conftest import _unavailable
from tests.control_plane.environments import DIST, claimed
from tests.control_plane.nvidia import gpu

ENV = "prod-example"
RUN = "teams/llm-research/pretrain-70b.yaml"
NAMESPACE = "team-llm-research"


@pytest.fixture(scope="module")
def plane() -> Iterator[ControlPlane]:
    try:
        started = ControlPlane(build(), claimed(ENV)).start(handle_signals=False)
    except ControlPlaneError as error:
        _unavailable(str(error))
    try:
        yield started
    finally:
        started.stop()


def _objects() -> list[dict]:
    files = ("namespaces.yaml", "priority-classes.yaml", "device-classes.yaml", RUN)
    return [o for name in files for o in yaml_files.load_all((DIST / ENV / name).read_text()) if isinstance(o, dict)]


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
    efa = {"vpc.amazonaws.com/efa": "32", "hugepages-2Mi": "10240Mi"}
    for index in range(3):
        name = f"rehearsal-h100-{index}"
        add_node(
            cluster, name, labels={"topology.kubernetes.io/zone": "us-west-2a"}, cpu="192", memory="2048Gi", extra=efa
        )
        cluster.apply(resource_slice(name, [gpu(i, "h100") for i in range(8)]))

    def bound() -> int:
        return sum(1 for p in cluster.list("v1", "Pod", NAMESPACE) if p["spec"].get("nodeName"))

    assert wait_until(lambda: bound() == 3, timeout_s=30)
