"""Preflight decisions: can an environment's capacity launch in its account and region?

What the environment needs (vCPU quotas, instance types per zone, reservations, the
Kubernetes version) is derived here from the config and the catalog; ``cli/preflight.py``
asks AWS only for those facts and hands the answers back as plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from catalog.instances import INSTANCE_TYPES
from catalog.quotas import Market, VcpuQuota, vcpu_quota
from config.karpenter import KarpenterCapacityType
from config.model import CapacityProvider, CapacityType, EnvironmentConfig, GpuPoolConfig
from policy.checks import Check, Status
from policy.karpenter import allowed_instance_types, pool_settings
from policy.node_pools import max_nodes

SYSTEM_POOL = "system"
USABLE_STATES = frozenset({"active", "scheduled"})
UNCONFIRMED_STATES = frozenset({"pending", "payment-pending", "assessing", "delayed"})
CAPACITY_BLOCK = "capacity-block"


@dataclass(frozen=True)
class QuotaNeed:
    """vCPUs one quota must allow when every pool counting against it is at ``max_size``."""

    quota: VcpuQuota
    vcpus: int
    parts: tuple[str, ...]


@dataclass(frozen=True)
class OfferingNeed:
    pool: str
    zone: str
    instance_types: tuple[str, ...]


@dataclass(frozen=True)
class ReservationNeed:
    pool: str
    reservation_id: str
    instance_type: str
    zone: str
    max_instances: int


@dataclass(frozen=True)
class Reservation:
    """The fields of an EC2 ``CapacityReservation`` the checks read."""

    reservation_id: str
    instance_type: str
    zone: str
    state: str
    reservation_type: str
    total_instances: int
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True)
class EksVersion:
    version: str
    status: str
    """``STANDARD_SUPPORT``, ``EXTENDED_SUPPORT`` or ``UNSUPPORTED``."""


def quota_markets(pool: GpuPoolConfig) -> tuple[Market, ...]:
    """The vCPU quotas (by market) the pool's instances count against.

    A Karpenter pool may land wholly on any capacity type it allows (spot first, on-demand when
    spot runs dry), so each of its markets must hold the whole pool. Reserved capacity (Karpenter
    ``reserved``, Capacity Block node groups) comes from reservations, not quotas; the
    reservation check sizes Capacity Block node groups against their block.
    """
    if pool.provider is CapacityProvider.KARPENTER:
        allowed = pool_settings(pool).capacity_types
        markets = ((KarpenterCapacityType.SPOT, Market.SPOT), (KarpenterCapacityType.ON_DEMAND, Market.ON_DEMAND))
        return tuple(market for capacity_type, market in markets if capacity_type in allowed)
    if pool.capacity.type is CapacityType.CAPACITY_BLOCK:
        return ()
    return (Market.SPOT,) if pool.capacity.type is CapacityType.SPOT else (Market.ON_DEMAND,)


def launchable_types(pool: GpuPoolConfig) -> tuple[str, ...]:
    """Instance types the pool may launch: a Karpenter pool with ``instance_families`` any size of them."""
    if pool.provider is CapacityProvider.KARPENTER:
        return tuple(t.name for t in allowed_instance_types(pool))
    return pool.instance_types


def quota_needs(env: EnvironmentConfig) -> list[QuotaNeed]:
    """Worst case per quota: each pool at ``max_nodes`` on its largest launchable instance type.

    For a dynamic Karpenter pool that is exactly its NodePools' cpu limits. Pools without a
    quota market (Capacity Blocks, Karpenter ``reserved`` only) are left out.
    """
    totals: dict[str, tuple[VcpuQuota, int, list[str]]] = {}

    def add(pool: str, types: Sequence[str], instances: int, market: Market) -> None:
        by_quota: dict[str, tuple[VcpuQuota, str]] = {}
        for name in types:
            quota = vcpu_quota(INSTANCE_TYPES[name].family, market)
            known = by_quota.get(quota.code)
            if known is None or INSTANCE_TYPES[name].vcpus > INSTANCE_TYPES[known[1]].vcpus:
                by_quota[quota.code] = (quota, name)
        for code, (quota, largest) in by_quota.items():
            vcpus = instances * INSTANCE_TYPES[largest].vcpus
            _, total, parts = totals.get(code, (quota, 0, []))
            parts.append(f"{pool}: {instances} x {largest}")
            totals[code] = (quota, total + vcpus, parts)

    add(SYSTEM_POOL, env.system_nodes.instance_types, env.system_nodes.max_size, Market.ON_DEMAND)
    for pool in env.gpu_pools:
        for market in quota_markets(pool):
            add(pool.name, launchable_types(pool), max_nodes(pool), market)
    return [QuotaNeed(q, vcpus, tuple(parts)) for code, (q, vcpus, parts) in sorted(totals.items())]


def offering_needs(env: EnvironmentConfig) -> list[OfferingNeed]:
    """Every instance type of every pool in each of the pool's zones (system nodes: every VPC zone)."""
    needs = [OfferingNeed(SYSTEM_POOL, z, env.system_nodes.instance_types) for z in env.network.zones]
    needs += [OfferingNeed(p.name, z, p.instance_types) for p in env.gpu_pools for z in p.zones]
    return needs


