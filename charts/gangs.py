"""Gang runs: one construct renders a run's whole object set, as its template kind describes it.

A run renders the ``scheduling.k8s.io/v1beta1`` Workload, CompositePodGroups (when the
hierarchical form is on), PodGroups pointing back with ``spec.workloadRef``,
ResourceClaimTemplates on platform DeviceClasses, and the Pods that join their group
with ``spec.schedulingGroup`` — or, for the Job variant, one indexed Job with
``spec.scheduling`` whose controller creates the Workload and PodGroup itself. Service runs'
Pods come from StatefulSets (replaced when lost) under a PodDisruptionBudget. Every run has a
headless Service its Pods take stable DNS names from; what each container runs, how it finds its
peers and which objects of its own the run adds (a hostfile, a Service of ready workers) come from
the run's kind (``policy.gangs.kinds``). What creates the Pods is the kind's ``pod_controller``: each
controller has one renderer here.
"""

from __future__ import annotations

from typing import Any, Protocol

from cdk8s_plus_37 import k8s
from constructs import Construct

from addons.cluster_autoscaler.plan import GANG_POD_ANNOTATIONS
from catalog.efa import EFA_RESOURCE, HUGEPAGES_RESOURCE
from catalog.labels import DOMAIN, ELASTIC_ANNOTATION, POOL_LABEL
from catalog.launchers import MPI_CONFIG_DIR, SHM_PATH, SSH_DIR
from catalog.priority_tiers import DisruptionMode
from charts.ordering import SYNC_WAVE, sync_wave
from charts.quantities import int_or_string, quantity
from config.model import EnvironmentConfig
from config.platform import RunConfig
from policy.gangs import launch as wiring
from policy.gangs.kinds import PodController, kind_of
from policy.gangs.launch import EnvVar, Launch, Probe, hostfile_name, ssh_secret_name
from policy.gangs.plan import plan_gang
from policy.gangs.shapes import SHARED_CLAIM, GangPlan, GroupPlan, Role

ROOT_TEMPLATE = "gang"


def _meta(plan: GangPlan, name: str, kind: str, *, depth: int = 0, role: str | None = None) -> k8s.ObjectMeta:
    labels = {
        "app.kubernetes.io/managed-by": "gpu-platform",
        "app.kubernetes.io/part-of": plan.workload_name,
        f"{DOMAIN}/team": plan.team,
        f"{DOMAIN}/run": plan.run,
        f"{DOMAIN}/tier": plan.tier.tier.value,
    }
    if role is not None:
        labels[f"{DOMAIN}/role"] = role
    return k8s.ObjectMeta(
        name=name,
        namespace=plan.namespace,
        labels=labels,
        annotations={SYNC_WAVE: str(sync_wave(kind, depth=depth))},
    )


def _policy(group: GroupPlan) -> k8s.PodGroupSchedulingPolicyV1Beta1:
    if group.min_count is None:
        return k8s.PodGroupSchedulingPolicyV1Beta1(basic={})
    return k8s.PodGroupSchedulingPolicyV1Beta1(gang=k8s.GangSchedulingPolicyV1Beta1(min_count=group.min_count))


def _topology(plan: GangPlan) -> list[k8s.TopologyConstraintV1Beta1] | None:
    return [k8s.TopologyConstraintV1Beta1(key=plan.topology_key)] if plan.topology_key else None


def _preemption(plan: GangPlan) -> str | None:
    return plan.tier.preemption_policy.value if plan.preemption_policy else None


def _disruption(plan: GangPlan) -> dict[str, Any]:
    return {plan.tier.disruption_mode.value: {}}


def _composite_fields(plan: GangPlan) -> dict[str, Any]:
    """The root composite's policy, shared by its v1beta1 template and its v1alpha3 instance.

    Plain (snake_case) mappings, which both versions' typed structs accept and convert.
    """
    return {
        "scheduling_policy": {"gang": {"min_group_count": len(plan.groups)}},
        "priority_class_name": plan.tier.priority_class,
        "disruption_mode": _disruption(plan),
        "preemption_policy": _preemption(plan),
        "scheduling_constraints": {"topology": [{"key": plan.topology_key}]} if plan.topology_key else None,
    }


