"""GPU device management on the cluster: the NVIDIA DRA driver and, for legacy pools, the device plugin."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from catalog import versions
from config.model import EnvironmentConfig
from policy.dra_driver import device_plugin_values, dra_driver_values
from stacks.jsii_types import as_icluster


class DraDriver(Construct):
    """Helm release of ``dra-driver-nvidia-gpu`` with its kubelet plugin pinned to DRA pools."""

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, env: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = eks.HelmChart(
            self,
            "Chart",
            cluster=as_icluster(cluster),
            chart=versions.DRA_DRIVER_CHART,
            repository=versions.DRA_DRIVER_CHART_REPOSITORY,
            version=versions.DRA_DRIVER_CHART_VERSION,
            release=versions.DRA_DRIVER_RELEASE,
            namespace=versions.DRA_DRIVER_NAMESPACE,
            create_namespace=True,
            values=dra_driver_values(env),
            wait=True,
            timeout=Duration.minutes(10),
        )


class DevicePlugin(Construct):
    """Helm release of ``nvidia-device-plugin``, kept off every DRA pool by node selector."""

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, env: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = eks.HelmChart(
            self,
            "Chart",
            cluster=as_icluster(cluster),
            chart=versions.NVIDIA_DEVICE_PLUGIN_CHART,
            repository=versions.NVIDIA_DEVICE_PLUGIN_REPOSITORY,
            version=versions.NVIDIA_DEVICE_PLUGIN_CHART_VERSION,
            release=versions.NVIDIA_DEVICE_PLUGIN_CHART,
            namespace=versions.DRA_DRIVER_NAMESPACE,
            create_namespace=True,
            values=device_plugin_values(env),
        )
