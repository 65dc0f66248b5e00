"""``make preflight ENV=...``: check AWS can hold the environment before deploying it.

Asks AWS (read-only) for what ``policy/live/preflight.py`` says the environment needs: the
EC2 vCPU quotas of its instance families (Service Quotas), the instance types offered
in each configured zone, its capacity reservations and Capacity Blocks (for Karpenter pools:
what each ``capacity_reservations`` selector selects, by id or by tags), and whether EKS
offers the Kubernetes version in the region; and, locally, that Docker answers (``make deploy``
builds the gang exporter image with it). Then, where there is network access, whether each
image and chart the environment deploys (``policy/infrastructure/images.py``, rows in ``catalog/images.py``)
resolves in its registry or chart repository (``cli/live/registry.py``); without network access that
part is one skipped line with the reason (``--no-registries`` leaves it out). Prints a table (or
``--json``); exits 1 when a check fails, 2 when the environment or AWS access is broken.

Permissions: ``servicequotas:GetServiceQuota``, ``servicequotas:GetAWSDefaultServiceQuota``,
``ec2:DescribeInstanceTypeOfferings``, ``ec2:DescribeCapacityReservations``,
``eks:DescribeClusterVersions``; ``ecr:GetAuthorizationToken`` to look up images in a private ECR
registry (the EKS registry of the EFA device plugin; skipped without it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from catalog import versions
from catalog.quotas import SERVICE_CODE
from cli.environment_args import add_environment_args, load_selected
from cli.live.registry import RegistryClient, look_up
from cli.report import exit_code, first_line, render
from config.errors import ConfigError
from config.model import EnvironmentConfig
from policy.infrastructure.images import deployed_charts, deployed_images, offline_check, registry_checks
from policy.live.preflight import (
    EksVersion,
    Reservation,
    ReservationSelector,
    docker_check,
    eks_versions_from_api,
    karpenter_reservation_needs,
    offering_needs,
    preflight_checks,
    quota_needs,
    reservation_from_api,
    reservation_needs,
)
from policy.results import Check


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def read_quotas(client: Any, codes: Iterable[str]) -> dict[str, float | None]:
    """Applied quota values; the AWS default where none was ever applied; ``None`` if unreadable."""
    from botocore.exceptions import ClientError

    values: dict[str, float | None] = {}
    for code in sorted(set(codes)):
        try:
            values[code] = float(client.get_service_quota(ServiceCode=SERVICE_CODE, QuotaCode=code)["Quota"]["Value"])
            continue
        except ClientError as error:
            if _error_code(error) != "NoSuchResourceException":
                values[code] = None
                continue
        try:
            default = client.get_aws_default_service_quota(ServiceCode=SERVICE_CODE, QuotaCode=code)
            values[code] = float(default["Quota"]["Value"])
        except ClientError:
            values[code] = None
    return values


def read_offerings(client: Any, zones: Iterable[str], instance_types: Iterable[str]) -> dict[str, frozenset[str]]:
    """Zone -> the asked-for instance types EC2 offers there."""
    offered: dict[str, set[str]] = {}
    pages = client.get_paginator("describe_instance_type_offerings").paginate(
        LocationType="availability-zone",
        Filters=[
            {"Name": "location", "Values": sorted(set(zones))},
            {"Name": "instance-type", "Values": sorted(set(instance_types))},
        ],
    )
    for page in pages:
        for offering in page.get("InstanceTypeOfferings", []):
            offered.setdefault(str(offering["Location"]), set()).add(str(offering["InstanceType"]))
    return {zone: frozenset(types) for zone, types in offered.items()}


def read_reservations(client: Any, reservation_ids: Iterable[str]) -> dict[str, Reservation | None]:
    """One call per id, so one unknown id does not hide the others."""
    from botocore.exceptions import ClientError

    found: dict[str, Reservation | None] = {}
    for reservation_id in sorted(set(reservation_ids)):
        try:
            items = client.describe_capacity_reservations(CapacityReservationIds=[reservation_id])[
                "CapacityReservations"
            ]
        except ClientError as error:
            if not _error_code(error).startswith("InvalidCapacityReservationId"):
                raise
            items = []
        found[reservation_id] = reservation_from_api(items[0]) if items else None
    return found


def read_selected(
    client: Any, selectors: Iterable[ReservationSelector], by_id: Mapping[str, Reservation | None]
) -> dict[ReservationSelector, list[Reservation]]:
    """What each Karpenter selector selects: an id selector its reservation from ``by_id``; a tag
    selector every reservation with all its tags (``owner-id`` when it names the owner account)."""
    selected: dict[ReservationSelector, list[Reservation]] = {}
    for selector in dict.fromkeys(selectors):
        if selector.reservation_id is not None:
            found = by_id.get(selector.reservation_id)
            selected[selector] = [found] if found is not None else []
            continue
        filters = [{"Name": f"tag:{key}", "Values": [value]} for key, value in selector.tags]
        if selector.owner_account is not None:
            filters.append({"Name": "owner-id", "Values": [selector.owner_account]})
        pages = client.get_paginator("describe_capacity_reservations").paginate(Filters=filters)
        selected[selector] = [reservation_from_api(item) for page in pages for item in page["CapacityReservations"]]
    return selected


def read_eks_versions(client: Any, minor: str) -> list[EksVersion]:
    return eks_versions_from_api(client.describe_cluster_versions(clusterVersions=[minor]))


def read_docker() -> tuple[str | None, str | None]:
    """(server version, None) when the Docker daemon answers, else (None, why not): what ``cdk deploy``
    will build the exporter image with (``$CDK_DOCKER``, default ``docker``)."""
    command = os.environ.get("CDK_DOCKER") or "docker"
    try:
        result = subprocess.run(
            [command, "version", "--format", "{{.Server.Version}}"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except FileNotFoundError:
        return None, f"there is no {command} command on PATH"
    except subprocess.TimeoutExpired:
        return None, f"{command} version did not answer within 30 s"
    if result.returncode != 0 or not result.stdout.strip():
        why = (result.stderr.strip().splitlines() or ["no server version"])[-1]
        return None, f"its daemon does not answer ({why})"
    return result.stdout.strip(), None


def gather(env: EnvironmentConfig, *, ec2: Any, service_quotas: Any, eks: Any, now: datetime) -> list[Check]:
    """Ask AWS for exactly what the environment needs, then decide (``policy.live.preflight``)."""
    offerings = offering_needs(env)
    selectors = [s for n in karpenter_reservation_needs(env) for s in n.selectors]
    quotas = read_quotas(service_quotas, (n.quota.code for n in quota_needs(env)))
    offered = read_offerings(ec2, (n.zone for n in offerings), (t for n in offerings for t in n.instance_types))
    ids = [n.reservation_id for n in reservation_needs(env)] + [s.reservation_id for s in selectors if s.reservation_id]
    reservations = read_reservations(ec2, ids)
    return preflight_checks(
        env,
        kubernetes_minor=versions.KUBERNETES_MINOR,
        quotas=quotas,
        offered=offered,
        reservations=reservations,
        selected=read_selected(ec2, selectors, reservations),
        eks_versions=read_eks_versions(eks, versions.KUBERNETES_MINOR),
        now=now,
    )


def ecr_basic_auth(registry: str) -> str | None:
    """An ECR authorization token (``base64(AWS:password)``) for a private ECR registry host, or ``None``."""
    parts = registry.split(".")
    if len(parts) < 6 or parts[1:3] != ["dkr", "ecr"]:
        return None
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        data = boto3.client("ecr", region_name=parts[3]).get_authorization_token()["authorizationData"]
    except (BotoCoreError, ClientError):
        return None
    return str(data[0]["authorizationToken"]) if data else None


def registry_client() -> RegistryClient:
    """The client ``main`` asks registries with (tests put a loopback registry in its place)."""
    return RegistryClient(basic_auth=ecr_basic_auth)


def registry_report(env: EnvironmentConfig, client: RegistryClient) -> list[Check]:
    """One check per pinned image and chart ``env`` deploys, or one skipped line without network access."""
    images, charts = deployed_images(env), deployed_charts(env)
    image_answers, chart_answers, offline = look_up(client, images, charts)
    if offline is not None:
        return [offline_check(offline)]
    return registry_checks(images, charts, image_answers, chart_answers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_environment_args(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--no-registries", action="store_true", help="do not look the pinned images and charts up in their registries"
    )
    args = parser.parse_args(argv)
    try:
        env = load_selected(args)
    except ConfigError as error:
        return error.report()

    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    version, problem = read_docker() if env.observability.enabled else (None, None)
    docker = docker_check(env, server_version=version, problem=problem)
    aws_error: str | None = None
    try:
        checks = [
            docker,
            *gather(
                env,
                ec2=boto3.client("ec2", region_name=env.region),
                service_quotas=boto3.client("service-quotas", region_name=env.region),
                eks=boto3.client("eks", region_name=env.region),
                now=datetime.now(UTC),
            ),
        ]
    except (BotoCoreError, ClientError) as error:
        aws_error, checks = first_line(error), [docker]
    if not args.no_registries:
        checks += registry_report(env, registry_client())
    title = {"environment": env.name, "region": env.region, "command": "preflight"}
    if checks or aws_error is None:
        heading = f"preflight {env.name} ({env.region})" + (": registries only" if aws_error else "")
        print(render(title, checks, json_output=args.json, heading=heading))
    if aws_error is not None:  # the registries were still asked: they need no AWS access
        print(f"error: preflight of {env.name} could not ask AWS: {aws_error}", file=sys.stderr)
        return 2
    return exit_code(checks)


if __name__ == "__main__":
    sys.exit(main())
