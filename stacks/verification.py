"""Deploy-time checks that the API server serves, and keeps, what the environment relies on.

All go through the cluster's kubectl provider (so they synthesize offline):

- ``GateProbes``: one pod-less object per relied-on control-plane gate (``policy.gate_probes``),
  in one manifest. ``kubectl apply`` fails on an unserved API and the deployment fails with
  kubectl's message, which names the probe and so the gate: ``resource mapping not found for name:
  "gate-probe-genericworkload" ... no matches for kind "Workload" in version
  "scheduling.k8s.io/v1beta1"``.
- one ``KubernetesObjectValue`` per probe reading back the field its gate unlocks. aws-cdk-lib
  2.275's handler (``custom-resource-handlers/dist/aws-eks-v2/kubectl-handler/get/__init__.py``)
  runs ``kubectl get -n <ns> <type> <name> -o=jsonpath='{<path>}'`` every 10 s until the output
  is non-empty, and after ``TimeoutSeconds`` raises ``RuntimeError("Timeout waiting for output from
  kubectl command: [...] (last_error=None)")``; the custom resource fails and the stack rolls back.
  kubectl prints nothing for a missing JSONPath key, so a dropped field ends exactly there, and
  the listed command names the probe (``gate-probe-<gate>``) and the field. Replayed against the
  real handler in ``tests/test_gate_probes.py``.
- a read-back of the DRA driver's ``gpu.nvidia.com`` DeviceClass through ``resource.k8s.io/v1``,
  after the driver's chart.

With ``platform.workload_api: optional`` no probe is applied (gang objects are left out), and the
``WorkloadApi`` output says so. The full check, with one row per gate, is ``make verify``.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Annotations, CfnOutput, Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from config.model import EnvironmentConfig
from config.platform import WorkloadApi
from config.teams import load_team_runs
from policy.gate_probes import gate_probes
from policy.verify import DRA_DRIVER_NAME
from policy.workload_api import gang_run_warnings
from stacks.jsii_types import as_icluster

READ_BACK_TIMEOUT = Duration.minutes(1)
"""A field is kept or dropped when the object is created: the read needs no long wait."""


class ServedApiCheck(Construct):
    """Fails the deployment naming the gate when a relied-on API or gated field is missing."""

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
        required = env.platform.workload_api is WorkloadApi.REQUIRED
        probes = gate_probes(env.feature_gates.control_plane) if required else []
        if probes:
            self.manifest = eks.KubernetesManifest(
                self,
                "GateProbes",
                cluster=as_icluster(cluster),
                manifest=[p.manifest for p in probes],
                overwrite=True,
            )
            for probe in probes:
                read = eks.KubernetesObjectValue(
                    self,
                    f"Probe{probe.gate}",
                    cluster=as_icluster(cluster),
                    object_type=probe.kind.object_type,
                    object_name=probe.name,
                    object_namespace=str(probe.manifest["metadata"]["namespace"]),
                    json_path=probe.json_path,
                    timeout=READ_BACK_TIMEOUT,
                )
                read.node.add_dependency(self.manifest)
        if not required:
            for index, warning in enumerate(gang_run_warnings(env, load_team_runs(env))):
                Annotations.of(self).add_warning_v2(f"gpu-platform:workload-api-optional-gang-run-{index}", warning)
        CfnOutput(
            self,
            "WorkloadApi",
            value=(
                f"required: gates confirmed at deploy ({', '.join(p.gate for p in probes) or 'none relied on'})"
                if required
                else "optional: gang objects (probes, gang admission policies) not applied; run make verify"
            ),
            description="platform.workload_api, and what the deployment checked of it",
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
