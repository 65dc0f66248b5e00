"""Why GPU node groups set ``InstanceTypes`` on the L1: the eks-v2 L2 rejects real GPU types.

When an aws-cdk-lib upgrade fixes these, the test fails and the route in
``stacks/node_groups.py`` can be simplified.
"""

from __future__ import annotations

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks


@pytest.mark.parametrize(
    ("instance_type", "message"),
    [
        ("p5.48xlarge", "The specified AMI does not match the instance types architecture"),
        ("p5en.48xlarge", "The specified AMI does not match the instance types architecture"),
        ("p6-b200.48xlarge", "Malformed instance type identifier"),
    ],
)
def test_eks_v2_nodegroup_rejects_gpu_types_eks_accepts(instance_type: str, message: str) -> None:
    stack = Stack(App(), "Quirks")
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="gpu")
    with pytest.raises(Exception, match=message):
        eks.Nodegroup(
            stack,
            "Gpu",
            cluster=cluster,
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
            instance_types=[ec2.InstanceType(instance_type)],
        )
