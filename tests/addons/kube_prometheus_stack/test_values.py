"""``observability.prometheus``: the installed kube-prometheus-stack, checked against the pinned chart."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from addons.kube_prometheus_stack.pin import (
    KUBE_PROMETHEUS_STACK_CHART,
    KUBE_PROMETHEUS_STACK_CHART_VERSION,
    KUBE_PROMETHEUS_STACK_RELEASE,
    KUBE_PROMETHEUS_STACK_REPOSITORY,
    MONITORING_NAMESPACE,
)
from addons.kube_prometheus_stack.values import (
    PROMETHEUS_SERVICE_ACCOUNT,
    STORAGE_CLASS,
    kube_prometheus_stack_values,
)
from catalog import versions
from observability.manifests import PROMETHEUS_SELECTOR_LABELS, SCHEDULER_READER
from policy.environment.load import load_environment
from tests.conftest import REFERENCE, require_reference
from tests.helpers import yaml_files
from tests.helpers.chart_values import unknown_keys

Synth = Callable[[str], dict[str, Any]]
CHART_DIR = REFERENCE / f"kube-prometheus-stack-{KUBE_PROMETHEUS_STACK_CHART_VERSION}"


@pytest.fixture
def chart_dir() -> Path:
    """The chart's reference copy: skipped with the reason on a clone without it, failed under CI's checkout run."""
    return require_reference(CHART_DIR)


def needs_reference(test: Callable[..., None]) -> Callable[..., None]:
    return pytest.mark.reference(pytest.mark.usefixtures("chart_dir")(test))


def _chart_values() -> dict[str, Any]:
    values: dict[str, Any] = yaml_files.load((CHART_DIR / "values.yaml").read_text())
    return values


def _resources(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


@needs_reference
def test_the_pinned_chart_is_the_reference_copy() -> None:
    chart = yaml_files.load((CHART_DIR / "Chart.yaml").read_text())
    assert (chart["name"], chart["version"]) == (
        KUBE_PROMETHEUS_STACK_CHART,
        KUBE_PROMETHEUS_STACK_CHART_VERSION,
    )


@needs_reference
@pytest.mark.parametrize("remote_write_url", [None, "https://aps.example/workspaces/ws-1/api/v1/remote_write"])
def test_every_value_is_a_key_the_chart_declares(remote_write_url: str | None) -> None:
    values = kube_prometheus_stack_values(load_environment(name="prod-example"), remote_write_url=remote_write_url)
    assert unknown_keys(values, _chart_values()) == []


@needs_reference
def test_the_crds_the_chart_ships_are_the_groups_it_is_said_to_provide() -> None:
    groups = set()
    for path in CHART_DIR.glob("crd-*.yaml"):
        for crd in yaml_files.load_all(path.read_text()):
            groups.add(crd["spec"]["group"])
    assert groups == set(versions.CHART_API_GROUPS[KUBE_PROMETHEUS_STACK_CHART])


@needs_reference
def test_selectors_match_our_objects_and_the_dashboard_sidecar_our_configmap() -> None:
    from charts.observability import environment_objects

    env = load_environment(name="dev")
    values = kube_prometheus_stack_values(env, remote_write_url=None)
    spec = values["prometheus"]["prometheusSpec"]
    ours = environment_objects(env)
    for kind, selector in (("ServiceMonitor", "serviceMonitorSelector"), ("PrometheusRule", "ruleSelector")):
        assert (
            spec[f"{selector}NilUsesHelmValues"] is False
            and spec[selector.replace("Selector", "NamespaceSelector")] == {}
        )
        labelled = [o for o in ours if o["kind"] == kind]
        assert labelled
        for obj in labelled:
            assert spec[selector]["matchLabels"].items() <= obj["metadata"]["labels"].items()
    sidecar = values["grafana"]["sidecar"]["dashboards"]
    (configmap,) = [o for o in ours if o["kind"] == "ConfigMap"]
    assert configmap["metadata"]["labels"][sidecar["label"]] == sidecar["labelValue"]
    assert sidecar["searchNamespace"] == "ALL"
    # The chart's own default label value for the sidecar is the one we set.
    chart_sidecar = _chart_values()["grafana"]["sidecar"]["dashboards"]
    assert (chart_sidecar["label"], chart_sidecar["labelValue"]) == (sidecar["label"], sidecar["labelValue"])
    assert PROMETHEUS_SELECTOR_LABELS == {"release": KUBE_PROMETHEUS_STACK_RELEASE}


def test_storage_and_retention_come_from_config(dev_data: dict[str, Any]) -> None:
    from tests.conftest import env_from

    dev_data["observability"] = {"prometheus_storage_gib": 200, "prometheus_retention_days": 30}
    spec = kube_prometheus_stack_values(env_from(dev_data), remote_write_url=None)["prometheus"]["prometheusSpec"]
    claim = spec["storageSpec"]["volumeClaimTemplate"]["spec"]
    assert claim["resources"]["requests"]["storage"] == "200Gi"
    assert claim["storageClassName"] == STORAGE_CLASS
    assert spec["retention"] == "30d"
    assert "remoteWrite" not in spec


@pytest.mark.synth
def test_prod_installs_the_stack_after_its_storage_and_remote_writes_to_the_workspace(synthesized: Synth) -> None:
    template = synthesized("prod-example")["gpu-cluster-prod-example"]
    resources = template["Resources"]
    ((_, chart),) = [
        (k, r)
        for k, r in _resources(template, "Custom::AWSCDK-EKS-HelmChart").items()
        if r["Properties"]["Chart"] == KUBE_PROMETHEUS_STACK_CHART
    ]
    props = chart["Properties"]
    assert props["Version"] == KUBE_PROMETHEUS_STACK_CHART_VERSION
    assert props["Repository"] == KUBE_PROMETHEUS_STACK_REPOSITORY
    assert props["Namespace"] == MONITORING_NAMESPACE and props["Wait"] is True
    values_text = json.dumps(props["Values"])
    assert "remote_write" in values_text and "sigv4" in values_text

    ((addon_id, addon),) = [
        (k, r)
        for k, r in _resources(template, "AWS::EKS::Addon").items()
        if r["Properties"]["AddonName"] == "aws-ebs-csi-driver"
    ]
    (association,) = addon["Properties"]["PodIdentityAssociations"]
    assert association["ServiceAccount"] == "ebs-csi-controller-sa"
    (storage_id,) = [
        k
        for k, r in _resources(template, "Custom::AWSCDK-EKS-KubernetesResource").items()
        if STORAGE_CLASS in json.dumps(r["Properties"]["Manifest"])
    ]
    assert {addon_id, storage_id} <= set(chart["DependsOn"])
    assert any(resources[d]["Type"] == "AWS::EKS::Nodegroup" for d in chart["DependsOn"])

    # Only Prometheus' service account may remote-write, and only to this workspace.
    ((_, identity),) = [
        (k, r)
        for k, r in _resources(template, "AWS::EKS::PodIdentityAssociation").items()
        if r["Properties"]["ServiceAccount"] == PROMETHEUS_SERVICE_ACCOUNT
    ]
    role = resources[identity["Properties"]["RoleArn"]["Fn::GetAtt"][0]]
    (statement,) = role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    (workspace_id,) = _resources(template, "AWS::APS::Workspace")
    assert statement == {
        "Action": "aps:RemoteWrite",
        "Effect": "Allow",
        "Resource": {"Fn::GetAtt": [workspace_id, "Arn"]},
    }

    # The scheduler scrape runs as the installed Prometheus.
    (monitoring,) = [
        json.loads(r["Properties"]["Manifest"])
        for k, r in _resources(template, "Custom::AWSCDK-EKS-KubernetesResource").items()
        if k.startswith("ObservabilityMonitoring")
    ]
    (binding,) = [o for o in monitoring if o["kind"] == "ClusterRoleBinding"]
    assert binding["roleRef"]["name"] == SCHEDULER_READER
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": PROMETHEUS_SERVICE_ACCOUNT, "namespace": MONITORING_NAMESPACE}
    ]


@pytest.mark.synth
def test_ci_installs_no_monitoring_stack(synthesized: Synth) -> None:
    template = synthesized("ci")["gpu-cluster-ci"]
    charts = [r["Properties"]["Chart"] for r in _resources(template, "Custom::AWSCDK-EKS-HelmChart").values()]
    assert KUBE_PROMETHEUS_STACK_CHART not in charts
    assert "aws-ebs-csi-driver" not in json.dumps(template)
