"""The EFA device plugin's Helm release on the EFA pools."""

from __future__ import annotations

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from addons.efa_device_plugin.pin import EFA_DEVICE_PLUGIN
from addons.efa_device_plugin.plan import efa_device_plugin_values
from config.model import EnvironmentConfig
from stacks.helm import pinned_chart


class EfaDevicePlugin(Construct):
    """Helm release of ``aws-efa-k8s-device-plugin``: advertises ``vpc.amazonaws.com/efa`` on EFA pools only.

    The device plugin rather than AWS's EFA DRA driver (``aws-dranet``): its extended resource is what
    Cluster Autoscaler's node templates can express, and on the EKS AL2023 accelerated AMIs it aligns GPUs
    and EFA by itself; docs/concepts/pools.md ("Why the EFA device plugin and not the EFA DRA driver") has
    the evaluation and what would change it. The image comes from the cluster's Region's EKS registry.
    """

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, env: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = pinned_chart(
            self, "Chart", cluster=cluster, pin=EFA_DEVICE_PLUGIN, values=efa_device_plugin_values(env)
        )
