"""Amazon EKS image registries per AWS Region, as data: where EKS-published images (the EFA device
plugin's among them) are pulled from in each Region.

EKS replicates its add-on images into one Amazon ECR registry per Region; nodes pull from their own
Region's registry (the node role's ``AmazonEC2ContainerRegistryReadOnly`` policy covers it). A chart
whose default image names us-west-2's registry, such as ``aws-efa-k8s-device-plugin``, must be given
the cluster's own Region's registry elsewhere.

The registry of each Region is a column of ``catalog.regions.REGIONS`` (its source:
``catalog.regions.EKS_IMAGES_SOURCE``), so a new Region is one row there.
"""

from __future__ import annotations

from catalog.regions import REGIONS, EksRegistry

EKS_REGISTRIES: dict[str, EksRegistry] = {code: region.eks_registry for code, region in REGIONS.items()}
"""Each Region's EKS registry: a column of ``catalog.regions.REGIONS`` (a new Region is one row there)."""
