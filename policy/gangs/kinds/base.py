"""What every gang template kind answers: the facts and hooks the planner, the checks, the renderer, the
summary and the launcher wiring ask of a run's ``template:``.

A kind is one small class (one module under ``policy/gangs/kinds/``) and one instance of it, ``KIND``.
Facts are class attributes; hooks are methods, with the defaults most kinds share.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from config.platform import GangTemplate, RunConfig
from policy.gangs.launch import (
    LABEL_VALUE_LIMIT,
    STATEFULSET_NAME_LIMIT,
    ConfigFile,
    GeneratedName,
    HeadlessService,
    Launch,
    gang_pods,
    pod_hostname,
    service_name,
)
from policy.gangs.shapes import GangPlan, Role


class PodController(StrEnum):
    """What creates a run's Pods (the Job form, ``job: true`` where the gates allow it, aside)."""

    PODS = "pods"
    """Bare Pods, one per place in the gang, named ``<workload>-<role>-<index>``."""
    STATEFUL_SETS = "stateful_sets"
    """A StatefulSet per role (``<workload>-<role>``), which replaces lost Pods, under a PodDisruptionBudget."""


class TemplateKind:
    """One gang template: the roles of its gang, what each role runs, and what it reads of a run file."""

    template: GangTemplate
    """The run file's ``template:`` value this kind serves."""
    leader: str
    """The single Pod the others find: rank 0, the leader, the launcher or the driver."""
    workers: str
    """The other Pods' group name (plural); their role is its singular."""
    leads_its_gang: bool
    """Rank 0 / the leader is one of ``replicas`` (same shape as the others); otherwise it is a CPU-only
    Pod on top of them (an MPI launcher, a Spark driver)."""
    unit: str
    """What ``replicas`` counts, in the refusal of ``replicas: 0``."""
    reads: frozenset[str] = frozenset()
    """Run fields only some kinds read (``config.validate_launch.KIND_FIELDS``) that this one does."""
    mounts: Mapping[str, str] = {}
    """Paths its containers mount on top of the platform's, with what they hold (a checkpoint volume
    may not cover them)."""
    indexed_job: bool = False
    """May run as one indexed Job (``job: true``, with ``WorkloadWithJob`` or in the fallback form)."""
    needs_ssh_key: bool = False
    """Mounts a per-run SSH key pair Secret, created before the run with ``make mpi-ssh-key``."""
    publishes_not_ready: bool = True
    """The identity Service's DNS lists Pods before they are ready (rank 0's rendezvous, the driver need
    the names at once)."""
    pod_controller: PodController = PodController.PODS

    # -- run file rules (``config.validate_launch.check_launch``) --------------------------------------

    def check_run(self, run: RunConfig, *, name: str) -> None:
        """The kind's own launch rules, after the shared ones; ``name`` is the run's file name."""

    # -- roles (``policy.gangs.plan.plan_groups``) --------------------------------------------------------

    def leader_role(self, run: RunConfig) -> Role:
        """The single pod that the others find; a CPU-only one (2 vCPUs, 8 GiB) when it comes on top."""
        if not self.leads_its_gang:
            return Role(self.leader, 1, 0, 2, 8)
        return Role(self.leader, 1, run.gpus_per_replica, run.cpu_per_replica, run.memory_gib_per_replica)

    def worker_role(self, run: RunConfig) -> Role:
        return Role(
            self.workers.removesuffix("s"),
            run.replicas - self.leads_its_gang,
            run.gpus_per_replica,
            run.cpu_per_replica,
            run.memory_gib_per_replica,
        )

    # -- launcher wiring (``charts.gangs``) ----------------------------------------------------------------

    def launch(self, plan: GangPlan, role: Role) -> Launch:
        """The container side of one role of a run."""
        raise NotImplementedError(f"template kind {self.template.value} says nothing of what its Pods run")

    def world_size(self, plan: GangPlan) -> int:
        """Processes that form the job's world; by default one per Pod."""
        return gang_pods(plan)

    def discovery(self, plan: GangPlan) -> str:
        """How the Pods find each other, in one line for reviewers (SUMMARY.md)."""
        raise NotImplementedError(f"template kind {self.template.value} says nothing of how its Pods meet")

    def services(self, plan: GangPlan) -> tuple[HeadlessService, ...]:
        """Headless Services besides the identity Service every run has."""
        return ()

    def config_files(self, plan: GangPlan) -> tuple[ConfigFile, ...]:
        """ConfigMaps the run's Pods mount."""
        return ()

    def own_names(self, plan: GangPlan) -> list[GeneratedName]:
        """Names of the kind's own objects (``services``) that a length limit applies to."""
        return []

    def generated_names(self, plan: GangPlan) -> list[GeneratedName]:
        """Every name built from the run's name that a length limit applies to: the Services, the Pods' names and
        hostnames (the longest index of each role), the StatefulSets or the Job, and the labels carrying it."""
        names = [
            GeneratedName("label gpu-platform.io/run", plan.run, LABEL_VALUE_LIMIT),
            GeneratedName("label app.kubernetes.io/part-of", plan.workload_name, LABEL_VALUE_LIMIT),
            GeneratedName("Service name", service_name(plan), LABEL_VALUE_LIMIT),
            *self.own_names(plan),
        ]
        if self.pod_controller is PodController.STATEFUL_SETS:
            names += [
                GeneratedName(
                    f"StatefulSet name ({role.name})", f"{plan.workload_name}-{role.name}", STATEFULSET_NAME_LIMIT
                )
                for role in plan.roles
            ]
        else:
            names += [
                GeneratedName(
                    f"Pod hostname ({role.name})", pod_hostname(plan, role, role.replicas - 1), LABEL_VALUE_LIMIT
                )
                for role in plan.roles
                if role.replicas
            ]
        if plan.job:
            names.append(GeneratedName("Job name", plan.workload_name, LABEL_VALUE_LIMIT))
        return names
