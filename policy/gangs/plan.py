"""Team run parameters -> a gang plan: roles, pod groups, priority, topology, names.

Everything the platform decides lives here, as pure functions: the tier gives priority,
preemption and disruption; the environment's gates decide which API fields may be used;
the name carries a content hash so a changed run yields new immutable objects.
"""

from __future__ import annotations

from catalog.device_classes import DEVICE_CLASSES, DeviceClassSpec
from catalog.feature_gates import Gate
from catalog.labels import ZONE_LABEL
from catalog.priority_tiers import TIERS
from config.model import EnvironmentConfig, GpuPoolConfig
from config.platform import RunConfig, TopologyPreference
from config.validate_launch import processes_per_pod
from policy.gangs.kinds import kind_of
from policy.gangs.shapes import GangPlan, GroupPlan
from policy.gates.rules import effective_gates, gang_scheduling_native
from policy.infrastructure.device_classes import pool_serves
from policy.infrastructure.efa import efa_placement
from policy.infrastructure.node_pools import tolerations_for

FALLBACK_LOSES = (
    "Pods are scheduled one by one, so a partial start holds its GPUs while the rest wait; "
    "preemption takes single Pods, not the whole gang"
)
"""What the fallback form loses against native gang scheduling (GenericWorkload off: EKS 1.37 as AWS runs it)."""


def plan_groups(run: RunConfig, *, composite: bool) -> tuple[GroupPlan, ...]:
    """The pod groups of a run: one gang of every Pod, or (composite) a group for the leader and one for the rest.

    The kind gives the roles; a leader that is not one of ``replicas`` (the CPU-only MPI launcher, the
    Spark driver) comes on top of its workers in the gang's minimum."""
    kind = kind_of(run)
    leader = kind.leader_role(run)
    on_top = not kind.leads_its_gang
    minimum = run.min_replicas if run.min_replicas is not None else run.replicas
    workers = kind.worker_role(run)
    if composite:
        worker_group = GroupPlan(kind.workers, (workers,), minimum - (not on_top))
        return (GroupPlan(leader.name, (leader,), 1), worker_group)
    roles = (leader, workers) if workers.replicas else (leader,)
    return (GroupPlan("gang", roles, minimum + on_top),)


def pools_serving(env: EnvironmentConfig, spec: DeviceClassSpec) -> list[GpuPoolConfig]:
    """GPU pools that publish devices of the class (see ``policy.infrastructure.device_classes.pool_serves``)."""
    return [p for p in env.gpu_pools if pool_serves(p, spec)]


def plan_gang(env: EnvironmentConfig, *, team: str, run_name: str, run: RunConfig) -> GangPlan:
    gates = effective_gates(env.feature_gates.control_plane)
    native = gang_scheduling_native(gates)
    # CompositePodGroup, TopologyAwareWorkloadScheduling and PodGroupPreemptionPolicy need GenericWorkload
    # (``policy.gates.rules.check_gates``): where they are on, the form is native.
    composite = run.hierarchical and Gate.COMPOSITE_POD_GROUP in gates
    # Without the Workload API a Job run is a plain indexed Job: nothing of it needs a gate.
    job = run.job and kind_of(run).indexed_job and (Gate.WORKLOAD_WITH_JOB in gates or not native)
    zone = run.topology is TopologyPreference.ZONE
    topology = zone and Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING in gates
    spec = DEVICE_CLASSES[run.device_class]
    classes = [spec] + ([DEVICE_CLASSES[run.shared_devices.device_class]] if run.shared_devices else [])
    taints = tuple(t for c in classes for p in pools_serving(env, c) for t in p.taints)
    groups = plan_groups(run, composite=composite)
    placement = efa_placement(pools_serving(env, spec), gpus=run.gpus_per_replica)
    efa = {
        role.name: placement.settings
        for group in groups
        for role in group.roles
        if role.gpus and placement.settings is not None
    }
    return GangPlan(
        team=team,
        run=run_name,
        namespace=env.platform.teams[team].namespace,
        template=run.template,
        tier=TIERS[run.tier],
        device_class=spec,
        groups=groups,
        composite=composite,
        job=job,
        topology_key=ZONE_LABEL if topology else None,
        preemption_policy=Gate.POD_GROUP_PREEMPTION_POLICY in gates,
        elastic=run.elastic,
        image=run.image,
        command=run.command,
        shared_devices=(
            (DEVICE_CLASSES[run.shared_devices.device_class], run.shared_devices.count)
            if run.shared_devices is not None
            else None
        ),
        tolerations=tuple(tuple(sorted(t.items())) for t in tolerations_for(taints)),
        efa=tuple(sorted(efa.items())),
        pools=placement.pools,
        processes_per_pod=processes_per_pod(run),
        shm_gib=run.shm_gib or max(1, run.memory_gib_per_replica // 4),
        checkpoint=(run.checkpoint.claim_name, run.checkpoint.mount_path) if run.checkpoint else None,
        readiness_command=run.readiness_command,
        native=native,
        zone_affinity_key=ZONE_LABEL if zone and not native else None,
    )
