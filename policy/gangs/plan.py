"""Team run parameters -> a gang plan: roles, pod groups, priority, topology, names.

Everything the platform decides lives here, as pure functions: the tier gives priority,
preemption and disruption; the environment's gates decide which API fields may be used;
the name carries a content hash so a changed run yields new immutable objects.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import cached_property

from catalog.device_classes import DEVICE_CLASSES, DeviceClassSpec
from catalog.feature_gates import Gate
from catalog.labels import ZONE_LABEL
from catalog.priority_tiers import TIERS, TierSpec
from config.model import EnvironmentConfig, GpuPoolConfig
from config.platform import GangTemplate, RunConfig, TopologyPreference
from config.validate_launch import processes_per_pod
from policy.gates.rules import effective_gates, gang_scheduling_native
from policy.infrastructure.device_classes import pool_serves
from policy.infrastructure.efa import EfaPodSettings, efa_placement
from policy.infrastructure.node_pools import tolerations_for

DIGEST_LENGTH = 8
SHARED_CLAIM = "shared"
"""Claim a PodGroup makes once for its pods; pods consume it by declaring the same name and template."""


@dataclass(frozen=True)
class Role:
    """Identical pods of one kind in a gang (the coordinator, the workers, ...)."""

    name: str
    replicas: int
    gpus: int
    cpu: int
    memory_gib: int


@dataclass(frozen=True)
class GroupPlan:
    """One PodGroupTemplate and the PodGroup created from it."""

    name: str
    roles: tuple[Role, ...]
    min_count: int | None
    """Gang minimum; ``None`` schedules the group's pods one by one (basic policy)."""

    @property
    def replicas(self) -> int:
        return sum(r.replicas for r in self.roles)


@dataclass(frozen=True)
class GangPlan:
    team: str
    run: str
    namespace: str
    template: GangTemplate
    tier: TierSpec
    device_class: DeviceClassSpec
    groups: tuple[GroupPlan, ...]
    composite: bool
    job: bool
    topology_key: str | None
    """Zone key of the gang's topology constraint (native form with TopologyAwareWorkloadScheduling)."""
    preemption_policy: bool
    elastic: bool
    image: str
    command: tuple[str, ...]
    shared_devices: tuple[DeviceClassSpec, int] | None = None
    """DeviceClass and count of the claim each PodGroup makes once for all its pods."""
    tolerations: tuple[tuple[tuple[str, str], ...], ...] = field(default=())
    efa: tuple[tuple[str, EfaPodSettings], ...] = ()
    """EFA devices, huge pages and libfabric settings per GPU role, as the pools the run lands on have them."""
    pools: tuple[str, ...] = ()
    """Pools the GPU pods are pinned to (``policy.infrastructure.efa.efa_placement``): the serving pools differ in what
    EFA a pod gets, so the run keeps to one kind. Empty: any serving pool."""

    def efa_for(self, role: str) -> EfaPodSettings | None:
        return dict(self.efa).get(role)

    processes_per_pod: int = 1
    """Processes (ranks) each Pod starts: torchrun's ``--nproc-per-node``, the MPI hostfile's slots."""
    shm_gib: int = 1
    """Memory-backed ``/dev/shm`` of each Pod."""
    checkpoint: tuple[str, str] | None = None
    """PersistentVolumeClaim name and mount path, mounted in every Pod."""
    readiness_command: tuple[str, ...] = ()
    """A service Pod's own readiness check (the leader's adds the whole group)."""
    native: bool = True
    """Workload and PodGroups (GenericWorkload on): the gang starts whole or waits whole. ``False`` is the
    fallback form: the same Pods with no PodGroup, scheduled one by one (see ``FALLBACK_LOSES``)."""
    zone_affinity_key: str | None = None
    """Fallback form of ``topology: zone``: every Pod requires the zone of the run's other Pods."""

    @cached_property
    def digest(self) -> str:
        """Hash of what lands in the objects' specs: shapes, policy, devices, image; not prose or names."""
        payload: dict[str, object] = {
            "template": self.template.value,
            "groups": [asdict(g) for g in self.groups],
            "composite": self.composite,
            "job": self.job,
            "topology": self.topology_key,
            "priority": [self.tier.priority_class, self.tier.preemption_policy.value, self.tier.disruption_mode.value],
            "preemption_policy": self.preemption_policy,
            "device_class": self.device_class.name,
            "shared": [self.shared_devices[0].name, self.shared_devices[1]] if self.shared_devices else None,
            "image": self.image,
            "command": list(self.command),
            "tolerations": [dict(t) for t in self.tolerations],
            "launch": [self.processes_per_pod, self.shm_gib, self.checkpoint, list(self.readiness_command)],
        }
        if not self.native:
            payload["fallback"] = [self.zone_affinity_key]
        if self.efa:
            payload["efa"] = [[role, asdict(settings)] for role, settings in self.efa]
        if self.pools:
            payload["pools"] = list(self.pools)
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:DIGEST_LENGTH]

    @property
    def workload_name(self) -> str:
        return f"{self.run}-{self.digest}"

    @property
    def roles(self) -> tuple[Role, ...]:
        return tuple(r for g in self.groups for r in g.roles)

    @property
    def total_gpus(self) -> int:
        return sum(r.replicas * r.gpus for r in self.roles)

    @property
    def variant(self) -> str:
        if not self.native:
            return "fallback-job" if self.job else "fallback"
        return "job" if self.job else "composite" if self.composite else "flat"

    @property
    def gang_form(self) -> str:
        """What a gang gets on this cluster, in words (SUMMARY.md, ``make check``)."""
        if self.native:
            return "native gang scheduling: its PodGroups start whole or wait whole"
        zone = "; the zone Pod affinity keeps it in one zone" if self.zone_affinity_key else ""
        return f"fallback form (no PodGroup): loses the all-or-nothing start and whole-gang preemption{zone}"


