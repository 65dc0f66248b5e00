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
EKS_IMAGES_SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html"
"""EKS User Guide, "View Amazon container image registries for Amazon EKS add-ons": each region's EKS
registry account (``awsdocs/amazon-eks-user-guide`` ``latest/ug/workloads/add-ons-images.adoc`` at commit
1cc6ebb4a163f7f42689fdb6860cc4e93a03d24e)."""
REGIONS_JSON = "https://github.com/jsonmaur/aws-regions/blob/main/js/regions.json"
"""Region codes and zone names per region (the zone letters here come from this file)."""


@dataclass(frozen=True)
class EksRegistry:
    """The EKS image registry of one Region: the ECR account and the Region's DNS suffix."""

    account: str
    dns_suffix: str = "amazonaws.com"
    source: str = EKS_IMAGES_SOURCE
    checked: str = CHECKED
    assumed: bool = False
    """True where the source does not state the row as written (see the row's comment)."""

    def host(self, region: str) -> str:
        return f"{self.account}.dkr.ecr.{region}.{self.dns_suffix}"


_COMMON = "602401143452"
"""The account behind the registries of the Regions that opened before 2019."""


@dataclass(frozen=True)
class Region:
    code: str
    zone_letters: str
    """The letters of the region's Availability Zone names: ``abc`` is ``<code>a``, ``<code>b``, ``<code>c``."""
    source: str
    eks_registry: EksRegistry
    """Where EKS-published images (the EFA device plugin's) are pulled from in this region."""
    assumed: bool = False
    """No source we hold lists this region's zone letters: three zones ``a``-``c`` assumed (AWS opens regions
    with at least three); check with ``aws ec2 describe-availability-zones`` and correct the row."""

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(f"{self.code}{letter}" for letter in self.zone_letters)


def _rows(*rows: Region) -> dict[str, Region]:
    return {row.code: row for row in rows}


REGIONS: dict[str, Region] = _rows(
    Region("us-east-1", "abcdef", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("us-east-2", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("us-west-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),  # an account sees two of the three
    Region("us-west-2", "abcd", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("us-gov-west-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("013241004608")),
    Region("us-gov-east-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("151742754352")),
    Region("ca-central-1", "abcd", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("ca-west-1", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("761377655185")),
    Region("mx-central-1", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("730335286997")),
    Region("sa-east-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("eu-north-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("eu-west-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("eu-west-2", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("eu-west-3", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("eu-central-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("eu-central-2", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("900612956339")),
    Region("eu-south-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("590381155156")),
    Region("eu-south-2", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("455263428931")),
    Region("af-south-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("877085696533")),
    Region("me-south-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("558608220178")),
    Region("me-central-1", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("759879836304")),
    Region("il-central-1", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("066635153087")),
    Region(
        "ap-northeast-1", "abcd", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)
    ),  # an account sees three of the four
    Region("ap-northeast-2", "abcd", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("ap-northeast-3", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("ap-southeast-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("ap-southeast-2", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("ap-southeast-3", "abc", REGIONS_JSON, eks_registry=EksRegistry("296578399912")),
    Region("ap-southeast-4", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("491585149902")),
    # Not in the commit above; in the guide's China-site copy of the same page (zh_cn add-ons-images.md).
    Region(
        "ap-southeast-5",
        "abc",
        AWS_REGIONS,
        assumed=True,
        eks_registry=EksRegistry(
            "151610086707", source="https://docs.amazonaws.cn/zh_cn/eks/latest/userguide/add-ons-images.md"
        ),
    ),
    Region("ap-southeast-6", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("333609536671")),
    Region("ap-southeast-7", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("121268973566")),
    Region("ap-south-1", "abc", REGIONS_JSON, eks_registry=EksRegistry(_COMMON)),
    Region("ap-south-2", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("900889452093")),
    Region("ap-east-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("800184023465")),
    # The guide lists account 533267051163 for ap-east-2 but writes the host as
    # "...dkr.ecr.ap-east-1.amazonaws.com"; the Region in the host is assumed to be ap-east-2.
    Region("ap-east-2", "abc", AWS_REGIONS, assumed=True, eks_registry=EksRegistry("533267051163", assumed=True)),
    Region("cn-north-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("918309763551", dns_suffix="amazonaws.com.cn")),
    Region(
        "cn-northwest-1", "abc", REGIONS_JSON, eks_registry=EksRegistry("961992271922", dns_suffix="amazonaws.com.cn")
    ),
)
