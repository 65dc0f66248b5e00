"""What the simulation schedules: one job per gang, its GPU pods and timing."""

from __future__ import annotations

from dataclasses import dataclass

from catalog.device_classes import DeviceShape
from catalog.priority_tiers import TIERS, PreemptionPolicy, Tier
from config.platform import RunConfig
from policy.gangs.shapes import GroupPlan
from policy.infrastructure.capacity import PodShape


@dataclass(frozen=True)
class JobRequest:
    """One gang as submitted: a Workload and its PodGroups, reduced to what placement needs.

    ``required`` are the GPU pods the gang minimum needs at once; ``optional`` are elastic
    extras placed only if they fit when the gang binds. Pods without GPUs (launchers, drivers)
    never compete for GPU nodes in the model and are left out.
    """

    name: str
    """PodGroup (and Workload) name."""
    namespace: str
    template: str
    """Pod-group template name, the exporter's ``template`` label."""
    job_class: str
    tier: Tier
    device_class: DeviceShape
    required: tuple[PodShape, ...]
    optional: tuple[PodShape, ...]
    topology_zone: bool
    """Kept inside one zone (``schedulingConstraints.topology``)."""
    arrival_seconds: float
    duration_seconds: float | None
    """Run time once started; ``None`` runs until the end (standing load)."""
    team: str | None = None
    """Team whose run this is (``None``: a trace or a class without a team)."""
    run: RunConfig | None = None
    """The team-run parameters it was planned from, for rendering it as real objects."""

    @property
    def priority(self) -> int:
        return TIERS[self.tier].value

    @property
    def priority_class(self) -> str:
        return TIERS[self.tier].priority_class

    @property
    def preempts(self) -> bool:
        return TIERS[self.tier].preemption_policy is PreemptionPolicy.PREEMPT_LOWER_PRIORITY

    @property
    def gpus(self) -> int:
        """GPUs (or MIG slices) of the gang at full size."""
        return sum(p.devices for p in self.required + self.optional)


def gang_pods(
    groups: tuple[GroupPlan, ...], *, pools: tuple[str, ...] = ()
) -> tuple[tuple[PodShape, ...], tuple[PodShape, ...], str]:
    """(required, optional) GPU pods of a gang's groups, and the template label of its root group.

    As ``make check`` counts them: in a gang group, pods without GPUs count towards ``minCount``
    first; the rest of the minimum are GPU pods. A basic group's GPU pods are all required. ``pools``:
    the pools the run's GPU pods are pinned to (``GangPlan.pools``), which the scheduler keeps them to.
    """
    required: list[PodShape] = []
    optional: list[PodShape] = []
    for group in groups:
        shapes = [
            PodShape(role.gpus, role.cpu, role.memory_gib, pools) for role in group.roles for _ in range(role.replicas)
        ]
        gpu_pods = [s for s in shapes if s.devices]
        if group.min_count is None:
            required += gpu_pods
            continue
        minimum = max(0, group.min_count - (len(shapes) - len(gpu_pods)))
        required += gpu_pods[:minimum]
        optional += gpu_pods[minimum:]
    gang_groups = [g for g in groups if g.min_count is not None]
    template = gang_groups[-1].name if gang_groups else groups[0].name
    return tuple(required), tuple(optional), template
