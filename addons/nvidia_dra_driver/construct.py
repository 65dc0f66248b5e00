"""GPU device management on the cluster: the NVIDIA DRA driver and, for legacy pools, the device plugin."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from addons.nvidia_dra_driver.pin import DRA_DRIVER, NVIDIA_DEVICE_PLUGIN
from addons.nvidia_dra_driver.values import device_plugin_values, dra_driver_values
from config.model import EnvironmentConfig
from stacks.helm import pinned_chart


class DraDriver(Construct):
    """Helm release of ``dra-driver-nvidia-gpu`` with its kubelet plugin pinned to DRA pools."""

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, env: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = pinned_chart(
            self,
            "Chart",
            cluster=cluster,
            pin=DRA_DRIVER,
            values=dra_driver_values(env),
            create_namespace=True,
            wait_timeout=Duration.minutes(10),
        )


class DevicePlugin(Construct):
    """Helm release of ``nvidia-device-plugin``, kept off every DRA pool by node selector."""

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, env: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = pinned_chart(
            self,
            "Chart",
            cluster=cluster,
            pin=NVIDIA_DEVICE_PLUGIN,
            values=device_plugin_values(env),
            create_namespace=True,
        )
