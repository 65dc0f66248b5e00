"""What the cluster stack reads back at deploy, and what it says about the gates it relies on.

Nothing here can fail the cluster's creation for a missing gate. A gate is only known to be on when
a field it unlocks survives a round trip (the registry strategy drops a disabled field on create), and
that is checked after the cluster and its capacity exist: ``make deploy`` runs ``make verify`` once
``cdk deploy`` has finished, and a missing gate fails that step with the cluster left up
(``cli/live/verify.py``: one row per relied-on gate, its probe sent with ``dryRun=All``).

In the stack:

- a read-back of the DRA driver's ``gpu.nvidia.com`` DeviceClass through ``resource.k8s.io/v1`` (GA,
  served by every 1.37 cluster), after the driver's chart: it fails only when the driver did not start;
- the outputs ``WorkloadApi`` (the gang form and what ``make verify`` checks) and ``ServedBeyondEks``
  (the gates the environment acknowledges EKS 1.37 does not serve).
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Annotations, CfnOutput, Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from config.model import EnvironmentConfig
from config.platform import WorkloadApi
from policy.environment.teams import load_team_runs
from policy.gangs.workload_api import gang_run_warnings
from policy.gates.rules import gang_scheduling_native, served_beyond_eks
from policy.live.gate_probes import gate_probes
from policy.live.verify import DRA_DRIVER_NAME
from stacks.jsii_types import as_icluster


class ServedApiCheck(Construct):
    """Reads back the DRA driver's DeviceClass and states the gang form; never probes a gate."""

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
        gates = env.feature_gates.control_plane
        required = env.platform.workload_api is WorkloadApi.REQUIRED
        native = gang_scheduling_native(gates)
        if native and not required:
            for index, warning in enumerate(gang_run_warnings(env, load_team_runs(env))):
                Annotations.of(self).add_warning_v2(f"gpu-platform:workload-api-optional-gang-run-{index}", warning)
        probed = ", ".join(p.gate for p in gate_probes(gates)) or "none relied on"
        if not native:
            form = "fallback: no gang relies on the Workload API (EKS 1.37 does not serve GenericWorkload)"
        elif required:
            form = f"required: make deploy's make verify step checks the gates ({probed})"
        else:
            form = "optional: gang objects (gang admission policies) not applied; run make verify"
        CfnOutput(
            self,
            "WorkloadApi",
            value=form,
            description="The gang form, and what make verify checks of the gates after deploy",
        )
        CfnOutput(
            self,
            "ServedBeyondEks",
            value=",".join(served_beyond_eks(gates)) or "none",
            description="Gates acknowledged as served although EKS 1.37 does not serve them "
            "(feature_gates.acknowledge_served_beyond_eks)",
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
