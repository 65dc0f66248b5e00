"""Deploy-time check that the API server serves what the environment declared.

Two parts, both through the cluster's kubectl provider (so they synthesize offline):

- an ``api-check`` manifest with one basic Workload per required ``scheduling.k8s.io``
  version. ``kubectl apply`` fails on an unserved version, and the deployment fails
  with kubectl's message: ``no matches for kind "Workload" in version
  "scheduling.k8s.io/v1beta1"``. The Workloads create no pods.
- a read-back of the DRA driver's ``gpu.nvidia.com`` DeviceClass through
  ``resource.k8s.io/v1`` (``KubernetesObjectValue``), after the driver's chart. When the
  API or the class is missing the read times out and the deployment fails.

The full check (ResourceSlices on GPU nodes, platform objects) is ``make verify``.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import CfnOutput, Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from config.model import EnvironmentConfig
from policy.gates import required_api_versions
from policy.verify import DRA_DRIVER_NAME, api_check_manifests
from stacks.jsii_types import as_icluster


class ServedApiCheck(Construct):
    """Fails the deployment with a clear message when a declared API or the DRA driver's class is missing."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        env: EnvironmentConfig,
        after: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        manifests = api_check_manifests(required_api_versions(env.feature_gates.control_plane))
        if manifests:
            self.manifest = eks.KubernetesManifest(
                self, "SchedulingApis", cluster=as_icluster(cluster), manifest=manifests, overwrite=True
            )
        if env.dra_driver.enabled:
            device_class = eks.KubernetesObjectValue(
                self,
                "DraDeviceClass",
                cluster=as_icluster(cluster),
                object_type="deviceclasses.v1.resource.k8s.io",
                object_name=DRA_DRIVER_NAME,
                json_path=".metadata.name",
                timeout=Duration.minutes(5),
            )
            for dependency in after:
                device_class.node.add_dependency(dependency)
            CfnOutput(
                self,
                "ServedDraDeviceClass",
                value=device_class.value,
                description="The DRA driver's DeviceClass, read back through resource.k8s.io/v1 at deploy time",
            )
