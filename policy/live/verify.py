"""Does a running cluster serve what its environment declared? Pure decisions over API payloads.

The inputs are the JSON documents the API server returns (``kubectl get --raw``): the
``/apis`` discovery list, DeviceClass, PriorityClass, Node and ResourceSlice lists.
``cli/live/verify.py`` fetches them; tests feed recorded ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog.feature_gates import FEATURE_GATES
from catalog.instances import GPU_SPECS, INSTANCE_TYPES
from catalog.labels import DEVICE_MANAGEMENT_DRA, DEVICE_MANAGEMENT_LABEL
from config.model import EnvironmentConfig
from config.platform import WorkloadApi
from policy.checks.api_order import assumed_api_groups
from policy.gates.rules import required_api_versions
from policy.live.gate_probes import GateProbe, field_value, gate_probes
from policy.results import Check, Status

Json = Mapping[str, Any]

DRA_DRIVER_NAME = "gpu.nvidia.com"
"""The NVIDIA DRA driver: its ResourceSlices' ``spec.driver`` and its main DeviceClass."""
COMPUTE_DOMAIN_CLASS = "compute-domain-default-channel.nvidia.com"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


@dataclass(frozen=True)
class Expectations:
    """What the environment declares the cluster serves."""

    api_versions: tuple[str, ...]
    device_classes: tuple[str, ...]
    priority_classes: tuple[str, ...]
    dra: bool
    probes: tuple[GateProbe, ...] = ()
    """One per relied-on control-plane gate (``policy.live.gate_probes``), sent with server-side dry-run."""
    workload_api_optional: bool = False
    """``platform.workload_api: optional``: a missing Workload API or gate is a warning, not a failure."""
    existing_api_groups: tuple[str, ...] = ()
    """Groups the environment says the cluster already serves (``observability.prometheus: existing``)."""


def expectations(
    env: EnvironmentConfig, *, device_classes: Sequence[str] = (), priority_classes: Sequence[str] = ()
) -> Expectations:
    """The API versions the declared gates need (``policy.gates.rules.required_api_versions``), the DRA
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
        probes=tuple(gate_probes(env.feature_gates.control_plane)),
        workload_api_optional=env.platform.workload_api is WorkloadApi.OPTIONAL,
        existing_api_groups=tuple(sorted(assumed_api_groups(env))),
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


_GANGS_OFF = "gang runs cannot start on this cluster (platform.workload_api: optional)"
_AWS_GATES = (
    "on EKS the control plane's gates are AWS's: drop the gates that need it from feature_gates.control_plane "
    "and feature_gates.acknowledge_served_beyond_eks (gangs then render in the fallback form), or set "
    "platform.workload_api: optional"
)


def _missing(expect: Expectations, version: str) -> Status:
    optional = expect.workload_api_optional and version.startswith("scheduling.k8s.io/")
    return Status.WARN if optional else Status.FAIL


def api_checks(expect: Expectations, api_group_list: Json | None) -> list[Check]:
    served = served_group_versions(api_group_list)
    checks = []
    for version in expect.api_versions:
        if version in served:
            checks.append(Check("api", version, Status.OK, "served"))
            continue
        gates = ", ".join(_gates_serving(version)) or "its feature gate"
        status = _missing(expect, version)
        detail = f"not served by the API server (needs {gates} and --runtime-config={version}=true)"
        checks.append(
            Check("api", version, status, detail + (f"; {_GANGS_OFF}" if status is Status.WARN else ""), _AWS_GATES)
        )
    return checks


def existing_api_checks(expect: Expectations, api_group_list: Json | None) -> list[Check]:
    """Each group the environment says is already installed is served (the Prometheus Operator's CRDs)."""
    served_groups = {v.rpartition("/")[0] for v in served_group_versions(api_group_list)}
    return [
        Check("api", group, Status.OK, "served (installed outside this stack)")
        if group in served_groups
        else Check(
            "api",
            group,
            Status.FAIL,
            "not served: observability.prometheus is existing, but no Prometheus Operator CRDs are installed",
            "install the Prometheus Operator, or set observability.prometheus: install (or none) and deploy",
        )
        for group in expect.existing_api_groups
    ]


def gate_checks(expect: Expectations, dry_runs: Mapping[str, Json | None]) -> list[Check]:
    """One row per gate probe: the server-side dry-run response (``None``: API not served) keeps the field."""
    checks = []
    for probe in expect.probes:
        response = dry_runs.get(probe.gate)
        subject = f"{probe.gate} ({probe.field})"
        if response is not None and field_value(response, probe.field.path) is not None:
            checks.append(Check("gate", subject, Status.OK, "field kept (server-side dry-run)"))
            continue
        status = _missing(expect, probe.kind.api_version)
        detail = (
            f"{probe.kind.api_version} not served, so {probe.field} cannot be kept"
            if response is None
            else f"the API server dropped {probe.field}: {probe.gate} is off"
        )
        checks.append(
            Check("gate", subject, status, detail + (f"; {_GANGS_OFF}" if status is Status.WARN else ""), _AWS_GATES)
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
    dry_runs: Mapping[str, Json | None] | None = None,
    require_gpu_nodes: bool = False,
) -> list[Check]:
    """All verdicts, in a stable order: APIs, gates (given ``dry_runs``), DeviceClasses, PriorityClasses, slices."""
    checks = api_checks(expect, api_group_list) + existing_api_checks(expect, api_group_list)
    if dry_runs is not None:
        checks += gate_checks(expect, dry_runs)
    checks += named_object_checks("DeviceClass", expect.device_classes, device_classes)
    checks += named_object_checks("PriorityClass", expect.priority_classes, priority_classes)
    if expect.dra:
        checks += resource_slice_checks(nodes, resource_slices, require_gpu_nodes=require_gpu_nodes)
    return checks
