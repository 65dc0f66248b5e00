"""What EC2 accepts as a VPC's IPv4 range, as data: each rule names where it is documented."""

from __future__ import annotations

from ipaddress import IPv4Network

VPC_CIDR_BLOCKS = "https://docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html"
"""Amazon VPC user guide, "VPC CIDR blocks" (checked 2026-12-03): an IPv4 block is between a /16
netmask (65,536 addresses) and a /28 netmask (16 addresses); use the private ranges of RFC 1918
(recommended), or a publicly routable block; the shared address space 100.64.0.0/10 is accepted as
well. The CreateVpc API reference states the same size bounds."""

LARGEST_PREFIX = 16
SMALLEST_PREFIX = 28
PRIVATE_RANGES = (IPv4Network("10.0.0.0/8"), IPv4Network("172.16.0.0/12"), IPv4Network("192.168.0.0/16"))
"""RFC 1918."""
SHARED_ADDRESS_SPACE = IPv4Network("100.64.0.0/10")
"""RFC 6598; EC2 accepts it for a VPC (EKS custom networking uses it for Pod addresses)."""


def usable_vpc_range(network: IPv4Network) -> bool:
    """RFC 1918, the shared address space, or publicly routable: never loopback, link-local,
    multicast, documentation, benchmarking or reserved addresses."""
    if any(network.subnet_of(r) for r in (*PRIVATE_RANGES, SHARED_ADDRESS_SPACE)):
        return True
    return network.is_global and not network.is_multicast
