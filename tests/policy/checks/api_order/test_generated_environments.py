"""API-before-use over generated environments covering every combination of the optional components,
and the check failing on a component that forgets its ordering."""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from policy.checks.api_order.check import api_before_use, assumed_api_groups
from tests.conftest import env_from
from tests.helpers import yaml_files
from tests.policy.checks.api_order.builtin import built_in_kinds

Synth = Callable[[str], dict[str, Any]]

GPU_SETUPS = ("dra", "dra+device-plugin", "device-plugin-only")
OBSERVABILITY = ("disabled", "none", "existing", "install", "install+managed-prometheus")
KARPENTER = (False, True)
AUTOSCALER_AND_EFA = (True, False)
"""On: the dev pools as shipped (Cluster Autoscaler for the l4 pool, EFA on p5); off: static pools, no EFA."""

_KARPENTER_POOL = {
    "name": "flex",
    "provider": "karpenter",
    "instance_types": ["g6e.12xlarge"],
    "zones": ["us-west-2a"],
    "zone_pinned": False,
    "max_size": 2,
    "karpenter": {"capacity_types": ["spot", "on_demand"]},
}
_DEVICE_PLUGIN_POOL = {
    "name": "inference",
    "instance_types": ["g6e.12xlarge"],
    "zones": ["us-west-2a"],
    "min_size": 2,
    "max_size": 2,
    "dra": False,
    "device_plugin": True,
}


def _environment(
    base: dict[str, Any], gpu: str, observability: str, karpenter: bool, autoscaler_and_efa: bool
) -> dict[str, Any]:
    data = copy.deepcopy(base)
    indexes = (GPU_SETUPS.index(gpu), OBSERVABILITY.index(observability), int(karpenter), int(autoscaler_and_efa))
    data["name"] = "combo-" + "-".join(map(str, indexes))
    data["cluster"]["name"] = f"gpu-{data['name']}"
    pools: list[dict[str, Any]] = data["gpu_pools"]

    if gpu != "dra":
        pools.append(copy.deepcopy(_DEVICE_PLUGIN_POOL))
    if gpu == "device-plugin-only":
        data["dra_driver"] = {"enabled": False}
        for pool in pools:
            pool.update(dra=False, device_plugin=True)
    if karpenter:
        pool = copy.deepcopy(_KARPENTER_POOL)
        if gpu == "device-plugin-only":
            pool.update(dra=False, device_plugin=True)
        pools.append(pool)
        # DRA on a Karpenter pool needs the unconfirmed 1.15.0; the device plugin runs on the pinned 1.14.1.
        data["karpenter"] = (
            {"acknowledge_unsupported_kubernetes": True}
            if gpu == "device-plugin-only"
            else {"version": "1.15.0", "acknowledge_unverified_release": True}
        )
    if not autoscaler_and_efa:
        for pool in pools:
            if pool.get("provider") != "karpenter":
                pool.update(scaling="static", min_size=pool["max_size"], efa=False)
    mode, _, extra = observability.partition("+")
    data["observability"] = {"enabled": False} if mode == "disabled" else {"prometheus": mode}
    if extra:
        data["observability"]["managed_prometheus"] = True
    return data


def _combinations() -> Iterator[tuple[str, str, bool, bool]]:
    yield from itertools.product(GPU_SETUPS, OBSERVABILITY, KARPENTER, AUTOSCALER_AND_EFA)


