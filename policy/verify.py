"""Does a running cluster serve what its environment declared? Pure decisions over API payloads.

The inputs are the JSON documents the API server returns (``kubectl get --raw``): the
``/apis`` discovery list, DeviceClass, PriorityClass, Node and ResourceSlice lists.
``cli/verify.py`` fetches them; tests feed recorded ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog.feature_gates import FEATURE_GATES
from catalog.instances import GPU_SPECS, INSTANCE_TYPES
from catalog.labels import DEVICE_MANAGEMENT_DRA, DEVICE_MANAGEMENT_LABEL
from config.model import EnvironmentConfig
from policy.checks import Check, Status
from policy.gates import required_api_versions

Json = Mapping[str, Any]

DRA_DRIVER_NAME = "gpu.nvidia.com"
"""The NVIDIA DRA driver: its ResourceSlices' ``spec.driver`` and its main DeviceClass."""
COMPUTE_DOMAIN_CLASS = "compute-domain-default-channel.nvidia.com"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
API_CHECK_NAMESPACE = "default"
API_CHECK_ANNOTATION = "gpu-platform.io/api-check"


@dataclass(frozen=True)
class Expectations:
    """What the environment declares the cluster serves."""

    api_versions: tuple[str, ...]
    device_classes: tuple[str, ...]
    priority_classes: tuple[str, ...]
    dra: bool


def expectations(
    env: EnvironmentConfig, *, device_classes: Sequence[str] = (), priority_classes: Sequence[str] = ()
) -> Expectations:
    """The API versions the declared gates need (``policy.gates.required_api_versions``), the DRA
    driver's classes when it is installed, and the platform objects named by the caller."""
    driver_classes: list[str] = []
    if env.dra_driver.enabled:
        driver_classes.append(DRA_DRIVER_NAME)
        if env.dra_driver.compute_domains:
            driver_classes.append(COMPUTE_DOMAIN_CLASS)
    return Expectations(
        api_versions=required_api_versions(env.feature_gates.control_plane),
        device_classes=tuple(sorted({*driver_classes, *device_classes})),
        priority_classes=tuple(sorted(set(priority_classes))),
        dra=env.dra_driver.enabled and any(p.dra for p in env.gpu_pools),
    )


