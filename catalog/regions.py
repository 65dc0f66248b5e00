"""AWS regions and the names of their Availability Zones, as data: each row names its source.

An Availability Zone *name* (``us-east-1a``) maps to a different physical zone in each account, and
not every account sees every letter (``aws ec2 describe-availability-zones`` shows an account's own
set); the letters here are every name the region gives out. A region or zone outside this table does
not exist, or is newer than the date checked: config refuses it (``config.validate_network``), and a
new region is one row here. Local Zones and Wavelength Zones (``us-west-2-lax-1a``) are not
Availability Zones and are not rows.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKED = "2026-12-03"
AWS_REGIONS = "https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html"
REGIONS_JSON = "https://github.com/jsonmaur/aws-regions/blob/main/js/regions.json"
"""Region codes and zone names per region (the zone letters here come from this file)."""


@dataclass(frozen=True)
class Region:
    code: str
    zone_letters: str
    """The letters of the region's Availability Zone names: ``abc`` is ``<code>a``, ``<code>b``, ``<code>c``."""
    source: str
    assumed: bool = False
    """No source we hold lists this region's zone letters: three zones ``a``-``c`` assumed (AWS opens regions
    with at least three); check with ``aws ec2 describe-availability-zones`` and correct the row."""

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(f"{self.code}{letter}" for letter in self.zone_letters)


def _rows(*rows: Region) -> dict[str, Region]:
    return {row.code: row for row in rows}


REGIONS: dict[str, Region] = _rows(
    Region("us-east-1", "abcdef", REGIONS_JSON),
    Region("us-east-2", "abc", REGIONS_JSON),
    Region("us-west-1", "abc", REGIONS_JSON),  # an account sees two of the three
    Region("us-west-2", "abcd", REGIONS_JSON),
    Region("us-gov-west-1", "abc", REGIONS_JSON),
    Region("us-gov-east-1", "abc", REGIONS_JSON),
    Region("ca-central-1", "abcd", REGIONS_JSON),
    Region("ca-west-1", "abc", AWS_REGIONS, assumed=True),
    Region("mx-central-1", "abc", AWS_REGIONS, assumed=True),
    Region("sa-east-1", "abc", REGIONS_JSON),
    Region("eu-north-1", "abc", REGIONS_JSON),
    Region("eu-west-1", "abc", REGIONS_JSON),
    Region("eu-west-2", "abc", REGIONS_JSON),
    Region("eu-west-3", "abc", REGIONS_JSON),
    Region("eu-central-1", "abc", REGIONS_JSON),
    Region("eu-central-2", "abc", AWS_REGIONS, assumed=True),
    Region("eu-south-1", "abc", REGIONS_JSON),
    Region("eu-south-2", "abc", AWS_REGIONS, assumed=True),
    Region("af-south-1", "abc", REGIONS_JSON),
    Region("me-south-1", "abc", REGIONS_JSON),
    Region("me-central-1", "abc", AWS_REGIONS, assumed=True),
    Region("il-central-1", "abc", AWS_REGIONS, assumed=True),
    Region("ap-northeast-1", "abcd", REGIONS_JSON),  # an account sees three of the four
    Region("ap-northeast-2", "abcd", REGIONS_JSON),
    Region("ap-northeast-3", "abc", REGIONS_JSON),
    Region("ap-southeast-1", "abc", REGIONS_JSON),
    Region("ap-southeast-2", "abc", REGIONS_JSON),
    Region("ap-southeast-3", "abc", REGIONS_JSON),
    Region("ap-southeast-4", "abc", AWS_REGIONS, assumed=True),
    Region("ap-southeast-5", "abc", AWS_REGIONS, assumed=True),
    Region("ap-southeast-6", "abc", AWS_REGIONS, assumed=True),
    Region("ap-southeast-7", "abc", AWS_REGIONS, assumed=True),
    Region("ap-south-1", "abc", REGIONS_JSON),
    Region("ap-south-2", "abc", AWS_REGIONS, assumed=True),
    Region("ap-east-1", "abc", REGIONS_JSON),
    Region("ap-east-2", "abc", AWS_REGIONS, assumed=True),
    Region("cn-north-1", "abc", REGIONS_JSON),
    Region("cn-northwest-1", "abc", REGIONS_JSON),
)