@pytest.fixture(scope="module")
def generated(dev_data_module: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every combination, synthesized as stacks of one CDK app (one jsii runtime; no cdk-nag), built
    the way every synthesis path builds it, on the commands' fast path (the shipped environments'
    tests keep jsii's argument checks)."""
    from accelerator.runtime import fast_path
    from charts.render import render_environment
    from stacks.app_options import new_app
    from stacks.cluster_stack import GpuClusterStack, stack_name

    outdir = tmp_path_factory.mktemp("api-order")
    app = new_app(outdir=str(outdir))
    envs = {}
    with fast_path():
        for combination in _combinations():
            env = env_from(_environment(dev_data_module, *combination))
            GpuClusterStack(app, stack_name(env), env=env, objects=render_environment(env, team_runs=[]).deployed())
            envs[stack_name(env)] = (combination, env)
        app.synth()
    return {
        name: (combination, env, json.loads((Path(outdir) / f"{name}.template.json").read_text()))
        for name, (combination, env) in envs.items()
    }


@pytest.fixture(scope="module")
def dev_data_module() -> dict[str, Any]:

    from config.load import REPO_ROOT

    data: dict[str, Any] = yaml_files.load((REPO_ROOT / "environments" / "dev.yaml").read_text())
    return data


@pytest.mark.synth
def test_every_combination_of_optional_components_applies_apis_after_they_exist(generated: dict[str, Any]) -> None:
    assert len(generated) == len(GPU_SETUPS) * len(OBSERVABILITY) * len(KARPENTER) * len(AUTOSCALER_AND_EFA)
    problems = {
        f"{name} {combination}": [str(v) for v in violations]
        for name, (combination, env, template) in generated.items()
        if (violations := api_before_use(template, built_in=built_in_kinds(), assumed_groups=assumed_api_groups(env)))
    }
    assert problems == {}


@pytest.mark.synth
def test_the_combinations_really_differ(generated: dict[str, Any]) -> None:
    charts = {
        combination: sorted(
            r["Properties"]["Chart"]
            for r in template["Resources"].values()
            if r["Type"] == "Custom::AWSCDK-EKS-HelmChart"
        )
        for combination, _, template in generated.values()
    }
    assert charts[("dra", "install", True, True)] == [
        "aws-efa-k8s-device-plugin",
        "cluster-autoscaler",
        "dra-driver-nvidia-gpu",
        "karpenter",
        "karpenter-crd",
        "kube-prometheus-stack",
    ]
    assert charts[("device-plugin-only", "existing", False, False)] == ["nvidia-device-plugin"]
    assert charts[("dra+device-plugin", "disabled", False, False)] == ["dra-driver-nvidia-gpu", "nvidia-device-plugin"]


def _id(template: dict[str, Any], prefix: str, kind: str = "Custom::AWSCDK-EKS-KubernetesResource") -> str:
    (found,) = [k for k, r in template["Resources"].items() if k.startswith(prefix) and r["Type"] == kind]
    return found


@pytest.mark.synth
def test_a_component_that_forgets_its_dependency_fails(synthesized: Synth) -> None:
    template = copy.deepcopy(synthesized("dev")["gpu-cluster-dev"])
    monitoring = _id(template, "ObservabilityMonitoring")
    chart = _id(template, "ObservabilityPrometheusChart", "Custom::AWSCDK-EKS-HelmChart")
    exporter = _id(template, "ObservabilityExporter")
    template["Resources"][monitoring]["DependsOn"] = [exporter]  # what the stack did before the chart existed
    violations = [str(v) for v in api_before_use(template, built_in=built_in_kinds())]
    assert violations[0] == (
        f"{monitoring}: ServiceMonitor/gpu-platform/gang-exporter uses monitoring.coreos.com/v1/ServiceMonitor: "
        f"not built into Kubernetes 1.37 and nothing it depends on installs it; add a dependency on {chart}"
    )
    assert len(violations) == 3  # two ServiceMonitors and the PrometheusRule


@pytest.mark.synth
def test_a_chart_without_a_row_and_a_manifest_using_its_own_crd_fail(synthesized: Synth) -> None:
    template = copy.deepcopy(synthesized("dev")["gpu-cluster-dev"])
    chart = _id(template, "ObservabilityPrometheusChart", "Custom::AWSCDK-EKS-HelmChart")
    template["Resources"][chart]["Properties"]["Chart"] = "new-chart"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced"},
    }
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}}
    template["Resources"]["Widgets"] = {
        "Type": "Custom::AWSCDK-EKS-KubernetesResource",
        "Properties": {"Manifest": json.dumps([crd, widget])},
    }
    violations = {v.logical_id: str(v) for v in api_before_use(template, built_in=built_in_kinds())}
    assert violations[chart] == f"{chart}: chart new-chart uses -: no row in catalog.versions.CHART_API_GROUPS"
    assert violations["Widgets"] == (
        "Widgets: Widget/default/w uses example.com/v1/Widget: not built into Kubernetes 1.37 and nothing it "
        "depends on installs it; no resource installs it"
    )