def platform_object_names(objects: Iterable[Json]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(DeviceClass names, PriorityClass names) among rendered manifests (``dist/<env>/*.yaml``)."""
    found: dict[str, set[str]] = {"DeviceClass": set(), "PriorityClass": set()}
    for obj in objects:
        kind, name = obj.get("kind"), (obj.get("metadata") or {}).get("name")
        if kind in found and isinstance(name, str):
            found[kind].add(name)
    return tuple(sorted(found["DeviceClass"])), tuple(sorted(found["PriorityClass"]))


def served_group_versions(api_group_list: Json | None) -> frozenset[str]:
    """``group/version`` strings of an ``APIGroupList`` (the ``/apis`` discovery document)."""
    if not api_group_list:
        return frozenset()
    return frozenset(
        str(v["groupVersion"]) for g in api_group_list.get("groups") or () for v in g.get("versions") or ()
    )


def _gates_serving(api_version: str) -> list[str]:
    return sorted(n for n, g in FEATURE_GATES.items() if api_version in g.api_versions)


def api_checks(expect: Expectations, api_group_list: Json | None) -> list[Check]:
    served = served_group_versions(api_group_list)
    checks = []
    for version in expect.api_versions:
        if version in served:
            checks.append(Check("api", version, Status.OK, "served"))
            continue
        gates = ", ".join(_gates_serving(version)) or "its feature gate"
        checks.append(
            Check(
                "api",
                version,
                Status.FAIL,
                f"not served by the API server (needs {gates} and --runtime-config={version}=true)",
                "on EKS the control plane's gates are AWS's: use a cluster version that serves it, "
                "or drop the gates that need it from feature_gates.control_plane",
            )
        )
    return checks


def named_object_checks(kind: str, expected: Sequence[str], listing: Json | None) -> list[Check]:
    """Every expected object of ``kind`` exists in ``listing`` (a ``...List``; ``None``: could not list)."""
    if not expected:
        return []
    if listing is None:
        return [
            Check(
                kind,
                ", ".join(expected),
                Status.FAIL,
                f"could not list {kind} objects",
                "check the API version is served",
            )
        ]
    present = {str((i.get("metadata") or {}).get("name")) for i in listing.get("items") or ()}
    return [
        Check(kind, name, Status.OK, "present")
        if name in present
        else Check(
            kind,
            name,
            Status.FAIL,
            "missing",
            "check the dra-driver-nvidia-gpu release"
            if name.endswith(".nvidia.com")
            else "re-deploy the platform objects (make deploy)",
        )
        for name in expected
    ]


def _attribute(device: Json, name: str) -> str | None:
    attributes = device.get("attributes") or {}
    value = attributes.get(name) or attributes.get(f"{DRA_DRIVER_NAME}/{name}") or {}
    found = value.get("string") or value.get("version")
    return str(found) if found is not None else None


def gpu_devices_by_node(resource_slices: Json | None) -> dict[str, list[Json]]:
    """Whole-GPU devices the DRA driver publishes, per node."""
    devices: dict[str, list[Json]] = {}
    for item in (resource_slices or {}).get("items") or ():
        spec = item.get("spec") or {}
        if spec.get("driver") != DRA_DRIVER_NAME or not spec.get("nodeName"):
            continue
        gpus = [d for d in spec.get("devices") or () if _attribute(d, "type") in (None, "gpu")]
        devices.setdefault(str(spec["nodeName"]), []).extend(gpus)
    return devices


def dra_nodes(nodes: Json | None) -> list[Json]:
    return [
        n
        for n in (nodes or {}).get("items") or ()
        if ((n.get("metadata") or {}).get("labels") or {}).get(DEVICE_MANAGEMENT_LABEL) == DEVICE_MANAGEMENT_DRA
    ]


def resource_slice_checks(nodes: Json | None, resource_slices: Json | None, *, require_gpu_nodes: bool) -> list[Check]:
    """Every DRA GPU node publishes as many GPUs as its instance type has, with the expected product name."""
    gpu_nodes = dra_nodes(nodes)
    if not gpu_nodes:
        status = Status.FAIL if require_gpu_nodes else Status.WARN
        return [
            Check(
                "ResourceSlice",
                f"nodes {DEVICE_MANAGEMENT_LABEL}={DEVICE_MANAGEMENT_DRA}",
                status,
                "no DRA GPU node is running, so no ResourceSlice can be checked",
                "scale a DRA pool above zero (desired_size) and verify again",
            )
        ]
    published = gpu_devices_by_node(resource_slices)
    checks = []
    for node in sorted(gpu_nodes, key=lambda n: str(n["metadata"]["name"])):
        name = str(node["metadata"]["name"])
        instance_type = str((node["metadata"].get("labels") or {}).get(INSTANCE_TYPE_LABEL, ""))
        known = INSTANCE_TYPES.get(instance_type)
        devices = published.get(name, [])
        subject = f"{name} ({instance_type or 'unknown type'})"
        if not devices:
            checks.append(
                Check(
                    "ResourceSlice",
                    subject,
                    Status.FAIL,
                    f"no {DRA_DRIVER_NAME} devices published",
                    "check the DRA kubelet plugin pod on this node (namespace nvidia)",
                )
            )
            continue
        if known is not None and len(devices) < known.gpus:
            checks.append(
                Check(
                    "ResourceSlice",
                    subject,
                    Status.FAIL,
                    f"{len(devices)} of {known.gpus} GPUs published",
                    "check the node's GPUs (nvidia-smi) and the DRA kubelet plugin logs",
                )
            )
            continue
        expected_product = GPU_SPECS[known.gpu_model].product_name if known and known.gpu_model else None
        products = sorted({p for d in devices if (p := _attribute(d, "productName"))})
        if expected_product and products and products != [expected_product]:
            checks.append(
                Check(
                    "ResourceSlice",
                    subject,
                    Status.WARN,
                    f"productName {products} where the catalog says '{expected_product}'",
                    "update catalog/instances.py: DeviceClass selectors match on productName",
                )
            )
            continue
        checks.append(Check("ResourceSlice", subject, Status.OK, f"{len(devices)} GPU(s) published"))
    return checks


def evaluate(
    expect: Expectations,
    *,
    api_group_list: Json | None,
    device_classes: Json | None,
    priority_classes: Json | None,
    nodes: Json | None,
    resource_slices: Json | None,
    require_gpu_nodes: bool = False,
) -> list[Check]:
    """All verdicts, in a stable order: APIs, DeviceClasses, PriorityClasses, ResourceSlices."""
    checks = api_checks(expect, api_group_list)
    checks += named_object_checks("DeviceClass", expect.device_classes, device_classes)
    checks += named_object_checks("PriorityClass", expect.priority_classes, priority_classes)
    if expect.dra:
        checks += resource_slice_checks(nodes, resource_slices, require_gpu_nodes=require_gpu_nodes)
    return checks


def api_check_manifests(api_versions: Sequence[str]) -> list[dict[str, Any]]:
    """Objects whose ``kubectl apply`` fails the deployment when their API version isn't served.

    One basic-policy Workload per required ``scheduling.k8s.io`` version: it creates no
    pods and no PodGroup, and kubectl's error names the missing version
    (``no matches for kind "Workload" in version "scheduling.k8s.io/v1beta1"``).
    ``resource.k8s.io/v1`` is GA; the DRA driver's DeviceClass read-back covers it.
    """
    manifests = []
    for version in sorted(api_versions):
        group, _, short = version.rpartition("/")
        if group != "scheduling.k8s.io":
            continue
        manifests.append(
            {
                "apiVersion": version,
                "kind": "Workload",
                "metadata": {
                    "name": f"api-check-scheduling-{short}",
                    "namespace": API_CHECK_NAMESPACE,
                    "annotations": {
                        API_CHECK_ANNOTATION: f"deploy-time check that {version} is served; creates no pods",
                    },
                },
                "spec": {"podGroupTemplates": [{"name": "check", "schedulingPolicy": {"basic": {}}}]},
            }
        )
    return manifests
