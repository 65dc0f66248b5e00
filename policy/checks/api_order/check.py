"""The API-before-use property over one synthesized template (see the package docstring)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from addons.kube_prometheus_stack.pin import PROMETHEUS_OPERATOR_API_GROUP
from catalog import versions
from config.model import EnvironmentConfig
from config.observability import PrometheusMode
from policy.checks.api_order.template import (
    ApiUse,
    KubeResource,
    KubeResourceType,
    Template,
    direct_dependencies,
    kube_resources,
    transitive_dependencies,
)

BuiltIn = Collection[tuple[str, str]]
"""``(apiVersion, kind)`` pairs Kubernetes serves without a CRD."""


@dataclass(frozen=True)
class Violation:
    logical_id: str
    subject: str
    api: str
    problem: str

    def __str__(self) -> str:
        return f"{self.logical_id}: {self.subject} uses {self.api}: {self.problem}"


def assumed_api_groups(env: EnvironmentConfig) -> frozenset[str]:
    """API groups the environment states the cluster already serves (``make verify`` checks them)."""
    if env.observability.enabled and env.observability.prometheus is PrometheusMode.EXISTING:
        return frozenset({PROMETHEUS_OPERATOR_API_GROUP})
    return frozenset()


def _built_in(use: ApiUse, built_in: BuiltIn) -> bool:
    if use.kind is not None:
        return (use.api_version, use.kind) in built_in
    return any(api_version == use.api_version for api_version, _ in built_in)


def _provided(use: ApiUse, provides: Collection[str]) -> bool:
    return use.group in provides or (use.kind is not None and f"{use.group}/{use.kind}" in provides)


def _provides(resource: KubeResource, chart_api_groups: Mapping[str, Sequence[str]]) -> frozenset[str]:
    if resource.type is not KubeResourceType.HELM_CHART or resource.skip_crds:
        return resource.provides
    return frozenset(chart_api_groups.get(resource.chart or "", ()))


def api_before_use(
    template: Template,
    *,
    built_in: BuiltIn,
    chart_api_groups: Mapping[str, Sequence[str]] = versions.CHART_API_GROUPS,
    assumed_groups: Collection[str] = frozenset(),
) -> list[Violation]:
    """Every use of an API that is neither built in, nor assumed, nor installed by a dependency."""
    resources = {r.logical_id: r for r in kube_resources(template)}
    violations = [
        Violation(r.logical_id, f"chart {r.chart}", "-", "no row in catalog.versions.CHART_API_GROUPS")
        for r in resources.values()
        if r.type is KubeResourceType.HELM_CHART and r.chart not in chart_api_groups
    ]
    graph = direct_dependencies(template)
    for resource in resources.values():
        before = transitive_dependencies(graph, resource.logical_id)
        provided = {p for d in before if d in resources for p in _provides(resources[d], chart_api_groups)}
        for use in resource.uses:
            if _built_in(use, built_in) or use.group in assumed_groups or _provided(use, provided):
                continue
            installers = sorted(
                r.logical_id
                for r in resources.values()
                if r is not resource and _provided(use, _provides(r, chart_api_groups))
            )
            problem = f"not built into Kubernetes {versions.KUBERNETES_MINOR} and nothing it depends on installs it" + (
                f"; add a dependency on {', '.join(installers)}" if installers else "; no resource installs it"
            )
            violations.append(
                Violation(resource.logical_id, use.subject, f"{use.api_version}/{use.kind or '*'}", problem)
            )
    return violations
