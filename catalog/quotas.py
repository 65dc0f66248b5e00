"""EC2 vCPU quotas (Service Quotas, service code ``ec2``) that cap the instance families we launch.

Running On-Demand and Spot instances are limited per instance-family class, counted in
vCPUs. Codes are from the Service Quotas console / ``list-aws-default-service-quotas``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

SERVICE_CODE = "ec2"


class Market(StrEnum):
    ON_DEMAND = "on-demand"
    SPOT = "spot"


@dataclass(frozen=True)
class VcpuQuota:
    code: str
    name: str


_QUOTAS: dict[tuple[str, Market], VcpuQuota] = {
    ("P", Market.ON_DEMAND): VcpuQuota("L-417A185B", "Running On-Demand P instances"),
    ("P", Market.SPOT): VcpuQuota("L-7212CCBC", "All P Spot Instance Requests"),
    ("G", Market.ON_DEMAND): VcpuQuota("L-DB2E81BA", "Running On-Demand G and VT instances"),
    ("G", Market.SPOT): VcpuQuota("L-3819A6DF", "All G and VT Spot Instance Requests"),
    ("Standard", Market.ON_DEMAND): VcpuQuota(
        "L-1216C47A", "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances"
    ),
    ("Standard", Market.SPOT): VcpuQuota(
        "L-34B43A08", "All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests"
    ),
}
_FAMILY_CLASSES = {"p": "P", "g": "G", "v": "G"}


def vcpu_quota(instance_family: str, market: Market) -> VcpuQuota:
    """The quota an instance family's running vCPUs count against (``p5`` -> P, ``g6e`` -> G and VT)."""
    family_class = _FAMILY_CLASSES.get(instance_family[:1], "Standard")
    return _QUOTAS[(family_class, market)]
