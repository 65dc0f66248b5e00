"""The two configurations the local control plane starts in.

- ``eks``: EKS 1.37 as AWS runs it: default gates, default API versions (AWS sets no alpha gate and
  no new off-by-default beta API; see ``../shared/docs/platform-facts.md``, "Amazon EKS").
- ``workload-aware``: the workload-aware scheduling gates on, each on the components the gate
  table (``catalog.feature_gates``) names, with the runtime-config their APIs need.

Either way the scheduler runs one profile, ``default-scheduler``, that changes only the
NodeResourcesFit scoring (the knob EKS exposes) and disables no plugin, so the GangScheduling
plugin that GenericWorkload adds stays in (a profile without it ignores ``minCount``,
kubernetes#139572).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from catalog.feature_gates import FEATURE_GATES, Component, Gate


class ConfigName(StrEnum):
    EKS = "eks"
    WORKLOAD_AWARE = "workload-aware"


WORKLOAD_AWARE_GATES = (
    Gate.GENERIC_WORKLOAD,
    Gate.TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
    Gate.WORKLOAD_WITH_JOB,
    Gate.COMPOSITE_POD_GROUP,
    Gate.DRA_WORKLOAD_RESOURCE_CLAIMS,
)
"""The workload-aware set. An environment that declares more (prod-example: PodGroupPreemptionPolicy)
gets them on top (``for_declared_gates``), never by default: with PodGroupPreemptionPolicy on, the
1.37 API server refuses a PodGroup that leaves ``preemptionPolicy`` unset under a ``Never``
PriorityClass (the default ``PreemptLowerPriority`` contradicts what Priority admission computes)."""


@dataclass(frozen=True)
class Configuration:
    name: ConfigName
    gates: tuple[str, ...]

    def feature_gates(self, component: Component) -> str:
        """``--feature-gates`` for ``component``: the configuration's gates that the component has, plus
        the gates those depend on (kube-controller-manager 1.37 refuses CompositePodGroup without
        TopologyAwareWorkloadScheduling, although the gate table lists no controller-manager use of it)."""
        on = [g for g in self.gates if component in FEATURE_GATES[g].components]
        pending = list(on)
        while pending:
            for dependency in FEATURE_GATES[pending.pop()].depends_on:
                if dependency in self.gates and dependency not in on:
                    on.append(dependency)
                    pending.append(dependency)
        return ",".join(f"{g}=true" for g in self.gates if g in on)

    def runtime_config(self) -> str:
        versions = sorted({v for g in self.gates for v in FEATURE_GATES[g].api_versions})
        return ",".join(f"{v}=true" for v in versions)


CONFIGURATIONS = {
    ConfigName.EKS: Configuration(ConfigName.EKS, ()),
    ConfigName.WORKLOAD_AWARE: Configuration(ConfigName.WORKLOAD_AWARE, WORKLOAD_AWARE_GATES),
}


def configuration(name: str) -> Configuration:
    """The configuration called ``name``; a one-line ValueError naming the choices otherwise."""
    try:
        return CONFIGURATIONS[ConfigName(name)]
    except ValueError:
        choices = ", ".join(c.value for c in ConfigName)
        raise ValueError(f"control-plane configuration: unknown {name!r}; use one of: {choices}") from None


def for_declared_gates(control_plane_gates: tuple[str, ...] | list[str]) -> Configuration:
    """The configuration an environment claims: workload-aware when it declares GenericWorkload (plus any
    further control-plane gate it declares), else eks."""
    if Gate.GENERIC_WORKLOAD not in control_plane_gates:
        return CONFIGURATIONS[ConfigName.EKS]
    extra = tuple(g for g in control_plane_gates if g not in WORKLOAD_AWARE_GATES)
    return Configuration(ConfigName.WORKLOAD_AWARE, WORKLOAD_AWARE_GATES + extra)


def scheduler_config(kubeconfig: str) -> str:
    """The KubeSchedulerConfiguration: one profile, default plugins (GangScheduling kept), no leader election."""
    return f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: {kubeconfig}
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: LeastAllocated
            resources:
              - name: cpu
                weight: 1
              - name: memory
                weight: 1
"""
