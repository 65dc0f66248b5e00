"""EC2 instance types the platform knows, as data.

GPU rows carry what the capacity and device checks need: the GPU model behind the
DRA driver's ``productName`` attribute, GPUs per instance, and the vCPU and memory
a gang's pods compete for. Figures are from the EC2 accelerated-computing pages.

``efa_rdma_read``: the type's EFA device supports RDMA read, which GPUDirect RDMA over EFA
(libfabric's ``FI_EFA_USE_DEVICE_RDMA=1``) needs. Source: EC2 User Guide, "Elastic Fabric Adapter",
supported instance types by Nitro version with their RDMA read/write columns
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types), checked 2026-12-03
for every EFA type here: p4d/p4de (Nitro v3, read yes, write no), p5/p5e (v4), p5en (v5), p6-b200 (v6),
g6 and g6e (v4) read yes; g5 (v3) read no. Types without EFA (g5/g6/g6e below 8xlarge, CPU types)
carry ``False``. ``tests/test_efa_and_autoscaler.py`` compares the column with
``../shared/reference/aws-instance-network``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class GpuModel(StrEnum):
    """GPU models offered by the instance families we support."""

    A100_40GB = "A100-40GB"
    A100_80GB = "A100-80GB"
    A10G = "A10G"
    L4 = "L4"
    L40S = "L40S"
    H100_80GB = "H100-80GB"
    H200 = "H200"
    B200 = "B200"


@dataclass(frozen=True)
class GpuSpec:
    """What the NVIDIA DRA driver publishes for one GPU model."""

    product_name: str
    architecture: str
    compute_capability: str
    memory_gib: int


GPU_SPECS: dict[GpuModel, GpuSpec] = {
    GpuModel.A100_40GB: GpuSpec("NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", 40),
    GpuModel.A100_80GB: GpuSpec("NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", 80),
    GpuModel.A10G: GpuSpec("NVIDIA A10G", "Ampere", "8.6.0", 24),
    GpuModel.L4: GpuSpec("NVIDIA L4", "Ada Lovelace", "8.9.0", 24),
    GpuModel.L40S: GpuSpec("NVIDIA L40S", "Ada Lovelace", "8.9.0", 48),
    GpuModel.H100_80GB: GpuSpec("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", 80),
    GpuModel.H200: GpuSpec("NVIDIA H200", "Hopper", "9.0.0", 141),
    GpuModel.B200: GpuSpec("NVIDIA B200", "Blackwell", "10.0.0", 180),
}


# MIG profiles each GPU model offers (NVIDIA MIG user guide); the A100 40GB slices are 5 GB.
MIG_PROFILES: dict[GpuModel, tuple[str, ...]] = {
    GpuModel.A100_40GB: ("1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"),
    GpuModel.A100_80GB: ("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"),
    GpuModel.H100_80GB: ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"),
    GpuModel.H200: ("1g.18gb", "2g.35gb", "3g.71gb", "7g.141gb"),
    GpuModel.B200: ("1g.23gb", "2g.45gb", "3g.90gb", "7g.180gb"),
}


@dataclass(frozen=True)
class InstanceType:
    """One EC2 instance type; ``gpus == 0`` for CPU-only types."""

    name: str
    vcpus: int
    memory_gib: int
    gpus: int = 0
    gpu_model: GpuModel | None = None
    architecture: str = "x86_64"
    efa_rdma_read: bool = False
    """The EFA device supports RDMA read (GPUDirect RDMA over EFA); see the module docstring."""

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def is_gpu(self) -> bool:
        return self.gpus > 0


_EFA_SIZES = frozenset({"8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge"})
"""Sizes of g5, g6 and g6e that have EFA (EC2 User Guide efa.html); the smaller ones have none."""


def _sized_family(
    family: str, model: GpuModel, rows: list[tuple[str, int, int, int]], *, efa_rdma_read: bool
) -> list[InstanceType]:
    return [
        InstanceType(
            f"{family}.{size}", vcpus, memory_gib, gpus, model, efa_rdma_read=efa_rdma_read and size in _EFA_SIZES
        )
        for size, gpus, vcpus, memory_gib in rows
    ]


# (size, GPUs, vCPUs, memory GiB)
_G5 = [
    ("xlarge", 1, 4, 16),
    ("2xlarge", 1, 8, 32),
    ("4xlarge", 1, 16, 64),
    ("8xlarge", 1, 32, 128),
    ("12xlarge", 4, 48, 192),
    ("16xlarge", 1, 64, 256),
    ("24xlarge", 4, 96, 384),
    ("48xlarge", 8, 192, 768),
]
_G6E = [
    ("xlarge", 1, 4, 32),
    ("2xlarge", 1, 8, 64),
    ("4xlarge", 1, 16, 128),
    ("8xlarge", 1, 32, 256),
    ("12xlarge", 4, 48, 384),
    ("16xlarge", 1, 64, 512),
    ("24xlarge", 4, 96, 768),
    ("48xlarge", 8, 192, 1536),
]

_ALL: list[InstanceType] = [
    InstanceType("p4d.24xlarge", 96, 1152, 8, GpuModel.A100_40GB, efa_rdma_read=True),
    InstanceType("p4de.24xlarge", 96, 1152, 8, GpuModel.A100_80GB, efa_rdma_read=True),
    InstanceType("p5.48xlarge", 192, 2048, 8, GpuModel.H100_80GB, efa_rdma_read=True),
    InstanceType("p5e.48xlarge", 192, 2048, 8, GpuModel.H200, efa_rdma_read=True),
    InstanceType("p5en.48xlarge", 192, 2048, 8, GpuModel.H200, efa_rdma_read=True),
    InstanceType("p6-b200.48xlarge", 192, 2048, 8, GpuModel.B200, efa_rdma_read=True),
    *_sized_family("g5", GpuModel.A10G, _G5, efa_rdma_read=False),
    *_sized_family("g6", GpuModel.L4, _G5, efa_rdma_read=True),
    *_sized_family("g6e", GpuModel.L40S, _G6E, efa_rdma_read=True),
    # CPU types for the system node group.
    *[
        InstanceType(f"{family}.{size}", vcpus, memory_gib)
        for family in ("m6i", "m7i", "m6a", "m7a", "c6i", "c7i")
        for size, vcpus, memory_gib in (("large", 2, 8), ("xlarge", 4, 16), ("2xlarge", 8, 32))
    ],
    *[
        InstanceType(f"{family}.{size}", vcpus, memory_gib, architecture="arm64")
        for family in ("m7g", "c7g")
        for size, vcpus, memory_gib in (("large", 2, 8), ("xlarge", 4, 16), ("2xlarge", 8, 32))
    ],
]

INSTANCE_TYPES: dict[str, InstanceType] = {t.name: t for t in _ALL}
GPU_FAMILIES: frozenset[str] = frozenset(t.family for t in _ALL if t.is_gpu)
