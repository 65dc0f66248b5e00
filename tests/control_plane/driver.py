"""The DeviceClasses the NVIDIA DRA driver's chart (0.4.1) installs, as it renders them on resource.k8s.io/v1
(``../shared/reference/dra-driver-nvidia-gpu-resourceslices/NOTES.md``, "DeviceClasses rendered by the
Helm chart"): what ``make verify`` looks for before it trusts a cluster's DRA set-up."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.control_plane.cluster import Cluster, Obj, add_node, resource_slice


def _class(name: str, device_type: str, extended_resource: str | None = None) -> Obj:
    expression = f"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == '{device_type}'"
    spec: Obj = {"selectors": [{"cel": {"expression": expression}}]}
    if extended_resource is not None:
        spec["extendedResourceName"] = extended_resource
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


DRIVER_DEVICE_CLASSES = (
    _class("gpu.nvidia.com", "gpu", "nvidia.com/gpu"),
    _class("mig.nvidia.com", "mig"),
    _class("vfio.gpu.nvidia.com", "vfio"),
)


def prepare_for_verify(cluster: Cluster) -> list[Obj]:
    """What a deployed dev cluster holds: the driver's and the platform's DeviceClasses, the PriorityClasses,
    and one DRA GPU node (8 H100s) with its ResourceSlice. The created objects, for cleanup."""
    from catalog.labels import DEVICE_MANAGEMENT_DRA, DEVICE_MANAGEMENT_LABEL
    from tests.control_plane.apply import apply_all
    from tests.control_plane.environments import DIST
    from tests.control_plane.nvidia import gpu
    from tests.helpers import yaml_files

    objects = [*DRIVER_DEVICE_CLASSES] + [
        o
        for name in ("priority-classes.yaml", "device-classes.yaml")
        for o in yaml_files.load_all((DIST / "dev" / name).read_text())
        if isinstance(o, dict)
    ]
    applied = apply_all(cluster, objects)
    assert applied.refused == {}, applied.refused
    labels = {DEVICE_MANAGEMENT_LABEL: DEVICE_MANAGEMENT_DRA, "node.kubernetes.io/instance-type": "p5.48xlarge"}
    add_node(cluster, "verify-gpu-0", labels=labels)
    slice_ = resource_slice("verify-gpu-0", [gpu(i, "h100") for i in range(8)])
    cluster.apply(slice_)
    node_obj: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "verify-gpu-0"}}
    return [node_obj, *applied.objects, slice_]


def kubeconfig_naming(plane_kubeconfig: Path, cluster_name: str, path: Path) -> Path:
    """A copy of the local control plane's kubeconfig whose cluster entry and context are named
    ``cluster_name``: what ``aws eks update-kubeconfig`` would write for a cluster of that name (bare
    name, no ARN), so the live commands' guard (``policy/live/kube_context.py``) accepts it as the
    environment's cluster. Server, CA and token are the local control plane's: the file says which
    cluster it reaches, and that cluster stands in for ``cluster_name``."""
    config = yaml.safe_load(plane_kubeconfig.read_text(encoding="utf-8"))
    (cluster,) = config["clusters"]
    (context,) = config["contexts"]
    cluster["name"] = cluster_name
    context["name"] = cluster_name
    context["context"]["cluster"] = cluster_name
    config["current-context"] = cluster_name
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    path.chmod(0o600)
    return path


def gate_rows(out: str) -> dict[str, str]:
    """``make verify``'s table: the status (OK, WARN, FAIL, SKIP) of each row, keyed ``<check> <subject's first
    word>`` (e.g. ``gate GenericWorkload``), read by the header's column positions."""
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("CHECK "))
    subject_at, status_at = header.index("SUBJECT"), header.index("STATUS")
    rows: dict[str, str] = {}
    for line in lines:
        check, subject = line[:subject_at].strip(), line[subject_at:status_at].split()
        status = line[status_at:].split()[:1]
        if check and check != "CHECK" and subject and status and status[0] in ("OK", "WARN", "FAIL", "SKIP"):
            rows[f"{check} {subject[0]}"] = status[0]
    return rows


def run_verify(plane_kubeconfig: Path, tmp_path: Path, *, twin: bool) -> int:
    """``make verify ENV=dev`` through its code path (``cli.live.verify.main``, which prints its table), against
    the control plane behind ``plane_kubeconfig``: shipped dev, or (``twin``) its workload-aware twin as an
    environment file (``make verify CONFIG=<file>``). The kubeconfig names its cluster ``gpu-dev``, the
    environment's cluster; ``--expect-from`` is the rendered directory of what is verified."""
    from charts.render import render_environment
    from cli.live import verify
    from policy.environment.load import load_environment
    from tests.control_plane.environments import DIST
    from tests.helpers.environments import workload_aware, write_workload_aware

    env = workload_aware("dev") if twin else load_environment(name="dev")
    kubeconfig = kubeconfig_naming(plane_kubeconfig, env.cluster.name, tmp_path / "kubeconfig")
    if twin:
        expect_from = tmp_path / "dist"
        expect_from.mkdir()
        for name, objects in render_environment(env).cluster_scoped().items():
            (expect_from / name).write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
        select = ["--config", str(write_workload_aware("dev", tmp_path / "dev-workload-aware.yaml"))]
    else:
        expect_from, select = DIST / "dev", ["--env", "dev"]
    return verify.main([*select, "--expect-from", str(expect_from), "--kubeconfig", str(kubeconfig)])
