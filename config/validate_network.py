"""Region, zones, subnets and the VPC's range: what EC2 and EKS would refuse, refused at synth.

Each rule raises one ``ConfigError`` naming the field, the value and the fix; the region and zone
names come from ``catalog/regions.py``, the VPC range rules from ``catalog/vpc.py``.
"""

from __future__ import annotations

from catalog.regions import REGIONS
from catalog.vpc import LARGEST_PREFIX, SMALLEST_PREFIX, VPC_CIDR_BLOCKS, usable_vpc_range
from config.errors import ConfigError
from config.model import EndpointAccess, EnvironmentConfig, NetworkConfig

NODE_AND_PUBLIC_SUBNET_ADDRESSES = 2**13 + 2**8
"""Per zone: a /19 private node subnet (room for pod IPs) and a /24 public subnet (``stacks/network.py``)."""


def check_region(env: EnvironmentConfig) -> None:
    if env.region not in REGIONS:
        raise ConfigError(
            "region",
            env.region,
            "no AWS region has this name (catalog/regions.py)",
            "use an AWS region code such as us-east-1, us-west-2 or eu-west-1, or add a checked row to the table",
        )


def check_zone(env: EnvironmentConfig, field: str, zone: str) -> None:
    """``zone`` is an Availability Zone name of ``env``'s region."""
    region = REGIONS[env.region]
    if zone[:-1] != env.region:
        raise ConfigError(
            field, zone, f"zone is not in region {env.region}", f"use zones named {env.region}a, {env.region}b, ..."
        )
    if zone not in region.zones:
        raise ConfigError(
            field,
            zone,
            f"region {env.region} has no such Availability Zone (catalog/regions.py)",
            f"use one of {', '.join(region.zones)}",
        )


def check_network(env: EnvironmentConfig) -> None:
    network = env.network
    existing = network.existing_vpc
    if existing is None and len(set(network.availability_zones)) < 2:
        raise ConfigError(
            "network.availability_zones",
            list(network.availability_zones),
            "the VPC needs at least two zones",
            "list two or more zones of the region",
        )
    if len(set(network.availability_zones)) != len(network.availability_zones):
        raise ConfigError(
            "network.availability_zones",
            list(network.availability_zones),
            "a zone is listed twice",
            "list each zone once",
        )
    if existing is not None:
        for field in ("availability_zones", "vpc_cidr", "nat_gateways"):
            # Compared with the default rather than "written": a copy made from a dump writes every field.
            if getattr(network, field) != NetworkConfig.model_fields[field].default:
                raise ConfigError(
                    f"network.{field}",
                    _shown(getattr(network, field)),
                    "has no effect with existing_vpc: the kit creates no VPC (the existing VPC's zones are the "
                    "keys of existing_vpc.private_subnet_ids)",
                    f"remove network.{field}, or remove existing_vpc to create a VPC",
                )
        _check_subnets(env)
    for index, zone in enumerate(network.availability_zones):
        check_zone(env, f"network.availability_zones[{index}]", zone)
    if existing is None:
        _check_vpc_cidr(env)
        if network.nat_gateways > len(network.availability_zones):
            raise ConfigError(
                "network.nat_gateways",
                network.nat_gateways,
                f"a VPC places at most one NAT gateway per zone, and this one has {len(network.availability_zones)} "
                "zones",
                f"set nat_gateways to at most {len(network.availability_zones)}",
            )


def _shown(value: object) -> object:
    """A network setting as its YAML would write it: a CIDR as text, a list of zones as a list, a count as is."""
    if isinstance(value, int):
        return value
    return [str(v) for v in value] if isinstance(value, tuple) else str(value)


def _check_subnets(env: EnvironmentConfig) -> None:
    assert env.network.existing_vpc is not None
    subnets = env.network.existing_vpc.private_subnet_ids
    if len(subnets) < 2:
        raise ConfigError(
            "network.existing_vpc.private_subnet_ids",
            dict(subnets),
            "EKS needs subnets in at least two zones",
            "list a private subnet in each of two or more zones",
        )
    zone_of: dict[str, str] = {}
    for zone, subnet in sorted(subnets.items()):
        field = f"network.existing_vpc.private_subnet_ids.{zone}"
        check_zone(env, field, zone)
        if subnet in zone_of:
            raise ConfigError(
                field,
                subnet,
                f"subnet is also given for zone {zone_of[subnet]}; a subnet lies in exactly one zone",
                "give each zone its own subnet in that zone",
            )
        zone_of[subnet] = zone


def _check_vpc_cidr(env: EnvironmentConfig) -> None:
    network = env.network
    cidr = network.vpc_cidr
    if not LARGEST_PREFIX <= cidr.prefixlen <= SMALLEST_PREFIX:
        raise ConfigError(
            "network.vpc_cidr",
            str(cidr),
            f"EC2 allows VPC blocks from /{LARGEST_PREFIX} (65,536 addresses) to /{SMALLEST_PREFIX} (16 addresses) "
            f"({VPC_CIDR_BLOCKS})",
            f"use a /{LARGEST_PREFIX} inside it, e.g. {next(cidr.subnets(new_prefix=LARGEST_PREFIX))}"
            if cidr.prefixlen < LARGEST_PREFIX
            else "use a larger block, e.g. a /16",
        )
    if not usable_vpc_range(cidr):
        raise ConfigError(
            "network.vpc_cidr",
            str(cidr),
            "not a range EC2 gives a VPC: neither private (RFC 1918), shared (100.64.0.0/10) nor publicly routable "
            f"({VPC_CIDR_BLOCKS})",
            "use a block inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16, e.g. 10.0.0.0/16",
        )
    zones = len(network.availability_zones)
    needed = zones * NODE_AND_PUBLIC_SUBNET_ADDRESSES
    if cidr.num_addresses < needed:
        raise ConfigError(
            "network.vpc_cidr",
            str(cidr),
            f"too small for a /19 node subnet and a /24 public subnet in {zones} zones",
            f"use a range of at least {needed} addresses, e.g. a /{_prefix_for(needed)}"
            if _prefix_for(needed) >= LARGEST_PREFIX
            else f"use a /{LARGEST_PREFIX} and at most {2**16 // NODE_AND_PUBLIC_SUBNET_ADDRESSES} zones",
        )


def _prefix_for(addresses: int) -> int:
    return 32 - (addresses - 1).bit_length()


def check_endpoint(env: EnvironmentConfig) -> None:
    cluster = env.cluster
    if cluster.endpoint_access is EndpointAccess.PRIVATE:
        if cluster.public_access_cidrs:
            raise ConfigError(
                "cluster.public_access_cidrs",
                [str(c) for c in cluster.public_access_cidrs],
                "a private endpoint has no public address, so these ranges would allow nothing",
                "remove public_access_cidrs, or set endpoint_access: public_and_private",
            )
        if cluster.acknowledge_public_endpoint_open_to_internet:
            raise ConfigError(
                "cluster.acknowledge_public_endpoint_open_to_internet",
                True,
                "a private endpoint is open to no internet address, so there is nothing to acknowledge",
                "remove the acknowledgement, or set endpoint_access: public_and_private",
            )
    elif cluster.acknowledge_public_endpoint_open_to_internet and not cluster.internet_open_ranges:
        raise ConfigError(
            "cluster.acknowledge_public_endpoint_open_to_internet",
            True,
            "no range of public_access_cidrs is open to every address, so there is nothing to acknowledge",
            "remove the acknowledgement",
        )
