"""Preflight decisions: can an environment's capacity launch in its account and region?

What the environment needs (vCPU quotas, instance types per zone, reservations and what
Karpenter's reservation selectors must find, the Kubernetes version) is derived here from
the config and the catalog; ``cli/live/preflight.py`` asks AWS only for those facts and hands
the answers back as plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from addons.karpenter.plan import allowed_instance_types, karpenter_pools, pool_settings
from addons.karpenter.settings import CapacityReservationSelector, KarpenterCapacityType
from catalog.instances import INSTANCE_TYPES
from catalog.quotas import Market, VcpuQuota, vcpu_quota
from config.model import CapacityProvider, CapacityType, EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.node_pools import max_nodes
from policy.results import Check, Status

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
class ReservationSelector:
    """One Karpenter ``capacityReservationSelectorTerms`` entry: an id, or tags (and the owner account)."""

    reservation_id: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    owner_account: str | None = None

    @property
    def tag_text(self) -> str:
        return ",".join(f"{key}={value}" for key, value in self.tags)

    @property
    def label(self) -> str:
        if self.reservation_id is not None:
            return self.reservation_id
        return f"tags {self.tag_text}" + (f" owner {self.owner_account}" if self.owner_account else "")


@dataclass(frozen=True)
class KarpenterReservationNeed:
    """A Karpenter pool's reservation selectors and what a reservation they select must fit."""

    pool: str
    selectors: tuple[ReservationSelector, ...]
    zones: tuple[str, ...]
    instance_types: tuple[str, ...]
    """Every type the pool may launch (``launchable_types``)."""
    instance_families: tuple[str, ...]
    max_instances: int | None
    """``max_nodes`` of a ``reserved``-only pool, which only its reservations can hold; otherwise ``None``."""
    nodes_per_max_size: int
    """Nodes one unit of ``max_size`` adds: the zone count when zone-pinned, else 1."""


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


def selector_from_config(selector: CapacityReservationSelector) -> ReservationSelector:
    return ReservationSelector(selector.id, tuple(sorted(selector.tags.items())), selector.owner_account)


def karpenter_reservation_needs(env: EnvironmentConfig) -> list[KarpenterReservationNeed]:
    """Every Karpenter pool with ``capacity_reservations``, in config order."""
    needs = []
    for pool in karpenter_pools(env):
        settings = pool_settings(pool)
        if not settings.capacity_reservations:
            continue
        reserved_only = set(settings.capacity_types) == {KarpenterCapacityType.RESERVED}
        needs.append(
            KarpenterReservationNeed(
                pool=pool.name,
                selectors=tuple(selector_from_config(s) for s in settings.capacity_reservations),
                zones=pool.zones,
                instance_types=launchable_types(pool),
                instance_families=settings.instance_families,
                max_instances=max_nodes(pool) if reserved_only else None,
                nodes_per_max_size=len(pool.zones) if pool.zone_pinned else 1,
            )
        )
    return needs


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


def _state_problem(
    found: Reservation, *, now: datetime, expired_fix: str, other_fix: str
) -> tuple[Status, str, str] | None:
    """Why the reservation cannot hold nodes now or when it starts; ``None`` when ``active`` or ``scheduled``."""
    expired = found.end is not None and found.end <= now
    if found.state == "expired" or (found.state == "active" and expired):
        return (Status.FAIL, f"expired at {_when(found.end)}", expired_fix)
    if found.state in UNCONFIRMED_STATES:
        return (Status.WARN, f"state {found.state}: not confirmed yet", "wait until it is scheduled or active")
    if found.state not in USABLE_STATES:
        return (Status.FAIL, f"state {found.state}", other_fix)
    return None


def _describe(found: Reservation) -> str:
    window = f"from {_when(found.start)} to {_when(found.end)}" if found.end else f"from {_when(found.start)}, no end"
    state = "scheduled, starts" if found.state == "scheduled" else "active"
    return f"{state} {window}: {found.total_instances} x {found.instance_type} in {found.zone}"


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
    state = _state_problem(
        found,
        now=now,
        expired_fix="reserve a new Capacity Block and use its id",
        other_fix="reserve new capacity and use its id",
    )
    if state is not None:
        problems.append(state)
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
        return Check("reservation", subject, Status.OK, _describe(found))
    status = Status.FAIL if any(s is Status.FAIL for s, _, _ in problems) else Status.WARN
    return Check(
        "reservation",
        subject,
        status,
        "; ".join(p for _, p, _ in problems),
        "; ".join(f for _, _, f in problems),
    )


def _launches(need: KarpenterReservationNeed) -> str:
    if need.instance_families:
        return f"any size of {', '.join(need.instance_families)}"
    return ", ".join(need.instance_types)


def _fit_problems(
    need: KarpenterReservationNeed, selector: ReservationSelector, found: Reservation, *, now: datetime
) -> list[tuple[Status, str, str]]:
    """Why Karpenter cannot launch the pool's nodes into ``found``; empty when it can.

    On-Demand Capacity Reservations and Capacity Blocks both serve Karpenter's ``reserved`` capacity.
    """
    renew = (
        "reserve new capacity and select its id"
        if selector.reservation_id is not None
        else f"reserve new capacity tagged {selector.tag_text}"
    )
    problems: list[tuple[Status, str, str]] = []
    state = _state_problem(found, now=now, expired_fix=renew, other_fix=renew)
    if state is not None:
        problems.append(state)
    if found.zone not in need.zones:
        problems.append(
            (
                Status.FAIL,
                f"in {found.zone}, the pool is in {', '.join(need.zones)}",
                f"add {found.zone} to the pool's zones",
            )
        )
    if found.instance_type not in need.instance_types:
        known = INSTANCE_TYPES.get(found.instance_type)
        if known is not None and known.gpus and need.instance_families:
            fix = f"add {known.family} to karpenter.instance_families"
        elif known is not None and known.gpus:
            fix = f"add {found.instance_type} to the pool's instance_types"
        else:
            fix = "select reservations of an instance type the pool launches"
        problems.append((Status.FAIL, f"holds {found.instance_type}, the pool launches {_launches(need)}", fix))
    return problems