def _group_template(plan: GangPlan, group: GroupPlan, *, with_topology: bool) -> k8s.PodGroupTemplateV1Beta1:
    topology = _topology(plan) if with_topology else None
    return k8s.PodGroupTemplateV1Beta1(
        name=group.name,
        scheduling_policy=_policy(group),
        priority_class_name=plan.tier.priority_class,
        disruption_mode=_disruption(plan),
        preemption_policy=_preemption(plan),
        scheduling_constraints=k8s.PodGroupSchedulingConstraintsV1Beta1(topology=topology) if topology else None,
        resource_claims=(
            [k8s.PodGroupResourceClaimV1Beta1(name=SHARED_CLAIM, resource_claim_template_name=_shared_name(plan))]
            if plan.shared_devices
            else None
        ),
    )


def _shared_name(plan: GangPlan) -> str:
    return f"{plan.workload_name}-{SHARED_CLAIM}"


def _toleration(fields: dict[str, str]) -> k8s.Toleration:
    return k8s.Toleration(
        key=fields["key"], operator=fields["operator"], value=fields.get("value"), effect=fields["effect"]
    )


def _claim_template_name(plan: GangPlan, role: Role) -> str:
    return f"{plan.workload_name}-{role.name}-gpus"


def _env(var: EnvVar) -> k8s.EnvVar:
    if var.field_path is not None:
        return k8s.EnvVar(
            name=var.name, value_from=k8s.EnvVarSource(field_ref=k8s.ObjectFieldSelector(field_path=var.field_path))
        )
    return k8s.EnvVar(name=var.name, value=var.value)


def _probe(probe: Probe | None) -> k8s.Probe | None:
    if probe is None:
        return None
    return k8s.Probe(
        exec=k8s.ExecAction(command=list(probe.command)) if probe.command else None,
        tcp_socket=k8s.TcpSocketAction(port=int_or_string(probe.tcp_port)) if probe.tcp_port else None,
        period_seconds=5,
    )


def _volumes(plan: GangPlan, launch: Launch) -> tuple[list[k8s.Volume], list[k8s.VolumeMount]]:
    """/dev/shm for data loaders, the checkpoint claim, and the MPI hostfile and SSH key files."""
    volumes = [
        k8s.Volume(
            name="shm",
            empty_dir=k8s.EmptyDirVolumeSource(medium="Memory", size_limit=quantity(f"{plan.shm_gib}Gi")),
        )
    ]
    mounts = [k8s.VolumeMount(name="shm", mount_path=SHM_PATH)]
    if plan.checkpoint is not None:
        claim, path = plan.checkpoint
        volumes.append(
            k8s.Volume(
                name="checkpoint", persistent_volume_claim=k8s.PersistentVolumeClaimVolumeSource(claim_name=claim)
            )
        )
        mounts.append(k8s.VolumeMount(name="checkpoint", mount_path=path))
    if launch.hostfile:
        volumes.append(k8s.Volume(name="hostfile", config_map=k8s.ConfigMapVolumeSource(name=hostfile_name(plan))))
        mounts.append(k8s.VolumeMount(name="hostfile", mount_path=MPI_CONFIG_DIR, read_only=True))
    if launch.ssh_files:
        items = [k8s.KeyToPath(key=f.key, path=f.path, mode=0o400) for f in launch.ssh_files]
        volumes.append(
            k8s.Volume(name="ssh", secret=k8s.SecretVolumeSource(secret_name=ssh_secret_name(plan), items=items))
        )
        mounts.append(k8s.VolumeMount(name="ssh", mount_path=SSH_DIR, read_only=True))
    return volumes, mounts