def reservation_needs(env: EnvironmentConfig) -> list[ReservationNeed]:
    return [
        ReservationNeed(p.name, p.capacity.reservation_id, p.instance_types[0], p.zones[0], max_nodes(p))
        for p in env.gpu_pools
        if p.capacity.reservation_id is not None
    ]


def reservation_from_api(item: Mapping[str, Any]) -> Reservation:
    """One entry of ``DescribeCapacityReservations``' ``CapacityReservations``."""
    return Reservation(
        reservation_id=str(item["CapacityReservationId"]),
        instance_type=str(item.get("InstanceType", "")),
        zone=str(item.get("AvailabilityZone", "")),
        state=str(item.get("State", "")),
        reservation_type=str(item.get("ReservationType", "default")),
        total_instances=int(item.get("TotalInstanceCount", 0)),
        start=item.get("StartDate"),
        end=item.get("EndDate"),
    )


def eks_versions_from_api(response: Mapping[str, Any]) -> list[EksVersion]:
    """``DescribeClusterVersions``: ``versionStatus`` (newer) or the older lower-case ``status``."""
    return [
        EksVersion(
            str(v.get("clusterVersion")),
            str(v.get("versionStatus") or str(v.get("status", "")).upper().replace("-", "_")),
        )
        for v in response.get("clusterVersions") or ()
    ]


def quota_checks(needs: Sequence[QuotaNeed], quotas: Mapping[str, float | None], *, region: str) -> list[Check]:
    checks = []
    for need in needs:
        subject = f"{need.quota.code} {need.quota.name}"
        value = quotas.get(need.quota.code)
        parts = "; ".join(need.parts)
        if value is None:
            checks.append(
                Check(
                    "quota",
                    subject,
                    Status.FAIL,
                    "could not read the quota",
                    "allow servicequotas:GetServiceQuota for the preflight role",
                )
            )
        elif need.vcpus > value:
            checks.append(
                Check(
                    "quota",
                    subject,
                    Status.FAIL,
                    f"needs {need.vcpus} vCPUs ({parts}), quota is {value:g}",
                    f"request {need.quota.code} >= {need.vcpus} in Service Quotas ({region}), or lower max_size",
                )
            )
        else:
            checks.append(Check("quota", subject, Status.OK, f"needs {need.vcpus} of {value:g} vCPUs ({parts})"))
    return checks


def offering_checks(needs: Sequence[OfferingNeed], offered: Mapping[str, frozenset[str]]) -> list[Check]:
    """``offered``: zone -> instance types EC2 offers there (``DescribeInstanceTypeOfferings``)."""
    checks = []
    for need in needs:
        subject = f"{need.pool} in {need.zone}"
        available = offered.get(need.zone, frozenset())
        missing = [t for t in need.instance_types if t not in available]
        if missing:
            checks.append(
                Check(
                    "offering",
                    subject,
                    Status.FAIL,
                    f"not offered in {need.zone}: {', '.join(missing)}",
                    "drop the type from the pool or use a zone that offers it",
                )
            )
        else:
            checks.append(Check("offering", subject, Status.OK, f"offered: {', '.join(need.instance_types)}"))
    return checks


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "?"


