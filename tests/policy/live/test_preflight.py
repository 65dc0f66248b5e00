"""Preflight against stubbed AWS APIs (botocore ``Stubber``, real request/response shapes)."""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from cli.live.preflight import gather, main
from config.load import ENVIRONMENTS_DIR
from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from policy.live.preflight import quota_needs
from policy.results import Check, Status
from tests.conftest import env_from
from tests.helpers import yaml_files

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EXAMPLE = Path(__file__).resolve().parent / "environment.yaml"
ACCOUNT = "111122223333"
BLOCK = "cr-0123456789abcdef0"
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
ASKED_TYPES = [
    "g6e.12xlarge",
    "g6e.24xlarge",
    "m7i.xlarge",
    "p4d.24xlarge",
    "p5.48xlarge",
    "p5en.48xlarge",
    "p6-b200.48xlarge",
]
QUOTA_NAMES = {
    "L-1216C47A": "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
    "L-417A185B": "Running On-Demand P instances",
    "L-7212CCBC": "All P Spot Instance Requests",
    "L-DB2E81BA": "Running On-Demand G and VT instances",
}
KARPENTER_QUOTA_NAMES = {
    "L-1216C47A": QUOTA_NAMES["L-1216C47A"],
    "L-3819A6DF": "All G and VT Spot Instance Requests",
    "L-DB2E81BA": QUOTA_NAMES["L-DB2E81BA"],
}


def capacity_block(reservation_id: str, *, region: str, zone: str, zone_id: str, block_id: str) -> dict[str, Any]:
    """An active two-node p5en Capacity Block as ``describe_capacity_reservations`` returns it."""
    return {
        "CapacityReservationId": reservation_id,
        "OwnerId": ACCOUNT,
        "CapacityReservationArn": f"arn:aws:ec2:{region}:{ACCOUNT}:capacity-reservation/{reservation_id}",
        "AvailabilityZoneId": zone_id,
        "InstanceType": "p5en.48xlarge",
        "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": zone,
        "Tenancy": "default",
        "TotalInstanceCount": 2,
        "AvailableInstanceCount": 2,
        "EbsOptimized": True,
        "EphemeralStorage": False,
        "State": "active",
        "StartDate": datetime(2026, 11, 28, 11, 30, tzinfo=UTC),
        "EndDate": datetime(2026, 12, 12, 11, 30, tzinfo=UTC),
        "EndDateType": "limited",
        "InstanceMatchCriteria": "targeted",
        "CreateDate": datetime(2026, 11, 20, 17, 2, tzinfo=UTC),
        "Tags": [],
        "ReservationType": "capacity-block",
        "CapacityBlockId": block_id,
    }


@dataclass
class World:
    """What the account looks like; every field starts out good for ``environment.yaml``."""

    quotas: dict[str, float | None] = field(
        default_factory=lambda: {"L-1216C47A": 256, "L-417A185B": 3072, "L-7212CCBC": 768, "L-DB2E81BA": 768}
    )
    offered: dict[str, list[str]] = field(default_factory=lambda: {z: list(ASKED_TYPES) for z in ZONES})
    reservation: dict[str, Any] | None = field(
        default_factory=lambda: capacity_block(
            BLOCK, region="us-east-1", zone="us-east-1b", zone_id="use1-az4", block_id="cb-0a1b2c3d4e5f60718"
        )
    )
    eks_status: str | None = "STANDARD_SUPPORT"


_REAL_CLIENT = boto3.client