def selector_check(
    need: KarpenterReservationNeed, selector: ReservationSelector, found: Sequence[Reservation], *, now: datetime
) -> Check:
    """One verdict per selector: it must select at least one reservation the pool can launch into."""
    subject = f"{need.pool} {selector.label}"
    by_id = selector.reservation_id is not None
    if not found:
        if by_id:
            fix = "check the id and that it belongs to this account and region"
        elif selector.owner_account:
            fix = f"share reservations tagged {selector.tag_text} from {selector.owner_account} here, or fix the tags"
        else:
            fix = f"tag a reservation in this account and region {selector.tag_text}, or fix the tags"
        return Check(
            "reservation", subject, Status.FAIL, "not found" if by_id else "no reservation has these tags", fix
        )
    verdicts = [(r, _fit_problems(need, selector, r, now=now)) for r in found]
    usable = [r for r, problems in verdicts if not problems]
    if usable:
        described = [_describe(r) if by_id else f"{r.reservation_id} {_describe(r)}" for r in usable]
        ignored = len(found) - len(usable)
        if ignored:
            described.append(f"{ignored} more selected that the pool cannot use")
        return Check("reservation", subject, Status.OK, "; ".join(described))
    details = [
        "; ".join(p for _, p, _ in problems) if by_id else f"{r.reservation_id} {', '.join(p for _, p, _ in problems)}"
        for r, problems in verdicts
    ]
    fixes = dict.fromkeys(f for _, problems in verdicts for _, _, f in problems)
    confirming = any(all(s is Status.WARN for s, _, _ in problems) for _, problems in verdicts)
    return Check(
        "reservation", subject, Status.WARN if confirming else Status.FAIL, "; ".join(details), "; ".join(fixes)
    )


def reserved_capacity_check(
    need: KarpenterReservationNeed, found: Mapping[ReservationSelector, Sequence[Reservation]], *, now: datetime
) -> Check | None:
    """A ``reserved``-only pool: the reservations its selectors find must hold ``max_nodes``. ``None`` for a
    pool that may also launch spot or on-demand."""
    if need.max_instances is None:
        return None
    usable = {
        r.reservation_id: r.total_instances
        for s in need.selectors
        for r in found.get(s, ())
        if not _fit_problems(need, s, r, now=now)
    }
    total = sum(usable.values())
    subject = f"{need.pool} reserved capacity"
    if total >= need.max_instances:
        return Check(
            "reservation", subject, Status.OK, f"{total} reserved instances for at most {need.max_instances} nodes"
        )
    max_size = total // need.nodes_per_max_size
    more = f"reserve {need.max_instances - total} more instances"
    return Check(
        "reservation",
        subject,
        Status.WARN,
        f"{total} reserved instances usable, the pool may ask for {need.max_instances}",
        f"{more} or set max_size <= {max_size}" if max_size else more,
    )


def karpenter_reservation_checks(
    need: KarpenterReservationNeed, found: Mapping[ReservationSelector, Sequence[Reservation]], *, now: datetime
) -> list[Check]:
    """``found``: the reservations each selector selects (by id: the one reservation, if any)."""
    checks = [selector_check(need, s, found.get(s, ()), now=now) for s in need.selectors]
    total = reserved_capacity_check(need, found, now=now)
    return checks if total is None else [*checks, total]


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
    selected: Mapping[ReservationSelector, Sequence[Reservation]],
    eks_versions: Sequence[EksVersion],
    now: datetime,
) -> list[Check]:
    """Every verdict, in a stable order: EKS version, quotas, offerings, reservations (node groups, then
    Karpenter pools). ``selected``: the reservations each Karpenter selector selects."""
    checks = [eks_version_check(kubernetes_minor, env.region, eks_versions)]
    checks += quota_checks(quota_needs(env), quotas, region=env.region)
    checks += offering_checks(offering_needs(env), offered)
    checks += [reservation_check(n, reservations.get(n.reservation_id), now=now) for n in reservation_needs(env)]
    for need in karpenter_reservation_needs(env):
        checks += karpenter_reservation_checks(need, selected, now=now)
    return checks


DOCKER_SUBJECT = "gang exporter image (exporter/)"


def docker_check(env: EnvironmentConfig, *, server_version: str | None, problem: str | None) -> Check:
    """``cdk deploy`` builds the gang exporter (``exporter/``, a CDK image asset) with the local Docker
    (or the command ``CDK_DOCKER`` names) whenever observability is on: without a daemon that answers,
    the deploy fails at asset publishing. ``problem``: why Docker could not be asked, if it could not."""
    if not env.observability.enabled:
        return Check("docker", DOCKER_SUBJECT, Status.SKIP, "observability.enabled is false: deploy builds no image")
    if problem is not None:
        return Check(
            "docker",
            DOCKER_SUBJECT,
            Status.FAIL,
            f"make deploy builds exporter/ into an image with Docker, but {problem}",
            "install Docker (or set CDK_DOCKER to a compatible CLI) and start its daemon, then run make preflight",
        )
    return Check("docker", DOCKER_SUBJECT, Status.OK, f"Docker {server_version} answers; make deploy builds the image")
