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
carry ``False``. ``tests/policy/infrastructure/test_efa_and_autoscaler.py`` compares the column with
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
class EfaSupport:
    """EFA capabilities of one instance type (``catalog.efa`` has the sources)."""

    efa_interfaces: int
    network_cards: int
    efa_only: bool = True


Efa = EfaSupport


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
    efa: EfaSupport | None = None
    """EFA interfaces and network cards; ``None``: the type has no EFA."""
    on_demand_usd_per_hour: float | None = None
    """On-demand price (``catalog.prices`` has its source and date); ``None``: not read."""

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def is_gpu(self) -> bool:
        return self.gpus > 0


def _gpu(
    name: str,
    vcpus: int,
    memory_gib: int,
    gpus: int,
    model: GpuModel,
    efa: EfaSupport | None,
    efa_rdma_read: bool,
    on_demand_usd_per_hour: float | None,
) -> InstanceType:
    return InstanceType(
        name,
        vcpus,
        memory_gib,
        gpus,
        model,
        efa_rdma_read=efa_rdma_read,
        efa=efa,
        on_demand_usd_per_hour=on_demand_usd_per_hour,
    )


# One row per GPU instance type: adding a type is adding its row. The gang exporter's copy
# (``exporter/gang_exporter/gpus.py``, the image ships no ``catalog``) is generated from these rows
# by ``python -m cli.exporter_catalog --write``; a test fails when it is stale.
# fmt: off
_GPU_TYPES: list[InstanceType] = [
    #    name                vCPUs  GiB GPUs GPU model            EFA (interfaces, cards)  RDMA read  on-demand USD/h
    _gpu("p4d.24xlarge",       96, 1152, 8, GpuModel.A100_40GB,  Efa( 4,  4), True,  19.2197),
    _gpu("p4de.24xlarge",      96, 1152, 8, GpuModel.A100_80GB,  Efa( 4,  4), True,  None),
    _gpu("p5.48xlarge",       192, 2048, 8, GpuModel.H100_80GB,  Efa(32, 32), True,  55.04),
    _gpu("p5e.48xlarge",      192, 2048, 8, GpuModel.H200,       Efa(32, 32), True,  None),
    _gpu("p5en.48xlarge",     192, 2048, 8, GpuModel.H200,       Efa(16, 16), True,  63.2968),
    _gpu("p6-b200.48xlarge",  192, 2048, 8, GpuModel.B200,       Efa( 8,  8), True,  113.9328),
    _gpu("g5.xlarge",           4,   16, 1, GpuModel.A10G,       None        , False, None),
    _gpu("g5.2xlarge",          8,   32, 1, GpuModel.A10G,       None        , False, None),
    _gpu("g5.4xlarge",         16,   64, 1, GpuModel.A10G,       None        , False, None),
    _gpu("g5.8xlarge",         32,  128, 1, GpuModel.A10G,       Efa( 1,  1), False, None),
    _gpu("g5.12xlarge",        48,  192, 4, GpuModel.A10G,       Efa( 1,  1), False, None),
    _gpu("g5.16xlarge",        64,  256, 1, GpuModel.A10G,       Efa( 1,  1), False, None),
    _gpu("g5.24xlarge",        96,  384, 4, GpuModel.A10G,       Efa( 1,  1), False, None),
    _gpu("g5.48xlarge",       192,  768, 8, GpuModel.A10G,       Efa( 1,  1), False, None),
    _gpu("g6.xlarge",           4,   16, 1, GpuModel.L4,         None        , False, 0.8048),
    _gpu("g6.2xlarge",          8,   32, 1, GpuModel.L4,         None        , False, 0.9776),
    _gpu("g6.4xlarge",         16,   64, 1, GpuModel.L4,         None        , False, None),
    _gpu("g6.8xlarge",         32,  128, 1, GpuModel.L4,         Efa( 1,  1), True,  None),
    _gpu("g6.12xlarge",        48,  192, 4, GpuModel.L4,         Efa( 1,  1), True,  4.6016),
    _gpu("g6.16xlarge",        64,  256, 1, GpuModel.L4,         Efa( 1,  1), True,  None),
    _gpu("g6.24xlarge",        96,  384, 4, GpuModel.L4,         Efa( 1,  1), True,  6.6752),
    _gpu("g6.48xlarge",       192,  768, 8, GpuModel.L4,         Efa( 1,  1), True,  None),
    _gpu("g6e.xlarge",          4,   32, 1, GpuModel.L40S,       None        , False, None),
    _gpu("g6e.2xlarge",         8,   64, 1, GpuModel.L40S,       None        , False, None),
    _gpu("g6e.4xlarge",        16,  128, 1, GpuModel.L40S,       None        , False, None),
    _gpu("g6e.8xlarge",        32,  256, 1, GpuModel.L40S,       Efa( 1,  1), True,  None),
    _gpu("g6e.12xlarge",       48,  384, 4, GpuModel.L40S,       Efa( 1,  1), True,  10.4926),
    _gpu("g6e.16xlarge",       64,  512, 1, GpuModel.L40S,       Efa( 1,  1), True,  None),
    _gpu("g6e.24xlarge",       96,  768, 4, GpuModel.L40S,       Efa( 2,  2), True,  15.0656),
    _gpu("g6e.48xlarge",      192, 1536, 8, GpuModel.L40S,       Efa( 4,  4), True,  30.1311),
]
# fmt: on

_CPU_TYPES: list[InstanceType] = [
    # For the system node group.
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

_ALL = [*_GPU_TYPES, *_CPU_TYPES]
INSTANCE_TYPES: dict[str, InstanceType] = {t.name: t for t in _ALL}
GPU_FAMILIES: frozenset[str] = frozenset(t.family for t in _ALL if t.is_gpu)
EFA_SUPPORT: dict[str, EfaSupport] = {t.name: t.efa for t in _ALL if t.efa is not None}
"""Instance type -> its EFA capabilities, for the types that have EFA."""
ON_DEMAND_USD_PER_HOUR: dict[str, float] = {
    t.name: t.on_demand_usd_per_hour for t in _ALL if t.on_demand_usd_per_hour is not None
}
"""Instance type -> USD per instance-hour on demand, for the types whose price was read."""
