"""EKS Pod Identity: the agent add-on every controller role of the kit is delivered through."""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_eks_v2 as eks
from constructs import IConstruct


def pod_identity_agent(scope: IConstruct, cluster: eks.Cluster, *, system_nodes: IConstruct) -> eks.CfnAddon:
    """The ``eks-pod-identity-agent`` add-on of ``scope``'s stack, created once whoever asks first.

    It runs as a DaemonSet, so it waits for the system nodes; a controller that gets its role through
    Pod Identity depends on it.
    """
    stack = Stack.of(scope)
    existing = stack.node.try_find_child("PodIdentityAgent")
    if isinstance(existing, eks.CfnAddon):
        return existing
    agent = eks.CfnAddon(
        stack,
        "PodIdentityAgent",
        addon_name="eks-pod-identity-agent",
        cluster_name=cluster.cluster_name,
        resolve_conflicts="OVERWRITE",
    )
    agent.node.add_dependency(system_nodes)
    return agent
