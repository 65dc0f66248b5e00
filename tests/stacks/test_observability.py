"""Gang observability in the shipped stacks: the exporter's image and manifests, the Operator objects only
where an Operator runs, after what they need, and the managed Prometheus workspace with its outputs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from stacks.observability import _image_platform

Synth = Callable[[str], dict[str, Any]]


def _with_system_types(*types: str) -> EnvironmentConfig:
    env = load_environment(name="dev")
    changed: EnvironmentConfig = env.model_copy(
        update={"system_nodes": env.system_nodes.model_copy(update={"instance_types": types})}
    )
    return changed


@pytest.mark.parametrize(
    ("types", "platform"),
    [(("m7g.large",), "linux/arm64"), (("m7i.large",), "linux/amd64"), (("m7g.large", "m7i.large"), "linux/amd64")],
)
def test_the_exporter_image_is_built_for_the_system_nodes(types: tuple[str, ...], platform: str) -> None:
    assert _image_platform(_with_system_types(*types)).platform == platform


def _manifests(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        k: r
        for k, r in template["Resources"].items()
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource" and k.startswith("Observability")
    }


def _one(resources: dict[str, dict[str, Any]], prefix: str) -> tuple[str, dict[str, Any]]:
    ((found),) = [(k, r) for k, r in resources.items() if k.startswith(prefix)]
    return found


def _kinds(resource: dict[str, Any]) -> set[str]:
    """The kinds a manifest applies (a JSON string, joined with the image URI where it names the image)."""
    manifest = resource["Properties"]["Manifest"]
    text = manifest if isinstance(manifest, str) else "".join(p for p in manifest["Fn::Join"][1] if isinstance(p, str))
    return set(re.findall(r'"kind":"(\w+)"', text.replace("\\", "")))


def test_dev_applies_the_operator_objects_after_the_exporter_and_the_prometheus_release(synthesized: Synth) -> None:
    template = synthesized("dev")["gpu-cluster-dev"]
    manifests = _manifests(template)
    exporter_id, exporter = _one(manifests, "ObservabilityExporter")
    _, monitoring = _one(manifests, "ObservabilityMonitoring")
    assert "Deployment" in _kinds(exporter) and "ServiceMonitor" not in _kinds(exporter)
    assert {"ServiceMonitor", "PrometheusRule"} <= _kinds(monitoring)
    (chart_id,) = [k for k in template["Resources"] if k.startswith("ObservabilityPrometheusChart")]
    assert {exporter_id, chart_id} <= set(monitoring["DependsOn"])
    image = json.dumps(exporter["Properties"]["Manifest"])
    assert "cdk-hnb659fds-container-assets" in image  # the exporter image asset's URI, not a placeholder


def test_without_an_operator_no_operator_object_is_applied(synthesized: Synth) -> None:
    manifests = _manifests(synthesized("ci")["gpu-cluster-ci"])
    assert [k for k in manifests if k.startswith("ObservabilityMonitoring")] == []
    _, exporter = _one(manifests, "ObservabilityExporter")
    assert not {"ServiceMonitor", "PrometheusRule"} & _kinds(exporter)


def test_prod_remote_writes_to_a_retained_workspace_and_outputs_it(synthesized: Synth) -> None:
    template = synthesized("prod-example")["gpu-cluster-prod-example"]
    ((workspace_id, workspace),) = [
        (k, r) for k, r in template["Resources"].items() if r["Type"] == "AWS::APS::Workspace"
    ]
    assert workspace["Properties"]["Alias"] == "gpu-prod-gang-metrics"
    assert workspace["DeletionPolicy"] == "RetainExceptOnCreate"
    outputs = template["Outputs"]
    assert outputs["ManagedPrometheusWorkspaceId"]["Value"] == {"Fn::GetAtt": [workspace_id, "WorkspaceId"]}
    url = outputs["ManagedPrometheusRemoteWriteUrl"]["Value"]
    assert url == {"Fn::Join": ["", [{"Fn::GetAtt": [workspace_id, "PrometheusEndpoint"]}, "api/v1/remote_write"]]}
