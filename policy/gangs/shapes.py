"""What a gang plan is made of: its roles, its pod groups and the plan itself (data only).

``policy.gangs.plan`` builds a plan from a run; the template kinds (``policy.gangs.kinds``) shape its
roles and wire its containers; ``charts`` renders it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import cached_property

from catalog.device_classes import DeviceClassSpec
from catalog.priority_tiers import TierSpec
from config.platform import GangTemplate
from policy.infrastructure.efa import EfaPodSettings

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
