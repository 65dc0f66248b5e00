"""The platform's DeviceClass catalogue: one entry per GPU shape the fleet can offer.

Selectors use only attributes the NVIDIA DRA driver publishes under ``gpu.nvidia.com``
(``type``, ``productName``, ``architecture``, ``cudaComputeCapability``, ``profile``) and
capacity ``memory`` — the ones Karpenter can also reason about before a node exists.
Class names live under the platform's domain so they never collide with the driver's
own ``gpu.nvidia.com`` / ``mig.nvidia.com`` classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from catalog.instances import GPU_SPECS, GpuModel
from catalog.labels import DOMAIN

DRIVER = "gpu.nvidia.com"
DRIVER_CLASS_NAMES = frozenset(
    {
        "gpu.nvidia.com",
        "mig.nvidia.com",
        "vfio.gpu.nvidia.com",
        "compute-domain-daemon.nvidia.com",
        "compute-domain-default-channel.nvidia.com",
    }
)
DRIVER_EXTENDED_RESOURCE = "nvidia.com/gpu"


class DeviceShape(StrEnum):
    H100_80GB = "h100-80gb"
    H200 = "h200"
    B200 = "b200"
    A100_40GB = "a100-40gb"
    A100_80GB = "a100-80gb"
    L40S = "l40s"
    L4 = "l4"
    A10G = "a10g"
    HOPPER_OR_NEWER = "hopper-or-newer"
    MIG_1G_10GB = "mig-1g-10gb"


@dataclass(frozen=True)
class DeviceClassSpec:
    """What a class selects: a whole GPU by product, a minimum compute capability, or a MIG profile."""

    shape: DeviceShape
    description: str
    product_name: str | None = None
    min_compute_capability: str | None = None
    mig_profile: str | None = None

    @property
    def name(self) -> str:
        return f"{self.shape.value}.{DOMAIN}"

    @property
    def device_type(self) -> str:
        return "mig" if self.mig_profile else "gpu"


def _product(shape: DeviceShape, model: GpuModel) -> DeviceClassSpec:
    spec = GPU_SPECS[model]
    return DeviceClassSpec(shape, f"A whole {spec.product_name} ({spec.memory_gib} GB)", product_name=spec.product_name)


DEVICE_CLASSES: dict[DeviceShape, DeviceClassSpec] = {
    c.shape: c
    for c in (
        _product(DeviceShape.H100_80GB, GpuModel.H100_80GB),
        _product(DeviceShape.H200, GpuModel.H200),
        _product(DeviceShape.B200, GpuModel.B200),
        _product(DeviceShape.A100_40GB, GpuModel.A100_40GB),
        _product(DeviceShape.A100_80GB, GpuModel.A100_80GB),
        _product(DeviceShape.L40S, GpuModel.L40S),
        _product(DeviceShape.L4, GpuModel.L4),
        _product(DeviceShape.A10G, GpuModel.A10G),
        DeviceClassSpec(
            DeviceShape.HOPPER_OR_NEWER,
            "A whole GPU of compute capability 9.0 or newer (Hopper, Blackwell)",
            min_compute_capability="9.0.0",
        ),
        DeviceClassSpec(
            DeviceShape.MIG_1G_10GB, "A 1g.10gb MIG slice (A100 80GB and H100 80GB parents)", mig_profile="1g.10gb"
        ),
    )
}