def _client(service: str) -> Any:
    return _REAL_CLIENT(service, region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing")


def _quota(code: str, value: float) -> dict[str, Any]:
    return {
        "Quota": {
            "ServiceCode": "ec2",
            "ServiceName": "Amazon Elastic Compute Cloud (Amazon EC2)",
            "QuotaArn": f"arn:aws:servicequotas:us-east-1:{ACCOUNT}:ec2/{code}",
            "QuotaCode": code,
            "QuotaName": {**QUOTA_NAMES, **KARPENTER_QUOTA_NAMES}[code],
            "Value": value,
            "Unit": "None",
            "Adjustable": True,
            "GlobalQuota": False,
        }
    }


@dataclass
class Clients:
    ec2: Any
    service_quotas: Any
    eks: Any
    stubs: list[Stubber]


def stubbed(world: World) -> Clients:
    """Clients that answer preflight's calls, in order, from ``world``."""
    ec2, quotas, eks = _client("ec2"), _client("service-quotas"), _client("eks")
    quota_stub, ec2_stub, eks_stub = Stubber(quotas), Stubber(ec2), Stubber(eks)
    for code in sorted(QUOTA_NAMES):
        params = {"ServiceCode": "ec2", "QuotaCode": code}
        value = world.quotas.get(code)
        if value is None:
            quota_stub.add_client_error("get_service_quota", "NoSuchResourceException", expected_params=params)
            quota_stub.add_response("get_aws_default_service_quota", _quota(code, 0), params)
        else:
            quota_stub.add_response("get_service_quota", _quota(code, value), params)
    offerings = [
        {"InstanceType": t, "LocationType": "availability-zone", "Location": z}
        for z, types in sorted(world.offered.items())
        for t in types
    ]
    filters = [
        {"Name": "location", "Values": list(ZONES)},
        {"Name": "instance-type", "Values": ASKED_TYPES},
    ]
    # Two pages, as the real API returns for long lists.
    half = len(offerings) // 2
    ec2_stub.add_response(
        "describe_instance_type_offerings",
        {"InstanceTypeOfferings": offerings[:half], "NextToken": "page-2"},
        {"LocationType": "availability-zone", "Filters": filters},
    )
    ec2_stub.add_response(
        "describe_instance_type_offerings",
        {"InstanceTypeOfferings": offerings[half:]},
        {"LocationType": "availability-zone", "Filters": filters, "NextToken": "page-2"},
    )
    if world.reservation is None:
        ec2_stub.add_client_error(
            "describe_capacity_reservations",
            "InvalidCapacityReservationId.NotFound",
            f"The capacity reservation ID '{BLOCK}' does not exist",
            expected_params={"CapacityReservationIds": [BLOCK]},
        )
    else:
        ec2_stub.add_response(
            "describe_capacity_reservations",
            {"CapacityReservations": [world.reservation]},
            {"CapacityReservationIds": [BLOCK]},
        )
    versions = []
    if world.eks_status is not None:
        versions.append(
            {
                "clusterVersion": "1.37",
                "clusterType": "eks",
                "defaultPlatformVersion": "eks.3",
                "defaultVersion": False,
                "releaseDate": datetime(2026, 9, 22, tzinfo=UTC),
                "endOfStandardSupportDate": datetime(2027, 11, 22, tzinfo=UTC),
                "endOfExtendedSupportDate": datetime(2029, 5, 22, tzinfo=UTC),
                "status": world.eks_status.lower().replace("_", "-"),
                "versionStatus": world.eks_status,
                "kubernetesPatchVersion": "1.37.2",
            }
        )
    eks_stub.add_response("describe_cluster_versions", {"clusterVersions": versions}, {"clusterVersions": ["1.37"]})
    stubs = [quota_stub, ec2_stub, eks_stub]
    for stub in stubs:
        stub.activate()
    return Clients(ec2, quotas, eks, stubs)


def run(world: World) -> list[Check]:
    clients = stubbed(world)
    checks = gather(
        load_environment(path=EXAMPLE),
        ec2=clients.ec2,
        service_quotas=clients.service_quotas,
        eks=clients.eks,
        now=NOW,
    )
    for stub in clients.stubs:
        stub.assert_no_pending_responses()
    return checks


def failures(checks: list[Check]) -> list[tuple[str, str, str]]:
    return [(c.check, c.subject, c.detail) for c in checks if c.status is Status.FAIL]


def test_prod_example_needs_these_quotas() -> None:
    needs = {n.quota.code: (n.vcpus, n.parts) for n in quota_needs(load_environment(path=EXAMPLE))}
    assert needs == {
        "L-1216C47A": (24, ("system: 6 x m7i.xlarge",)),
        "L-417A185B": (2688, ("h100: 12 x p5.48xlarge", "b200: 2 x p6-b200.48xlarge")),
        "L-7212CCBC": (384, ("a100: 4 x p4d.24xlarge",)),
        "L-DB2E81BA": (576, ("l40s-inference: 6 x g6e.24xlarge",)),
    }


def test_all_good() -> None:
    checks = run(World())
    assert failures(checks) == []
    assert [c.status for c in checks] == [Status.OK] * len(checks)
    assert [c.check for c in checks] == ["eks-version"] + ["quota"] * 4 + ["offering"] * 12 + ["reservation"]
    assert checks[-1].detail == (
        "active from 2026-11-28 11:30 UTC to 2026-12-12 11:30 UTC: 2 x p5en.48xlarge in us-east-1b"
    )


def test_quota_too_low() -> None:
    world = World()
    world.quotas["L-DB2E81BA"] = 192
    assert failures(run(world)) == [
        (
            "quota",
            "L-DB2E81BA Running On-Demand G and VT instances",
            "needs 576 vCPUs (l40s-inference: 6 x g6e.24xlarge), quota is 192",
        )
    ]


def test_quota_never_raised_falls_back_to_the_aws_default() -> None:
    world = World()
    world.quotas["L-7212CCBC"] = None  # NoSuchResourceException -> the AWS default (0 for P spot)
    assert failures(run(world)) == [
        ("quota", "L-7212CCBC All P Spot Instance Requests", "needs 384 vCPUs (a100: 4 x p4d.24xlarge), quota is 0")
    ]


def test_type_not_offered_in_a_zone() -> None:
    world = World()
    world.offered["us-east-1c"].remove("p6-b200.48xlarge")
    checks = run(world)
    assert failures(checks) == [("offering", "b200 in us-east-1c", "not offered in us-east-1c: p6-b200.48xlarge")]
    (failed,) = [c for c in checks if c.status is Status.FAIL]
    assert failed.fix == "drop the type from the pool or use a zone that offers it"


def test_reservation_in_the_wrong_zone() -> None:
    world = World()
    assert world.reservation is not None
    world.reservation["AvailabilityZone"] = "us-east-1a"
    checks = run(world)
    assert failures(checks) == [("reservation", f"h200-block {BLOCK}", "in us-east-1a, the pool is in us-east-1b")]
    assert checks[-1].fix == "set the pool's zones to [us-east-1a]"


def test_expired_reservation() -> None:
    world = World()
    assert world.reservation is not None
    world.reservation.update(
        State="expired",
        StartDate=datetime(2026, 11, 10, 11, 30, tzinfo=UTC),
        EndDate=datetime(2026, 11, 24, 11, 30, tzinfo=UTC),
        AvailableInstanceCount=0,
    )
    assert failures(run(world)) == [("reservation", f"h200-block {BLOCK}", "expired at 2026-11-24 11:30 UTC")]


def test_active_reservation_past_its_end_counts_as_expired() -> None:
    world = World()
    assert world.reservation is not None
    world.reservation["EndDate"] = NOW - timedelta(minutes=5)
    assert failures(run(world))[0][2].startswith("expired at ")


def test_scheduled_block_passes_and_says_when_it_starts() -> None:
    world = World()
    assert world.reservation is not None
    world.reservation.update(State="scheduled", StartDate=NOW + timedelta(days=2), EndDate=NOW + timedelta(days=9))
    (check,) = [c for c in run(world) if c.check == "reservation"]
    assert check.status is Status.OK
    assert check.detail.startswith("scheduled, starts from 2026-12-03 09:00 UTC")


def test_reservation_not_found_and_wrong_type_of_reservation() -> None:
    assert failures(run(World(reservation=None))) == [("reservation", f"h200-block {BLOCK}", "not found")]
    world = World()
    assert world.reservation is not None
    world.reservation.update(ReservationType="default", InstanceType="p5.48xlarge", TotalInstanceCount=1)
    (check,) = [c for c in run(world) if c.check == "reservation"]
    assert check.status is Status.FAIL
    assert check.detail == (
        "an On-Demand Capacity Reservation, not a Capacity Block; holds p5.48xlarge, the pool launches "
        "p5en.48xlarge; holds 1 instances, the pool may ask for 2"
    )


def test_kubernetes_version_not_offered() -> None:
    assert failures(run(World(eks_status=None))) == [
        ("eks-version", "Kubernetes 1.37 in us-east-1", "EKS does not offer this version here")
    ]
    (check,) = [c for c in run(World(eks_status="EXTENDED_SUPPORT")) if c.check == "eks-version"]
    assert check.status is Status.WARN


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """Route ``main``'s boto3 clients to stubs built from the yielded world when the first client is made."""
    world = World()
    built: dict[str, Any] = {}

    def client(service: str, region_name: str) -> Any:
        assert region_name == "us-east-1"
        if not built:
            clients = stubbed(world)
            built.update({"ec2": clients.ec2, "service-quotas": clients.service_quotas, "eks": clients.eks})
        return built[service]

    monkeypatch.setattr(boto3, "client", client)
    # No registry is reachable here (a closed loopback port): the image checks are one skipped line.
    import cli.live.preflight
    from cli.live.registry import RegistryClient

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(
        cli.live.preflight, "registry_client", lambda: RegistryClient(base_url=lambda where: f"http://127.0.0.1:{port}")
    )
    monkeypatch.setattr(cli.live.preflight, "read_docker", lambda: ("27.3.1", None))
    yield world


def _main(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["--config", str(EXAMPLE), *args])
    return code, out.getvalue()


def test_command_prints_a_table_and_exits_zero(aws: World, monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.live.preflight

    monkeypatch.setattr(cli.live.preflight, "datetime", _FixedNow)
    code, out = _main()
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "preflight fixed-example (us-east-1)"
    assert lines[1].split() == ["CHECK", "SUBJECT", "STATUS", "DETAIL"]
    assert lines[2].split()[:3] == ["docker", "gang", "exporter"]  # the local check first, then AWS's
    assert lines[-1] == "19 ok, 0 warn, 0 fail, 1 skip"
    assert lines[-2].split()[:3] == ["images", "registries", "SKIP"]


def test_command_json_and_exit_code_on_failure(aws: World, monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.live.preflight

    monkeypatch.setattr(cli.live.preflight, "datetime", _FixedNow)
    aws.quotas["L-417A185B"] = 1536
    code, out = _main("--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    assert report["environment"] == "fixed-example"
    (failed,) = [c for c in report["checks"] if c["status"] == "fail"]
    assert failed["subject"] == "L-417A185B Running On-Demand P instances"
    assert failed["fix"] == "request L-417A185B >= 2688 in Service Quotas (us-east-1), or lower max_size"


class _FixedNow(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> _FixedNow:  # type: ignore[override]
        return cls(2026, 12, 1, 9, 0, tzinfo=UTC)


# Karpenter pools: ``environments/karpenter-example.yaml`` with its managed node group left out and
# reserved capacity added to the L40S pool through a tag selector on reservations shared by another account.
WEST = ("us-west-2a", "us-west-2b")
KARPENTER_BLOCK = "cr-0a1b2c3d4e5f60789"
SHARED_ODCR = "cr-0f1e2d3c4b5a69788"
SHARING_ACCOUNT = "444455556666"
TAG_SELECTOR = f"tags purpose=training,team=vision owner {SHARING_ACCOUNT}"
WEST_TYPES = ["g6e.12xlarge", "g6e.48xlarge", "m7i.large", "p5en.48xlarge"]


def karpenter_env() -> EnvironmentConfig:
    data = yaml_files.load((ENVIRONMENTS_DIR / "karpenter-example.yaml").read_text())
    flex, block, _ = data["gpu_pools"]
    flex["karpenter"]["capacity_types"] = ["reserved", "spot", "on_demand"]
    flex["karpenter"]["capacity_reservations"] = [
        {"tags": {"team": "vision", "purpose": "training"}, "owner_account": SHARING_ACCOUNT}
    ]
    data["gpu_pools"] = [flex, block]
    return env_from(data)


def _capacity_block() -> dict[str, Any]:
    return capacity_block(
        KARPENTER_BLOCK, region="us-west-2", zone="us-west-2a", zone_id="usw2-az1", block_id="cb-0f1e2d3c4b5a69701"
    )


def _shared_odcr() -> dict[str, Any]:
    """An open-ended On-Demand Capacity Reservation shared from another account: no ``EndDate``."""
    return {
        "CapacityReservationId": SHARED_ODCR,
        "OwnerId": SHARING_ACCOUNT,
        "CapacityReservationArn": f"arn:aws:ec2:us-west-2:{SHARING_ACCOUNT}:capacity-reservation/{SHARED_ODCR}",
        "AvailabilityZoneId": "usw2-az2",
        "InstanceType": "g6e.24xlarge",
        "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": "us-west-2b",
        "Tenancy": "default",
        "TotalInstanceCount": 4,
        "AvailableInstanceCount": 3,
        "EbsOptimized": True,
        "EphemeralStorage": False,
        "State": "active",
        "StartDate": datetime(2026, 10, 1, 8, 0, tzinfo=UTC),
        "EndDateType": "unlimited",
        "InstanceMatchCriteria": "targeted",
        "CreateDate": datetime(2026, 10, 1, 8, 0, tzinfo=UTC),
        "Tags": [{"Key": "team", "Value": "vision"}, {"Key": "purpose", "Value": "training"}],
        "ReservationType": "default",
    }


@dataclass
class KarpenterWorld:
    """The reservations the selectors find; every field starts out good for ``karpenter_env()``."""

    block: dict[str, Any] | None = field(default_factory=_capacity_block)
    tagged: list[dict[str, Any]] = field(default_factory=lambda: [_shared_odcr()])


def karpenter_stubbed(world: KarpenterWorld) -> Clients:
    ec2, quotas, eks = _client("ec2"), _client("service-quotas"), _client("eks")
    quota_stub, ec2_stub, eks_stub = Stubber(quotas), Stubber(ec2), Stubber(eks)
    for code in sorted(KARPENTER_QUOTA_NAMES):
        quota_stub.add_response("get_service_quota", _quota(code, 2048), {"ServiceCode": "ec2", "QuotaCode": code})
    ec2_stub.add_response(
        "describe_instance_type_offerings",
        {
            "InstanceTypeOfferings": [
                {"InstanceType": t, "LocationType": "availability-zone", "Location": z}
                for z in WEST
                for t in WEST_TYPES
            ]
        },
        {
            "LocationType": "availability-zone",
            "Filters": [{"Name": "location", "Values": list(WEST)}, {"Name": "instance-type", "Values": WEST_TYPES}],
        },
    )
    if world.block is None:
        ec2_stub.add_client_error(
            "describe_capacity_reservations",
            "InvalidCapacityReservationId.NotFound",
            f"The capacity reservation ID '{KARPENTER_BLOCK}' does not exist",
            expected_params={"CapacityReservationIds": [KARPENTER_BLOCK]},
        )
    else:
        ec2_stub.add_response(
            "describe_capacity_reservations",
            {"CapacityReservations": [world.block]},
            {"CapacityReservationIds": [KARPENTER_BLOCK]},
        )
    ec2_stub.add_response(
        "describe_capacity_reservations",
        {"CapacityReservations": world.tagged},
        {
            "Filters": [
                {"Name": "tag:purpose", "Values": ["training"]},
                {"Name": "tag:team", "Values": ["vision"]},
                {"Name": "owner-id", "Values": [SHARING_ACCOUNT]},
            ]
        },
    )
    eks_stub.add_response(
        "describe_cluster_versions",
        {"clusterVersions": [{"clusterVersion": "1.37", "versionStatus": "STANDARD_SUPPORT"}]},
        {"clusterVersions": ["1.37"]},
    )
    stubs = [quota_stub, ec2_stub, eks_stub]
    for stub in stubs:
        stub.activate()
    return Clients(ec2, quotas, eks, stubs)


def run_karpenter(world: KarpenterWorld) -> dict[str, Check]:
    """The reservation verdicts by subject; every other check must pass."""
    clients = karpenter_stubbed(world)
    checks = gather(karpenter_env(), ec2=clients.ec2, service_quotas=clients.service_quotas, eks=clients.eks, now=NOW)
    for stub in clients.stubs:
        stub.assert_no_pending_responses()
    assert all(c.status is Status.OK for c in checks if c.check != "reservation")
    return {c.subject: c for c in checks if c.check == "reservation"}


def test_karpenter_all_good() -> None:
    checks = run_karpenter(KarpenterWorld())
    assert [(subject, c.status, c.detail) for subject, c in checks.items()] == [
        (
            f"l40s-flex {TAG_SELECTOR}",
            Status.OK,
            f"{SHARED_ODCR} active from 2026-10-01 08:00 UTC, no end: 4 x g6e.24xlarge in us-west-2b",
        ),
        (
            f"h200-block {KARPENTER_BLOCK}",
            Status.OK,
            "active from 2026-11-28 11:30 UTC to 2026-12-12 11:30 UTC: 2 x p5en.48xlarge in us-west-2a",
        ),
        ("h200-block reserved capacity", Status.OK, "2 reserved instances for at most 2 nodes"),
    ]


def test_karpenter_selector_by_id_found_and_active() -> None:
    world = KarpenterWorld()
    assert world.block is not None
    world.block.update(State="scheduled", StartDate=NOW + timedelta(days=2), EndDate=NOW + timedelta(days=9))
    checks = run_karpenter(world)
    block = checks[f"h200-block {KARPENTER_BLOCK}"]
    assert (block.status, block.detail) == (
        Status.OK,
        "scheduled, starts from 2026-12-03 09:00 UTC to 2026-12-10 09:00 UTC: 2 x p5en.48xlarge in us-west-2a",
    )
    assert checks["h200-block reserved capacity"].status is Status.OK
    missing = run_karpenter(KarpenterWorld(block=None))[f"h200-block {KARPENTER_BLOCK}"]
    assert (missing.status, missing.detail) == (Status.FAIL, "not found")


def test_karpenter_selector_by_tags_finds_nothing() -> None:
    check = run_karpenter(KarpenterWorld(tagged=[]))[f"l40s-flex {TAG_SELECTOR}"]
    assert (check.status, check.detail) == (Status.FAIL, "no reservation has these tags")
    assert (
        check.fix
        == f"share reservations tagged purpose=training,team=vision from {SHARING_ACCOUNT} here, or fix the tags"
    )


def test_karpenter_reservation_in_a_zone_the_pool_does_not_use() -> None:
    world = KarpenterWorld()
    assert world.block is not None
    world.block.update(AvailabilityZone="us-west-2b", AvailabilityZoneId="usw2-az2")
    checks = run_karpenter(world)
    block = checks[f"h200-block {KARPENTER_BLOCK}"]
    assert (block.status, block.detail, block.fix) == (
        Status.FAIL,
        "in us-west-2b, the pool is in us-west-2a",
        "add us-west-2b to the pool's zones",
    )
    # Nothing usable is left for a reserved-only pool.
    total = checks["h200-block reserved capacity"]
    assert (total.status, total.detail) == (Status.WARN, "0 reserved instances usable, the pool may ask for 2")
    assert total.fix == "reserve 2 more instances"


def test_karpenter_expired_reservation() -> None:
    world = KarpenterWorld()
    assert world.block is not None
    world.block.update(
        State="expired",
        StartDate=datetime(2026, 11, 10, 11, 30, tzinfo=UTC),
        EndDate=datetime(2026, 11, 24, 11, 30, tzinfo=UTC),
        AvailableInstanceCount=0,
    )
    block = run_karpenter(world)[f"h200-block {KARPENTER_BLOCK}"]
    assert (block.status, block.detail, block.fix) == (
        Status.FAIL,
        "expired at 2026-11-24 11:30 UTC",
        "reserve new capacity and select its id",
    )


def test_karpenter_reservation_of_a_type_the_pool_cannot_launch() -> None:
    world = KarpenterWorld()
    world.tagged[0]["InstanceType"] = "p5.48xlarge"
    check = run_karpenter(world)[f"l40s-flex {TAG_SELECTOR}"]
    assert (check.status, check.detail, check.fix) == (
        Status.FAIL,
        f"{SHARED_ODCR} holds p5.48xlarge, the pool launches any size of g6e",
        "add p5 to karpenter.instance_families",
    )
    # One reservation the pool can use is enough; the others are counted, not failed.
    world.tagged.append(_shared_odcr() | {"CapacityReservationId": "cr-0f1e2d3c4b5a69799"})
    check = run_karpenter(world)[f"l40s-flex {TAG_SELECTOR}"]
    assert check.status is Status.OK
    assert check.detail.endswith("; 1 more selected that the pool cannot use")


def test_karpenter_reserved_only_pool_needs_enough_instances() -> None:
    world = KarpenterWorld()
    assert world.block is not None
    world.block.update(TotalInstanceCount=1, AvailableInstanceCount=1)
    total = run_karpenter(world)["h200-block reserved capacity"]
    assert (total.status, total.detail, total.fix) == (
        Status.WARN,
        "1 reserved instances usable, the pool may ask for 2",
        "reserve 1 more instances or set max_size <= 1",
    )


def test_fails_preflight_when_docker_does_not_answer(dev_data: dict[str, Any]) -> None:
    from policy.live.preflight import docker_check
    from tests.conftest import env_from

    env = env_from(dev_data)
    failed = docker_check(env, server_version=None, problem="there is no docker command on PATH")
    assert (failed.status, failed.detail, failed.fix) == (
        Status.FAIL,
        "make deploy builds exporter/ into an image with Docker, but there is no docker command on PATH",
        "install Docker (or set CDK_DOCKER to a compatible CLI) and start its daemon, then run make preflight",
    )
    assert docker_check(env, server_version="27.3.1", problem=None).status is Status.OK
    dev_data["observability"] = {"enabled": False}
    assert docker_check(env_from(dev_data), server_version=None, problem="x").status is Status.SKIP


def test_docker_is_asked_through_cdk_docker(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from cli.live.preflight import read_docker

    monkeypatch.setenv("CDK_DOCKER", str(tmp_path / "no-such-docker"))
    assert read_docker() == (None, f"there is no {tmp_path / 'no-such-docker'} command on PATH")
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CDK_DOCKER", str(fake))
    assert read_docker() == (None, "its daemon does not answer (Cannot connect to the Docker daemon)")
