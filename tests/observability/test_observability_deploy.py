"""Gang observability rendered into dist/ and deployed by the cluster stack."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kubernetes_validate
import promql_parser
import pytest

from catalog.priority_tiers import TIERS
from charts.observability import environment_objects
from charts.render import output_files, render_environment
from config.load import REPO_ROOT
from observability.dashboard import dashboard_json
from observability.manifests import APP_NAME, DIST_IMAGE, is_operator_object, with_exporter_image
from policy.environment.load import load_environment
from stacks.platform_objects import PAYLOAD_BUDGET_BYTES
from tests.conftest import EXAMPLE_ENVIRONMENTS, env_from, shipped_render
from tests.helpers import yaml_files

DIST = REPO_ROOT / "dist"
Synth = Callable[[str], dict[str, Any]]
KUBERNETES_RESOURCE = "Custom::AWSCDK-EKS-KubernetesResource"


def _dist_objects(env_name: str) -> list[dict[str, Any]]:
    return [o for o in yaml_files.load_all((DIST / env_name / "observability.yaml").read_text()) if o]


def _alerts(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    return [r for group in rule["spec"]["groups"] for r in group["rules"] if "alert" in r]


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_built_in_kinds_validate_strictly_and_the_rest_are_operator_kinds(env_name: str) -> None:
    objects = _dist_objects(env_name)
    built_in = [o for o in objects if not is_operator_object(o)]
    assert {o["kind"] for o in built_in} == {
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
        "Service",
        "ConfigMap",
    }
    for obj in built_in:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)
    operator = sorted(o["kind"] for o in objects if is_operator_object(o))
    assert operator == ["PrometheusRule", "ServiceMonitor", "ServiceMonitor"]


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_dist_names_the_placeholder_image(env_name: str) -> None:
    (deployment,) = [o for o in _dist_objects(env_name) if o["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == DIST_IMAGE


def test_the_stack_deploys_the_dist_objects_with_only_the_exporter_image_changed() -> None:
    objects = _dist_objects("dev")
    deployed = with_exporter_image(objects, "123456789012.dkr.ecr.us-west-2.amazonaws.com/exporter:abc")
    changed = [(before["kind"], after) for before, after in zip(objects, deployed, strict=True) if before != after]
    assert [kind for kind, _ in changed] == ["Deployment"]
    (container,) = changed[0][1]["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "123456789012.dkr.ecr.us-west-2.amazonaws.com/exporter:abc"
    assert _dist_objects("dev") == objects  # the rendered objects are left as they were
    with pytest.raises(ValueError, match="expected one gang-exporter container naming gang-exporter:dist"):
        with_exporter_image(deployed, "another:image")  # nothing left to replace: not silently kept


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_tier_objectives_from_config_are_the_pending_alerts(env_name: str) -> None:
    env = load_environment(name=env_name)
    alerts = _alerts(_dist_objects(env_name))
    for alert in alerts:
        promql_parser.parse(alert["expr"])
    pending = {a["labels"]["tier"]: a["expr"] for a in alerts if a["alert"] == "GangPendingOverObjective"}
    expected = {TIERS[t].priority_class: s for t, s in env.observability.tier_objectives_seconds.items()}
    assert set(pending) == set(expected)
    for priority_class, seconds in expected.items():
        assert f'priority_class="{priority_class}"' in pending[priority_class]
        assert pending[priority_class].endswith(f"> {seconds}")


def test_configured_thresholds_reach_the_alerts(dev_data: dict[str, Any]) -> None:
    dev_data["observability"] = {
        "tier_objectives_seconds": {"deadline": 1200},
        "pending_groups_threshold": 4,
        "repeated_preemptions": 2,
    }
    objects = environment_objects(env_from(dev_data))
    alerts = {a["alert"] + a["labels"].get("tier", ""): a["expr"] for a in _alerts(objects)}
    assert alerts["GangPendingOverObjectivegpu-deadline"].endswith("> 1200")
    assert alerts["GangPendingGroupsHigh"].endswith("> 4")
    assert alerts["GangPreemptedRepeatedly"].endswith(">= 2")


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_dashboard_json_in_dist(env_name: str) -> None:
    assert (DIST / env_name / "grafana-dashboard.json").read_text() == dashboard_json()
    (configmap,) = [o for o in _dist_objects(env_name) if o["kind"] == "ConfigMap"]
    assert list(configmap["data"].values()) == [dashboard_json()]


def test_disabled_renders_nothing(dev_data: dict[str, Any]) -> None:
    dev_data["observability"] = {"enabled": False}
    env = env_from(dev_data)
    files = output_files(env, render_environment(env))
    assert "observability.yaml" not in files and "grafana-dashboard.json" not in files
    assert not any(APP_NAME in text for text in files.values())


def test_platform_namespace_is_reused_and_another_is_created(dev_data: dict[str, Any]) -> None:
    assert [o for o in environment_objects(load_environment(name="dev")) if o["kind"] == "Namespace"] == []
    dev_data["observability"] = {"namespace": "gang-metrics"}
    objects = environment_objects(env_from(dev_data))
    namespace = objects[0]
    assert (namespace["kind"], namespace["metadata"]["name"]) == ("Namespace", "gang-metrics")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    kubernetes_validate.validate(namespace, "1.37.0", strict=True)
    assert {o["metadata"].get("namespace") for o in objects[1:]} == {"gang-metrics", None}


def test_observability_is_not_a_platform_objects_file() -> None:
    rendered = shipped_render("dev")
    assert "observability.yaml" in rendered.files
    assert "observability.yaml" not in rendered.cluster_scoped()


# The synthesized cluster stacks (shared session fixture: one synthesis per environment).


def _manifests(template: dict[str, Any]) -> dict[str, str]:
    """Logical id -> manifest JSON text (image tokens rendered as a marker)."""
    out = {}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != KUBERNETES_RESOURCE or not logical_id.startswith("Observability"):
            continue
        manifest = resource["Properties"]["Manifest"]
        if isinstance(manifest, dict):
            manifest = "".join(p if isinstance(p, str) else "<image>" for p in manifest["Fn::Join"][1])
        out[logical_id] = manifest
    return out


def _by_prefix(manifests: dict[str, str], prefix: str) -> list[dict[str, Any]]:
    (text,) = [text for logical_id, text in manifests.items() if logical_id.startswith(prefix)]
    objects: list[dict[str, Any]] = json.loads(text)
    return objects


@pytest.mark.synth
def test_dev_stack_deploys_the_exporter_from_its_image_asset(synthesized: Synth) -> None:
    templates = synthesized("dev")
    template = templates["gpu-cluster-dev"]
    manifests = _manifests(template)
    exporter = _by_prefix(manifests, "ObservabilityExporter")
    assert [o["kind"] for o in exporter] == [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
        "Service",
        "ClusterRole",
        "ConfigMap",
    ]
    (deployment,) = [o for o in exporter if o["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "<image>"
    assert sorted(o["kind"] for o in _by_prefix(manifests, "ObservabilityMonitoring")) == [
        "ClusterRoleBinding",
        "PrometheusRule",
        "ServiceMonitor",
        "ServiceMonitor",
    ]
    for text in manifests.values():
        assert len(text) < PAYLOAD_BUDGET_BYTES

    # The image is the DockerImageAsset built from exporter/, pushed to the bootstrap repository.
    (exporter_id,) = [k for k in manifests if k.startswith("ObservabilityExporter")]
    parts = template["Resources"][exporter_id]["Properties"]["Manifest"]["Fn::Join"][1]
    (image,) = [p["Fn::Sub"] for p in parts if isinstance(p, dict)]
    assets = json.loads((Path(templates["__outdir__"]) / "gpu-cluster-dev.assets.json").read_text())
    ((asset_hash, asset),) = assets["dockerImages"].items()
    assert asset["displayName"] == "Observability/ExporterImage"
    assert asset["source"]["platform"] == "linux/amd64"
    assert image.endswith(f"/cdk-hnb659fds-container-assets-${{AWS::AccountId}}-us-west-2:{asset_hash}")
    staged = Path(templates["__outdir__"]) / asset["source"]["directory"]
    assert (staged / "Dockerfile").is_file() and (staged / "gang_exporter" / "state.py").is_file()
    assert not list(staged.rglob("__pycache__"))

    # After the platform Namespaces, and the operator objects after the exporter.
    assert any(d.startswith("PlatformObjectsNamespaces") for d in template["Resources"][exporter_id]["DependsOn"])
    (monitoring_id,) = [k for k in manifests if k.startswith("ObservabilityMonitoring")]
    assert exporter_id in template["Resources"][monitoring_id]["DependsOn"]


@pytest.mark.synth
def test_operator_objects_are_not_deployed_without_the_operator(synthesized: Synth) -> None:
    manifests = _manifests(synthesized("ci")["gpu-cluster-ci"])
    assert [k for k in manifests if k.startswith("ObservabilityMonitoring")] == []
    assert "monitoring.coreos.com" not in json.dumps(manifests)
    assert len(manifests) == 1


@pytest.mark.synth
def test_managed_prometheus_workspace_only_when_configured(synthesized: Synth) -> None:
    dev = synthesized("dev")["gpu-cluster-dev"]
    assert [r for r in dev["Resources"].values() if r["Type"] == "AWS::APS::Workspace"] == []
    assert not any(key.startswith("ManagedPrometheus") for key in dev["Outputs"])

    prod = synthesized("prod-example")["gpu-cluster-prod-example"]
    ((logical_id, workspace),) = [(k, r) for k, r in prod["Resources"].items() if r["Type"] == "AWS::APS::Workspace"]
    assert workspace["Properties"]["Alias"] == "gpu-prod-gang-metrics"
    assert "KmsKeyArn" not in workspace["Properties"]  # AWS-owned key
    tags = {t["Key"]: t["Value"] for t in workspace["Properties"]["Tags"]}
    assert tags["environment"] == "prod-example" and tags["managed-by"] == "gpu-platform"
    # long-lived: metrics outlive the stack, but not a failed first create
    assert workspace["DeletionPolicy"] == "RetainExceptOnCreate"
    outputs = prod["Outputs"]
    assert outputs["ManagedPrometheusWorkspaceId"]["Value"] == {"Fn::GetAtt": [logical_id, "WorkspaceId"]}
    assert outputs["ManagedPrometheusRemoteWriteUrl"]["Value"] == {
        "Fn::Join": ["", [{"Fn::GetAtt": [logical_id, "PrometheusEndpoint"]}, "api/v1/remote_write"]]
    }
