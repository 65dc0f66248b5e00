"""The DeviceClasses the NVIDIA DRA driver's chart (0.4.1) installs, as it renders them on resource.k8s.io/v1
(``../shared/reference/dra-driver-nvidia-gpu-resourceslices/NOTES.md``, "DeviceClasses rendered by the
Helm chart"): what ``make verify`` looks for before it trusts a cluster's DRA set-up."""

from __future__ import annotations

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
    from tests import yaml_files
    from tests.control_plane.apply import apply_all
    from tests.control_plane.environments import DIST
    from tests.control_plane.nvidia import gpu

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
