"""CEL selectors for the platform's DeviceClasses, and sample devices to test them against."""

from __future__ import annotations

from functools import cache
from typing import Any

from catalog.device_classes import DRIVER, DeviceClassSpec
from catalog.instances import GPU_SPECS, INSTANCE_TYPES, MIG_PROFILES, GpuModel
from config.model import GpuPoolConfig

_ATTR = f"device.attributes['{DRIVER}']"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


@cache
def models_selected(spec: DeviceClassSpec) -> frozenset[GpuModel]:
    """GPU models whose whole GPUs (or MIG slices) the class's selector accepts.

    The same decision as ``selector_expression`` in plain Python, so rendering and checks
    need no CEL engine; tests evaluate the CEL on sample devices and require both to agree.
    """
    selected = set()
    for model, gpu in GPU_SPECS.items():
        if spec.mig_profile is not None:
            ok = spec.mig_profile in MIG_PROFILES.get(model, ())
        elif spec.product_name is not None:
            ok = gpu.product_name == spec.product_name
        else:
            ok = _version(gpu.compute_capability) >= _version(spec.min_compute_capability or "0")
        if ok:
            selected.add(model)
    return frozenset(selected)


def pool_serves(pool: GpuPoolConfig, spec: DeviceClassSpec) -> bool:
    """Whether the pool publishes devices the class selects: a DRA pool whose GPU model matches,
    partitioned into exactly the class's MIG profile (or whole, for whole-GPU classes)."""
    if not pool.dra or pool.mig_profile != spec.mig_profile:
        return False
    models = models_selected(spec)
    return any(INSTANCE_TYPES[t].gpu_model in models for t in pool.instance_types)


def selector_expression(spec: DeviceClassSpec) -> str:
    """The CEL expression a device must satisfy to be allocated through ``spec``'s class."""
    clauses = [f"device.driver == '{DRIVER}'", f"{_ATTR}.type == '{spec.device_type}'"]
    if spec.product_name is not None:
        clauses.append(f"{_ATTR}.productName == '{spec.product_name}'")
    if spec.min_compute_capability is not None:
        clauses.append(f"{_ATTR}.cudaComputeCapability.compareTo(semver('{spec.min_compute_capability}')) >= 0")
    if spec.mig_profile is not None:
        clauses.append(f"{_ATTR}.profile == '{spec.mig_profile}'")
    return "\n&& ".join(clauses)


def sample_gpu(model: GpuModel) -> dict[str, Any]:
    """A whole-GPU device entry as the DRA driver publishes it in a ResourceSlice."""
    spec = GPU_SPECS[model]
    return {
        "driver": DRIVER,
        "attributes": {
            DRIVER: {
                "type": "gpu",
                "uuid": f"GPU-{model.value.lower()}-0000",
                "productName": spec.product_name,
                "brand": "Nvidia",
                "architecture": spec.architecture,
                "cudaComputeCapability": {"version": spec.compute_capability},
                "driverVersion": {"version": "580.95.5"},
                "cudaDriverVersion": {"version": "13.0.0"},
            },
            "resource.kubernetes.io": {"pcieRoot": "pci0000:00", "pciBusID": "0000:53:00.0"},
        },
        "capacity": {DRIVER: {"memory": f"{spec.memory_gib}Gi"}},
    }


def sample_mig(model: GpuModel, profile: str) -> dict[str, Any]:
    """A MIG slice entry of ``model`` with ``profile``."""
    device = sample_gpu(model)
    attributes = device["attributes"][DRIVER]
    attributes.update(type="mig", profile=profile, parentUUID=attributes["uuid"], uuid=f"MIG-{profile}")
    device["capacity"][DRIVER]["memory"] = f"{profile.split('.')[1].removesuffix('gb')}Gi"
    return device


def sample_devices() -> dict[str, dict[str, Any]]:
    """Every whole GPU and MIG slice the fleet can publish, by a readable id."""
    devices = {f"gpu/{m.value}": sample_gpu(m) for m in GpuModel}
    for model, profiles in MIG_PROFILES.items():
        devices |= {f"mig/{model.value}/{p}": sample_mig(model, p) for p in profiles}
    return devices