FALLBACK_LOSES = (
    "Pods are scheduled one by one, so a partial start holds its GPUs while the rest wait; "
    "preemption takes single Pods, not the whole gang"
)
"""What the fallback form loses against native gang scheduling (GenericWorkload off: EKS 1.37 as AWS runs it)."""


LEADS_ITS_GANG = (GangTemplate.PYTORCH, GangTemplate.SERVICE)
"""Templates whose rank 0 / leader is one of ``replicas`` (same shape as the others); the
CPU-only MPI launcher and Spark driver come on top of their workers."""


def _leader_role(template: GangTemplate, run: RunConfig) -> Role:
    """The single pod that the others find: rank 0, the leader, the launcher or the driver."""
    if template in (GangTemplate.MPI, GangTemplate.SPARK):
        name = "launcher" if template is GangTemplate.MPI else "driver"
        return Role(name, 1, 0, 2, 8)
    name = "coordinator" if template is GangTemplate.PYTORCH else "leader"
    return Role(name, 1, run.gpus_per_replica, run.cpu_per_replica, run.memory_gib_per_replica)


_WORKER_NAMES = {
    GangTemplate.PYTORCH: "workers",
    GangTemplate.MPI: "workers",
    GangTemplate.SPARK: "executors",
    GangTemplate.SERVICE: "workers",
}


def plan_groups(run: RunConfig, *, composite: bool) -> tuple[GroupPlan, ...]:
    """The pod groups of a run: one gang of every Pod, or (composite) a group for the leader and one for the rest."""
    leader = _leader_role(run.template, run)
    on_top = run.template not in LEADS_ITS_GANG
    minimum = run.min_replicas if run.min_replicas is not None else run.replicas
    workers = Role(
        _WORKER_NAMES[run.template].removesuffix("s"),
        run.replicas - (not on_top),
        run.gpus_per_replica,
        run.cpu_per_replica,
        run.memory_gib_per_replica,
    )
    if composite:
        worker_group = GroupPlan(_WORKER_NAMES[run.template], (workers,), minimum - (not on_top))
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
    job = run.job and run.template is GangTemplate.PYTORCH and (Gate.WORKLOAD_WITH_JOB in gates or not native)
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
