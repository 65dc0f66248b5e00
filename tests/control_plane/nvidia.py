"""Devices as the NVIDIA DRA driver (``gpu.nvidia.com``) publishes them in a ResourceSlice.

The shape is the driver's own (``../shared/reference/dra-driver-nvidia-gpu-resourceslices/``, checked
by ``test_devices_have_the_drivers_shape``): bare attribute keys of the driver's domain, fully
qualified PCI attributes, ``memory`` capacity as NVML reports it (not the marketing size: an H100 80GB
reports 81559Mi). MIG devices inherit their parent's productName; vfio devices carry no CUDA attributes.
The reference's MIG device name (``gpu-0-mig-1g.5gb-0``) is refused by the 1.37 API server (device
names are DNS labels: "must not contain dots"), so the profile's dot is a dash here.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.control_plane.cluster import Obj


@dataclass(frozen=True)
class Gpu:
    product_name: str
    architecture: str
    compute_capability: str
    memory: str


GPUS = {
    "h100": Gpu("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "81559Mi"),
    "h200": Gpu("NVIDIA H200", "Hopper", "9.0.0", "143771Mi"),
    "b200": Gpu("NVIDIA B200", "Blackwell", "10.0.0", "183359Mi"),
    "l4": Gpu("NVIDIA L4", "Ada Lovelace", "8.9.0", "23034Mi"),
    "l40s": Gpu("NVIDIA L40S", "Ada Lovelace", "8.9.0", "46068Mi"),
    "a100-40gb": Gpu("NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "40960Mi"),
}
"""Memory as NVML reports it (platform-facts: NVIDIA DRA driver, "Real values"); A100 40GB: 40960Mi."""


def _pci(index: int) -> dict[str, Obj]:
    return {
        "resource.kubernetes.io/pciBusID": {"string": f"0000:{0x10 + index:02x}:00.0"},
        "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{0x10 + index:02x}"},
    }


def _uuid(kind: str, index: int) -> str:
    return f"{kind}-{index:08x}-1a2b-3c4d-5e6f-7a8b9c0d1e2f"


def gpu(index: int, model: str) -> Obj:
    spec = GPUS[model]
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "addressingMode": {"string": "HMM"},
            "architecture": {"string": spec.architecture},
            "brand": {"string": "Nvidia"},
            "cudaComputeCapability": {"version": spec.compute_capability},
            "cudaDriverVersion": {"version": "13.0.0"},
            "driverVersion": {"version": "580.126.20"},
            "productName": {"string": spec.product_name},
            "type": {"string": "gpu"},
            "uuid": {"string": _uuid("GPU", index)},
            **_pci(index),
        },
        "capacity": {"memory": {"value": spec.memory}},
    }


def mig(parent_index: int, model: str, profile: str, slot: int, memory: str) -> Obj:
    spec = GPUS[model]
    return {
        "name": f"gpu-{parent_index}-mig-{profile.replace('.', '-')}-{slot}",
        "attributes": {
            "addressingMode": {"string": "HMM"},
            "architecture": {"string": spec.architecture},
            "brand": {"string": "Nvidia"},
            "cudaComputeCapability": {"version": spec.compute_capability},
            "cudaDriverVersion": {"version": "13.0.0"},
            "driverVersion": {"version": "580.126.20"},
            "parentUUID": {"string": _uuid("GPU", parent_index)},
            "productName": {"string": spec.product_name},
            "profile": {"string": profile},
            "type": {"string": "mig"},
            "uuid": {"string": _uuid("MIG", parent_index * 16 + slot)},
            **_pci(parent_index),
        },
        "capacity": {
            "copyEngines": {"value": "1"},
            "decoders": {"value": "1"},
            "encoders": {"value": "0"},
            "jpegEngines": {"value": "1"},
            "memory": {"value": memory},
            "multiprocessors": {"value": "16"},
            "ofaEngines": {"value": "0"},
        },
    }


def vfio(index: int, model: str) -> Obj:
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "deviceID": {"string": "0x2330"},
            "iommuFDEnabled": {"bool": True},
            "numa": {"int": 0},
            "productName": {"string": GPUS[model].product_name},
            "type": {"string": "vfio"},
            "uuid": {"string": _uuid("GPU", index)},
            "vendorID": {"string": "0x10de"},
            **_pci(index),
        },
        "capacity": {"addressableMemory": {"value": "80Gi"}},
    }


def every_kind_of_device() -> list[Obj]:
    """One node's worth of every device type the platform's classes must tell apart."""
    return [
        gpu(0, "h100"),
        gpu(1, "h200"),
        gpu(2, "b200"),
        gpu(3, "l4"),
        gpu(4, "l40s"),
        gpu(5, "a100-40gb"),
        mig(6, "h100", "1g.10gb", 0, "9984Mi"),
        mig(6, "h100", "1g.10gb", 1, "9984Mi"),
        mig(6, "h100", "2g.20gb", 2, "20096Mi"),
        vfio(7, "h100"),
    ]
