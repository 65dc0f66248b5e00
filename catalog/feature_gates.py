"""The Kubernetes 1.37 feature gates that workload-aware scheduling depends on.

One registry, as data. Validation (``policy.gates.rules``), the kubelet NodeConfig, the
stack output and the field-level gate checks all read it; nothing else hard-codes a
gate name. Source: the 1.37 feature-gate reference and KEPs 4671, 5547, 5732, 5832.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Stage(StrEnum):
    ALPHA = "alpha"
    BETA = "beta"
    GA = "ga"
    REMOVED = "removed"


class Component(StrEnum):
    APISERVER = "kube-apiserver"
    SCHEDULER = "kube-scheduler"
    CONTROLLER_MANAGER = "kube-controller-manager"
    KUBELET = "kubelet"


CONTROL_PLANE = frozenset({Component.APISERVER, Component.SCHEDULER, Component.CONTROLLER_MANAGER})
ALL_COMPONENTS = CONTROL_PLANE | {Component.KUBELET}


class Gate:
    """Every gate name the registry knows: code names a gate through these, never a string literal."""

    GENERIC_WORKLOAD = "GenericWorkload"
    WORKLOAD_WITH_JOB = "WorkloadWithJob"
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING = "TopologyAwareWorkloadScheduling"
    COMPOSITE_POD_GROUP = "CompositePodGroup"
    POD_GROUP_PREEMPTION_POLICY = "PodGroupPreemptionPolicy"
    DRA_WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"
    DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation"
    DRA_EXTENDED_RESOURCE = "DRAExtendedResource"
    DRA_PARTITIONABLE_DEVICES = "DRAPartitionableDevices"
    DRA_CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
    DRA_DEVICE_BINDING_CONDITIONS = "DRADeviceBindingConditions"
    DRA_DEVICE_TAINTS = "DRADeviceTaints"
    DRA_DEVICE_TAINT_RULES = "DRADeviceTaintRules"
    GANG_SCHEDULING = "GangScheduling"
    WORKLOAD_AWARE_PREEMPTION = "WorkloadAwarePreemption"


@dataclass(frozen=True)
class FieldRef:
    """An API field a gate unlocks: ``kind`` plus a dotted path (``[]`` marks lists)."""

    kind: str
    path: str

    def __str__(self) -> str:
        return f"{self.kind}.{self.path}"


@dataclass(frozen=True)
class FeatureGate:
    name: str
    stage: Stage
    default: bool
    components: frozenset[Component]
    api_versions: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    unlocks: tuple[FieldRef, ...] = ()
    replaced_by: str | None = None

    @property
    def locked_on(self) -> bool:
        return self.stage is Stage.GA


def _f(kind: str, *paths: str) -> tuple[FieldRef, ...]:
    return tuple(FieldRef(kind, p) for p in paths)


_TEMPLATE = "spec.podGroupTemplates[]"
_COMPOSITE = "spec.compositePodGroupTemplates[]"

_GATES: tuple[FeatureGate, ...] = (
    FeatureGate(
        Gate.GENERIC_WORKLOAD,
        Stage.BETA,
        False,
        CONTROL_PLANE,
        api_versions=("scheduling.k8s.io/v1beta1",),
        unlocks=(
            *_f("Workload", "spec"),
            *_f("PodGroup", "spec"),
            *_f("Pod", "spec.schedulingGroup"),
            *_f("StatefulSet", "spec.template.spec.schedulingGroup"),
        ),
    ),
    FeatureGate(
        Gate.WORKLOAD_WITH_JOB,
        Stage.ALPHA,
        False,
        frozenset({Component.APISERVER, Component.CONTROLLER_MANAGER}),
        depends_on=("GenericWorkload",),
        unlocks=_f("Job", "spec.scheduling"),
    ),
    FeatureGate(
        Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
        Stage.ALPHA,
        False,
        frozenset({Component.APISERVER, Component.SCHEDULER}),
        depends_on=("GenericWorkload",),
        unlocks=(
            *_f(
                "Workload",
                f"{_TEMPLATE}.schedulingConstraints.topology",
                f"{_COMPOSITE}.schedulingConstraints.topology",
                f"{_COMPOSITE}.podGroupTemplates[].schedulingConstraints.topology",
            ),
            *_f("PodGroup", "spec.schedulingConstraints.topology"),
            *_f("CompositePodGroup", "spec.schedulingConstraints.topology"),
            *_f("Job", "spec.scheduling.schedulingConstraints.topology"),
        ),
    ),
    FeatureGate(
        Gate.COMPOSITE_POD_GROUP,
        Stage.ALPHA,
        False,
        CONTROL_PLANE,
        api_versions=("scheduling.k8s.io/v1alpha3",),
        depends_on=("GenericWorkload", "TopologyAwareWorkloadScheduling"),
        unlocks=(
            *_f("CompositePodGroup", "spec"),
            *_f("Workload", "spec.compositePodGroupTemplates"),
            *_f("PodGroup", "spec.parentCompositePodGroupName"),
        ),
    ),
    FeatureGate(
        Gate.POD_GROUP_PREEMPTION_POLICY,
        Stage.ALPHA,
        False,
        frozenset({Component.APISERVER, Component.SCHEDULER}),
        depends_on=("GenericWorkload",),
        unlocks=(
            *_f(
                "Workload",
                f"{_TEMPLATE}.preemptionPolicy",
                f"{_COMPOSITE}.preemptionPolicy",
                f"{_COMPOSITE}.podGroupTemplates[].preemptionPolicy",
            ),
            *_f("PodGroup", "spec.preemptionPolicy"),
            *_f("CompositePodGroup", "spec.preemptionPolicy"),
        ),
    ),
    FeatureGate(
        Gate.DRA_WORKLOAD_RESOURCE_CLAIMS,
        Stage.BETA,
        False,
        ALL_COMPONENTS,
        depends_on=("GenericWorkload", "DynamicResourceAllocation"),
        unlocks=(
            *_f("Workload", f"{_TEMPLATE}.resourceClaims", f"{_COMPOSITE}.podGroupTemplates[].resourceClaims"),
            *_f("PodGroup", "spec.resourceClaims"),
            *_f("Job", "spec.scheduling.resourceClaims"),
        ),
    ),
    FeatureGate(
        Gate.DYNAMIC_RESOURCE_ALLOCATION,
        Stage.GA,
        True,
        ALL_COMPONENTS,
        api_versions=("resource.k8s.io/v1",),
        unlocks=(*_f("DeviceClass", "spec"), *_f("ResourceClaimTemplate", "spec")),
    ),
    FeatureGate(
        Gate.DRA_EXTENDED_RESOURCE,
        Stage.GA,
        True,
        frozenset({Component.APISERVER, Component.SCHEDULER, Component.CONTROLLER_MANAGER, Component.KUBELET}),
        depends_on=("DynamicResourceAllocation",),
        unlocks=_f("DeviceClass", "spec.extendedResourceName"),
    ),
    FeatureGate(
        Gate.DRA_PARTITIONABLE_DEVICES,
        Stage.BETA,
        True,
        frozenset({Component.APISERVER, Component.SCHEDULER}),
        depends_on=("DynamicResourceAllocation",),
    ),
    FeatureGate(
        Gate.DRA_CONSUMABLE_CAPACITY,
        Stage.BETA,
        True,
        frozenset({Component.APISERVER, Component.SCHEDULER, Component.KUBELET}),
        depends_on=("DynamicResourceAllocation",),
    ),
    FeatureGate(
        Gate.DRA_DEVICE_BINDING_CONDITIONS,
        Stage.BETA,
        True,
        frozenset({Component.APISERVER, Component.SCHEDULER}),
        depends_on=("DynamicResourceAllocation",),
    ),
    FeatureGate(
        Gate.DRA_DEVICE_TAINTS,
        Stage.GA,
        True,
        frozenset({Component.APISERVER, Component.SCHEDULER, Component.CONTROLLER_MANAGER}),
        depends_on=("DynamicResourceAllocation",),
        unlocks=_f("ResourceClaimTemplate", "spec.spec.devices.requests[].exactly.tolerations"),
    ),
    FeatureGate(
        Gate.DRA_DEVICE_TAINT_RULES,
        Stage.GA,
        True,
        frozenset({Component.APISERVER, Component.SCHEDULER, Component.CONTROLLER_MANAGER}),
        depends_on=("DRADeviceTaints",),
    ),
    FeatureGate(Gate.GANG_SCHEDULING, Stage.REMOVED, False, CONTROL_PLANE, replaced_by=Gate.GENERIC_WORKLOAD),
    FeatureGate(Gate.WORKLOAD_AWARE_PREEMPTION, Stage.REMOVED, False, CONTROL_PLANE, replaced_by=Gate.GENERIC_WORKLOAD),
)

FEATURE_GATES: dict[str, FeatureGate] = {g.name: g for g in _GATES}