def reservation_check(need: ReservationNeed, found: Reservation | None, *, now: datetime) -> Check:
    """One verdict per reservation, listing every problem found with it."""
    subject = f"{need.pool} {need.reservation_id}"
    if found is None:
        return Check(
            "reservation",
            subject,
            Status.FAIL,
            "not found",
            "check the id and that it belongs to this account and region",
        )
    problems: list[tuple[Status, str, str]] = []
    expired = found.end is not None and found.end <= now
    if found.state == "expired" or (found.state == "active" and expired):
        problems.append((Status.FAIL, f"expired at {_when(found.end)}", "reserve a new Capacity Block and use its id"))
    elif found.state in UNCONFIRMED_STATES:
        problems.append(
            (Status.WARN, f"state {found.state}: not confirmed yet", "wait until it is scheduled or active")
        )
    elif found.state not in USABLE_STATES:
        problems.append((Status.FAIL, f"state {found.state}", "reserve new capacity and use its id"))
    if found.reservation_type != CAPACITY_BLOCK:
        problems.append(
            (Status.FAIL, "an On-Demand Capacity Reservation, not a Capacity Block", "use a Capacity Block's id")
        )
    if found.zone != need.zone:
        problems.append(
            (Status.FAIL, f"in {found.zone}, the pool is in {need.zone}", f"set the pool's zones to [{found.zone}]")
        )
    if found.instance_type != need.instance_type:
        problems.append(
            (
                Status.FAIL,
                f"holds {found.instance_type}, the pool launches {need.instance_type}",
                f"set the pool's instance_types to [{found.instance_type}]",
            )
        )
    if found.total_instances < need.max_instances:
        problems.append(
            (
                Status.WARN,
                f"holds {found.total_instances} instances, the pool may ask for {need.max_instances}",
                f"set max_size <= {found.total_instances}",
            )
        )
    if not problems:
        window = f"from {_when(found.start)} to {_when(found.end)}"
        state = "scheduled, starts" if found.state == "scheduled" else "active"
        return Check(
            "reservation",
            subject,
            Status.OK,
            f"{state} {window}: {found.total_instances} x {found.instance_type} in {found.zone}",
        )
    status = Status.FAIL if any(s is Status.FAIL for s, _, _ in problems) else Status.WARN
    return Check(
        "reservation",
        subject,
        status,
        "; ".join(p for _, p, _ in problems),
        "; ".join(f for _, _, f in problems),
    )


def eks_version_check(minor: str, region: str, versions: Sequence[EksVersion]) -> Check:
    subject = f"Kubernetes {minor} in {region}"
    match = [v for v in versions if v.version == minor]
    if not match:
        return Check(
            "eks-version",
            subject,
            Status.FAIL,
            "EKS does not offer this version here",
            "use a region where EKS offers it (aws eks describe-cluster-versions)",
        )
    status = match[0].status
    if status == "STANDARD_SUPPORT":
        return Check("eks-version", subject, Status.OK, "standard support")
    if status == "EXTENDED_SUPPORT":
        return Check(
            "eks-version",
            subject,
            Status.WARN,
            "extended support only (billed extra per cluster hour)",
            "plan the upgrade to a version in standard support",
        )
    return Check("eks-version", subject, Status.FAIL, f"status {status}", "pick a supported Kubernetes version")


def preflight_checks(
    env: EnvironmentConfig,
    *,
    kubernetes_minor: str,
    quotas: Mapping[str, float | None],
    offered: Mapping[str, frozenset[str]],
    reservations: Mapping[str, Reservation | None],
    eks_versions: Sequence[EksVersion],
    now: datetime,
) -> list[Check]:
    """Every verdict, in a stable order: EKS version, quotas, offerings, reservations."""
    checks = [eks_version_check(kubernetes_minor, env.region, eks_versions)]
    checks += quota_checks(quota_needs(env), quotas, region=env.region)
    checks += offering_checks(offering_needs(env), offered)
    checks += [reservation_check(n, reservations.get(n.reservation_id), now=now) for n in reservation_needs(env)]
    return checks