def _pod_spec(
    plan: GangPlan, role: Role, *, pod_group: str | None, restart_policy: str, hostname: str | None = None
) -> k8s.PodSpec:
    """Every gang Pod's spec (bare Pods, Job and StatefulSet templates): the one place a Pod is shaped."""
    claims = []
    if role.gpus:
        claims.append(k8s.PodResourceClaim(name="gpus", resource_claim_template_name=_claim_template_name(plan, role)))
    if plan.shared_devices:
        claims.append(k8s.PodResourceClaim(name=SHARED_CLAIM, resource_claim_template_name=_shared_name(plan)))
    launch = kind_of(plan).launch(plan, role)
    volumes, mounts = _volumes(plan, launch)
    # EFA devices and the EFA driver's huge pages on EFA pools, requests = limits (Kubernetes requires it
    # of huge pages); libfabric's settings come from wiring.pod_env. Huge pages need no volume: libfabric
    # maps them anonymously, which the pod's hugetlb limit allows.
    efa = plan.efa_for(role.name)
    efa_requests = (
        {EFA_RESOURCE: quantity(efa.efa_devices), HUGEPAGES_RESOURCE: quantity(f"{efa.hugepages_mib}Mi")} if efa else {}
    )
    init = (
        [
            k8s.Container(
                name="wait-for-workers", image=plan.image, command=list(launch.wait_command), volume_mounts=mounts
            )
        ]
        if launch.wait_command
        else None
    )
    return k8s.PodSpec(
        hostname=hostname,
        subdomain=wiring.service_name(plan),
        init_containers=init,
        containers=[
            k8s.Container(
                name=role.name,
                image=plan.image,
                command=list(launch.command) or None,
                env=[_env(v) for v in (*wiring.pod_env(plan, role), *launch.env)],
                ports=[k8s.ContainerPort(name=n, container_port=p) for n, p in launch.ports] or None,
                readiness_probe=_probe(launch.readiness),
                volume_mounts=mounts,
                resources=k8s.ResourceRequirements(
                    requests={
                        "cpu": quantity(role.cpu),
                        "memory": quantity(f"{role.memory_gib}Gi"),
                        **efa_requests,
                    },
                    limits={"memory": quantity(f"{role.memory_gib}Gi"), **efa_requests},
                    claims=[k8s.ResourceClaim(name=c.name) for c in claims] or None,
                ),
            )
        ],
        volumes=volumes,
        resource_claims=claims or None,
        scheduling_group=k8s.PodSchedulingGroup(pod_group_name=pod_group) if pod_group else None,
        priority_class_name=plan.tier.priority_class,
        tolerations=[_toleration(dict(t)) for t in plan.tolerations] if claims else None,
        affinity=_affinity(plan, role),
        restart_policy=restart_policy,
    )


def _affinity(plan: GangPlan, role: Role) -> k8s.Affinity | None:
    """A GPU Pod's pool pin (EFA) and its fallback zone affinity; none for CPU-only Pods."""
    if not role.gpus:
        return None
    node, pod = _pool_affinity(plan), _zone_affinity(plan, role)
    return k8s.Affinity(node_affinity=node, pod_affinity=pod) if node or pod else None


def _zone_affinity(plan: GangPlan, role: Role) -> k8s.PodAffinity | None:
    """Fallback ``topology: zone``: each GPU Pod requires the zone of the run's GPU Pods already placed.

    The first may go anywhere (kube-scheduler admits a Pod that matches its own required term when no
    Pod matches it yet); the rest follow it into its zone. CPU-only Pods (an MPI launcher, a Spark
    driver) neither carry nor match the term: they run on system nodes, whose zone must not steer the GPUs.
    """
    if plan.zone_affinity_key is None or not role.gpus:
        return None
    gpu_roles = sorted({r.name for r in plan.roles if r.gpus})
    term = k8s.PodAffinityTerm(
        topology_key=plan.zone_affinity_key,
        label_selector=k8s.LabelSelector(
            match_labels={"app.kubernetes.io/part-of": plan.workload_name},
            match_expressions=[k8s.LabelSelectorRequirement(key=f"{DOMAIN}/role", operator="In", values=gpu_roles)],
        ),
    )
    return k8s.PodAffinity(required_during_scheduling_ignored_during_execution=[term])


