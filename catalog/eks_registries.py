"""Amazon EKS image registries per AWS Region, as data: where EKS-published images (the EFA device
plugin's among them) are pulled from in each Region.

EKS replicates its add-on images into one Amazon ECR registry per Region; nodes pull from their own
Region's registry (the node role's ``AmazonEC2ContainerRegistryReadOnly`` policy covers it). A chart
whose default image names us-west-2's registry, such as ``aws-efa-k8s-device-plugin``, must be given
the cluster's own Region's registry elsewhere.

Source of every row unless the row says otherwise: EKS User Guide, "View Amazon container image
registries for Amazon EKS add-ons" (https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html;
the guide's source ``awsdocs/amazon-eks-user-guide`` ``latest/ug/workloads/add-ons-images.adoc`` at
commit 1cc6ebb4a163f7f42689fdb6860cc4e93a03d24e), checked 2026-12-03. A Region missing here is refused
at synth: add its row from that page.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKED = "2026-12-03"
"""When the rows were last compared with the EKS User Guide."""
SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html"


@dataclass(frozen=True)
class EksRegistry:
    """The EKS image registry of one Region: the ECR account and the Region's DNS suffix."""

    account: str
    dns_suffix: str = "amazonaws.com"
    source: str = SOURCE
    checked: str = CHECKED
    assumed: bool = False
    """True where the source does not state the row as written (see the row's comment)."""

    def host(self, region: str) -> str:
        return f"{self.account}.dkr.ecr.{region}.{self.dns_suffix}"


_COMMON = "602401143452"
"""The account behind the registries of the Regions that opened before 2019."""

EKS_REGISTRIES: dict[str, EksRegistry] = {
    "af-south-1": EksRegistry("877085696533"),
    "ap-east-1": EksRegistry("800184023465"),
    # The guide lists account 533267051163 for ap-east-2 but writes the host as
    # "...dkr.ecr.ap-east-1.amazonaws.com"; the Region in the host is assumed to be ap-east-2.
    "ap-east-2": EksRegistry("533267051163", assumed=True),
    "ap-northeast-1": EksRegistry(_COMMON),
    "ap-northeast-2": EksRegistry(_COMMON),
    "ap-northeast-3": EksRegistry(_COMMON),
    "ap-south-1": EksRegistry(_COMMON),
    "ap-south-2": EksRegistry("900889452093"),
    "ap-southeast-1": EksRegistry(_COMMON),
    "ap-southeast-2": EksRegistry(_COMMON),
    "ap-southeast-3": EksRegistry("296578399912"),
    "ap-southeast-4": EksRegistry("491585149902"),
    # Not in the commit above; in the guide's China-site copy of the same page (zh_cn add-ons-images.md).
    "ap-southeast-5": EksRegistry(
        "151610086707", source="https://docs.amazonaws.cn/zh_cn/eks/latest/userguide/add-ons-images.md"
    ),
    "ap-southeast-6": EksRegistry("333609536671"),
    "ap-southeast-7": EksRegistry("121268973566"),
    "ca-central-1": EksRegistry(_COMMON),
    "ca-west-1": EksRegistry("761377655185"),
    "cn-north-1": EksRegistry("918309763551", dns_suffix="amazonaws.com.cn"),
    "cn-northwest-1": EksRegistry("961992271922", dns_suffix="amazonaws.com.cn"),
    "eu-central-1": EksRegistry(_COMMON),
    "eu-central-2": EksRegistry("900612956339"),
    "eu-north-1": EksRegistry(_COMMON),
    "eu-south-1": EksRegistry("590381155156"),
    "eu-south-2": EksRegistry("455263428931"),
    "eu-west-1": EksRegistry(_COMMON),
    "eu-west-2": EksRegistry(_COMMON),
    "eu-west-3": EksRegistry(_COMMON),
    "il-central-1": EksRegistry("066635153087"),
    "me-central-1": EksRegistry("759879836304"),
    "me-south-1": EksRegistry("558608220178"),
    "mx-central-1": EksRegistry("730335286997"),
    "sa-east-1": EksRegistry(_COMMON),
    "us-east-1": EksRegistry(_COMMON),
    "us-east-2": EksRegistry(_COMMON),
    "us-gov-east-1": EksRegistry("151742754352"),
    "us-gov-west-1": EksRegistry("013241004608"),
    "us-west-1": EksRegistry(_COMMON),
    "us-west-2": EksRegistry(_COMMON),
}

EFA_DEVICE_PLUGIN_REPOSITORY = "eks/aws-efa-k8s-device-plugin"
"""Repository of the EFA device plugin image inside each Region's EKS registry (the chart's default
``image.repository`` is ``602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin``)."""
