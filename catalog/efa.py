"""Elastic Fabric Adapter: the platform's EFA names and sizes, and the sources of the per-type EFA columns.

Each instance row of ``catalog/instances.py`` carries how many EFA interfaces the type takes (EC2
``NetworkInfo.EfaInfo.MaximumEfaInterfaces``), its network cards (``MaximumNetworkCards``; at most one
EFA per card), and whether it takes ``efa-only`` interfaces (EFA without an IP address, never the
primary interface). Rows without EFA have none (g5/g6/g6e below 8xlarge).

Sources, checked row by row:
- EC2 User Guide, "Elastic Fabric Adapter for AI/ML and HPC workloads", supported instance types and
  the EFA vs EFA-only table (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html): every type
  here supports EFA and EFA-only.
- EC2 User Guide, "Maximize network bandwidth on Amazon EC2 instances with multiple network cards"
  (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html): P5 and P5e up to 32
  network cards, G6e up to four; the primary interface cannot be EFA-only.
- EC2 ``DescribeInstanceTypes`` data as regenerated in aws/karpenter-provider-aws
  (``website/content/en/docs/reference/instance-types.md`` for ``vpc.amazonaws.com/efa``,
  ``pkg/providers/instancetype/zz_generated.vpclimits.go`` for network cards), v1.14.0 data.
``tests/policy/infrastructure/test_efa_and_autoscaler.py`` compares every row with the reference table in
``../shared/reference/aws-instance-network``.
Check a type again with ``aws ec2 describe-instance-types --instance-types <type> --query
'InstanceTypes[].NetworkInfo.{cards:MaximumNetworkCards,efa:EfaInfo.MaximumEfaInterfaces}'``.
"""

from __future__ import annotations

from catalog.instances import EFA_SUPPORT, EfaSupport

__all__ = ["EFA_SUPPORT", "EfaSupport"]

EFA_LABEL = "gpu-platform.io/efa"
"""Node label of EFA pools; the EFA device plugin runs only where it is ``"true"``."""
EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""Extended resource the EFA device plugin advertises, one per EFA interface."""
HUGEPAGES_RESOURCE = "hugepages-2Mi"
"""Huge pages of 2 MiB, the size the EFA driver pre-allocates."""
EFA_PREALLOCATED_HUGEPAGES = 5128
"""2 MiB huge pages an instance with the EFA driver (aws-efa-installer, in the EKS AL2023 accelerated
AMIs) pre-allocates: 10256Mi of ``hugepages-2Mi`` allocatable per node (EKS User Guide ``node-efa``,
checked 2026-12-03)."""
EFA_HUGEPAGES_PER_NODE_MIB = 5120
"""What AWS's EFA examples request per full-node pod (``hugepages-2Mi: 5120Mi``, EKS User Guide
``node-efa`` and ``device-management-efa``, checked 2026-12-03); a pod on part of a node requests its
share, by GPUs."""