def _pool_affinity(plan: GangPlan) -> k8s.NodeAffinity | None:
    """GPU pods kept to the pools the plan is pinned to (pools that give them the same EFA settings)."""
    if not plan.pools:
        return None
    requirement = k8s.NodeSelectorRequirement(key=POOL_LABEL, operator="In", values=list(plan.pools))
    return k8s.NodeAffinity(
        required_during_scheduling_ignored_during_execution=k8s.NodeSelector(
            node_selector_terms=[k8s.NodeSelectorTerm(match_expressions=[requirement])]
        )
    )


class _GangObjects:
    """Renders a plan's objects under ``scope``, in creation order."""

    def __init__(self, scope: Construct, plan: GangPlan) -> None:
        self.scope = scope
        self.plan = plan
        self.kind = kind_of(plan)

    def render(self) -> None:
        plan = self.plan
        self._claim_templates()
        self._network()
        if plan.job:
            self._job()
            return
        if not plan.native:
            for group in plan.groups:
                self._pods(group, pod_group=None)
            return
        self._workload()
        parent = None
        if plan.composite:
            parent = f"{plan.workload_name}-{ROOT_TEMPLATE}"
            k8s.KubeCompositePodGroupV1Alpha3(
                self.scope,
                "CompositePodGroup",
                metadata=_meta(plan, parent, "CompositePodGroup"),
                spec=k8s.CompositePodGroupSpecV1Alpha3(
                    workload_ref=k8s.WorkloadReferenceV1Alpha3(
                        workload_name=plan.workload_name, template_name=ROOT_TEMPLATE
                    ),
                    **_composite_fields(plan),
                ),
            )
        for group in plan.groups:
            name = f"{plan.workload_name}-{group.name}"
            template = _group_template(plan, group, with_topology=not plan.composite)
            k8s.KubePodGroupV1Beta1(
                self.scope,
                f"PodGroup-{group.name}",
                metadata=_meta(plan, name, "PodGroup"),
                spec=k8s.PodGroupSpecV1Beta1(
                    workload_ref=k8s.WorkloadReferenceV1Beta1(
                        workload_name=plan.workload_name, template_name=group.name
                    ),
                    parent_composite_pod_group_name=parent,
                    resource_claims=template.resource_claims,
                    scheduling_policy=template.scheduling_policy,
                    priority_class_name=template.priority_class_name,
                    disruption_mode=template.disruption_mode,
                    preemption_policy=template.preemption_policy,
                    scheduling_constraints=template.scheduling_constraints,
                ),
            )
            self._pods(group, pod_group=name)

    def _workload(self) -> None:
        plan = self.plan
        if plan.composite:
            spec = k8s.WorkloadSpecV1Beta1(
                composite_pod_group_templates=[
                    k8s.CompositePodGroupTemplateV1Beta1(
                        name=ROOT_TEMPLATE,
                        pod_group_templates=[_group_template(plan, g, with_topology=False) for g in plan.groups],
                        **_composite_fields(plan),
                    )
                ]
            )
        else:
            spec = k8s.WorkloadSpecV1Beta1(
                pod_group_templates=[_group_template(plan, g, with_topology=True) for g in plan.groups]
            )
        meta = _meta(plan, plan.workload_name, "Workload")
        if plan.elastic:
            meta = k8s.ObjectMeta(
                name=meta.name,
                namespace=meta.namespace,
                labels=meta.labels,
                annotations={**(meta.annotations or {}), ELASTIC_ANNOTATION: "true"},
            )
        k8s.KubeWorkloadV1Beta1(self.scope, "Workload", metadata=meta, spec=spec)

    def _claim_templates(self) -> None:
        plan = self.plan
        # A Job's Pods all come from one template, the last role's (index 0 is rank 0): only it claims.
        roles = plan.roles[-1:] if plan.job else plan.roles
        for role in roles:
            if role.gpus:
                self._claim_template(_claim_template_name(plan, role), plan.device_class.name, role.gpus, role.name)
        if plan.shared_devices:
            device_class, count = plan.shared_devices
            self._claim_template(_shared_name(plan), device_class.name, count, None)

    def _claim_template(self, name: str, device_class: str, count: int, role: str | None) -> None:
        k8s.KubeResourceClaimTemplate(
            self.scope,
            f"Claims-{name}",
            metadata=_meta(self.plan, name, "ResourceClaimTemplate", role=role),
            spec=k8s.ResourceClaimTemplateSpec(
                spec=k8s.ResourceClaimSpec(
                    devices=k8s.DeviceClaim(
                        requests=[
                            k8s.DeviceRequest(
                                name="devices" if role is None else "gpus",
                                exactly=k8s.ExactDeviceRequest(device_class_name=device_class, count=count),
                            ),
                        ]
                    )
                )
            ),
        )

    def _network(self) -> None:
        """The headless Service every Pod's stable name hangs off, plus the kind's own Services and ConfigMaps
        (the MPI hostfile)."""
        plan, kind = self.plan, self.kind
        ports = sorted({p for role in plan.roles for p in kind.launch(plan, role).ports})
        self._headless(wiring.service_name(plan), None, ports, publish_not_ready=kind.publishes_not_ready)
        for service in kind.services(plan):
            self._headless(service.name, service.role, [], publish_not_ready=service.publish_not_ready)
        for config in kind.config_files(plan):
            k8s.KubeConfigMap(
                self.scope,
                config.construct_id,
                metadata=_meta(plan, config.name, "ConfigMap"),
                data=dict(config.data),
            )

    def _headless(self, name: str, role: str | None, ports: list[tuple[str, int]], *, publish_not_ready: bool) -> None:
        plan = self.plan
        selector = {"app.kubernetes.io/part-of": plan.workload_name} | ({f"{DOMAIN}/role": role} if role else {})
        k8s.KubeService(
            self.scope,
            f"Service-{name}",
            metadata=_meta(plan, name, "Service"),
            spec=k8s.ServiceSpec(
                cluster_ip="None",
                selector=selector,
                publish_not_ready_addresses=publish_not_ready,
                ports=[k8s.ServicePort(name=n, port=p, target_port=int_or_string(p)) for n, p in ports] or None,
            ),
        )

    def _pods(self, group: GroupPlan, *, pod_group: str | None) -> None:
        """The group's Pods, made by the kind's controller."""
        _CONTROLLERS[self.kind.pod_controller](self, group, pod_group=pod_group)

    def _bare_pods(self, group: GroupPlan, *, pod_group: str | None) -> None:
        """One Pod per place in the gang, labelled with its rank."""
        plan = self.plan
        ranks = {(r.name, i): rank for r, i, rank in wiring.pod_ranks(plan)}
        for role in group.roles:
            for index in range(role.replicas):
                name = wiring.pod_hostname(plan, role, index)
                meta = _meta(plan, name, "Pod", role=role.name)
                annotations = {**(meta.annotations or {}), **GANG_POD_ANNOTATIONS}
                k8s.KubePod(
                    self.scope,
                    f"Pod-{role.name}-{index}",
                    metadata=k8s.ObjectMeta(
                        name=name,
                        namespace=meta.namespace,
                        labels={**(meta.labels or {}), wiring.RANK_LABEL: str(ranks[(role.name, index)])},
                        annotations=annotations,
                    ),
                    spec=_pod_spec(plan, role, pod_group=pod_group, restart_policy="Never", hostname=name),
                )

    def _stateful_sets(self, group: GroupPlan, *, pod_group: str | None) -> None:
        """Service roles: a StatefulSet each (replaces lost Pods, keeps their names), all Pods created at once."""
        plan = self.plan
        for role in group.roles:
            meta = _meta(plan, f"{plan.workload_name}-{role.name}", "StatefulSet", role=role.name)
            selector = {"app.kubernetes.io/part-of": plan.workload_name, f"{DOMAIN}/role": role.name}
            k8s.KubeStatefulSet(
                self.scope,
                f"StatefulSet-{role.name}",
                metadata=meta,
                spec=k8s.StatefulSetSpec(
                    service_name=wiring.service_name(plan),
                    replicas=role.replicas,
                    # OrderedReady would create Pod 1 only once Pod 0 is ready, but Pod 0 cannot be
                    # scheduled before the gang's minCount Pods exist: the gang would never start.
                    pod_management_policy="Parallel",
                    selector=k8s.LabelSelector(match_labels=selector),
                    template=k8s.PodTemplateSpec(
                        metadata=k8s.ObjectMeta(labels=meta.labels, annotations=dict(GANG_POD_ANNOTATIONS)),
                        spec=_pod_spec(plan, role, pod_group=pod_group, restart_policy="Always"),
                    ),
                ),
            )
        if group is plan.groups[-1]:
            self._disruption_budget()

    def _disruption_budget(self) -> None:
        """Voluntary evictions as the tier's disruption mode allows: none of a whole-gang (``all``) run."""
        plan = self.plan
        whole_gang = plan.tier.disruption_mode is DisruptionMode.ALL
        k8s.KubePodDisruptionBudget(
            self.scope,
            "PodDisruptionBudget",
            metadata=_meta(plan, plan.workload_name, "PodDisruptionBudget"),
            spec=k8s.PodDisruptionBudgetSpec(
                max_unavailable=int_or_string(0 if whole_gang else 1),
                selector=k8s.LabelSelector(match_labels={"app.kubernetes.io/part-of": plan.workload_name}),
                # A crash-looping Pod must not block node drains forever.
                unhealthy_pod_eviction_policy="AlwaysAllow",
            ),
        )

    def _job(self) -> None:
        plan = self.plan
        (group,) = plan.groups
        worker = group.roles[-1]
        replicas = group.replicas
        meta = _meta(plan, plan.workload_name, "Job", role=worker.name)
        k8s.KubeJob(
            self.scope,
            "Job",
            metadata=meta,
            spec=k8s.JobSpec(
                completion_mode="Indexed",
                completions=replicas,
                parallelism=replicas,
                backoff_limit=0,
                scheduling=self._job_scheduling(group) if plan.native else None,
                template=k8s.PodTemplateSpec(
                    metadata=k8s.ObjectMeta(labels=meta.labels, annotations=dict(GANG_POD_ANNOTATIONS)),
                    spec=_pod_spec(plan, worker, pod_group=None, restart_policy="Never"),
                ),
            ),
        )

    def _job_scheduling(self, group: GroupPlan) -> k8s.JobSchedulingConfiguration:
        plan = self.plan
        return k8s.JobSchedulingConfiguration(
            scheduling_policy=k8s.WorkloadPodGroupSchedulingPolicyV1Alpha3(
                gang=k8s.WorkloadPodGroupGangSchedulingPolicyV1Alpha3(min_count=group.min_count)
            ),
            scheduling_constraints=(
                k8s.WorkloadPodGroupSchedulingConstraintsV1Alpha3(
                    topology=[k8s.TopologyConstraintV1Alpha3(key=plan.topology_key)]
                )
                if plan.topology_key
                else None
            ),
            disruption_mode=_disruption(plan),
            resource_claims=(
                [
                    k8s.WorkloadPodGroupResourceClaimV1Alpha3(
                        name=SHARED_CLAIM, resource_claim_template_name=_shared_name(plan)
                    )
                ]
                if plan.shared_devices
                else None
            ),
        )


class _PodRenderer(Protocol):
    def __call__(self, objects: _GangObjects, group: GroupPlan, /, *, pod_group: str | None) -> None: ...


_CONTROLLERS: dict[PodController, _PodRenderer] = {
    PodController.PODS: _GangObjects._bare_pods,
    PodController.STATEFUL_SETS: _GangObjects._stateful_sets,
}
"""The renderer of each way a kind's Pods are created."""


class GangRun(Construct):
    """One team run of any template: its plan (``policy.gangs.plan.plan_gang``) and every object of it."""

    def __init__(
        self, scope: Construct, construct_id: str, *, env: EnvironmentConfig, team: str, run_name: str, run: RunConfig
    ) -> None:
        super().__init__(scope, construct_id)
        self.plan = plan_gang(env, team=team, run_name=run_name, run=run)
        _GangObjects(self, self.plan).render()
