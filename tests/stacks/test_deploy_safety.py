"""The synthesized assemblies deploy on EKS as AWS runs it: nothing in the cluster's stack fails for a
missing gate, a failed first create leaves nothing behind, and GPU node groups update without spare
capacity. Properties over every resource of every shipped environment (and of a workload-aware
twin that acknowledges gates EKS does not serve)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from catalog.eks_control_plane import EKS_SERVED_APIS
from tests.conftest import EXAMPLE_ENVIRONMENTS
from tests.helpers.environments import WORKLOAD_AWARE_GATES

pytestmark = pytest.mark.synth
Synth = Callable[[str], dict[str, Any]]
Templates = dict[str, dict[str, Any]]

UNSERVED = {v for v, row in EKS_SERVED_APIS.items() if not row.served}
WORKLOAD_AWARE = WORKLOAD_AWARE_GATES["dev"]


@pytest.fixture(scope="module")
def workload_aware_twin(synthesized_workload_aware: Synth) -> Templates:
    """dev on a control plane that serves the workload-aware gates, acknowledged (``tests.helpers.environments``)."""
    return _shipped(synthesized_workload_aware, "dev")


def _shipped(synthesized: Synth, env: str) -> Templates:
    return {f"{k}.template.json": v for k, v in synthesized(env).items() if not k.startswith("__")}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _api_versions_touched(resource: dict[str, Any]) -> set[str]:
    """API group/versions a kubectl-provider custom resource applies or reads."""
    properties = resource.get("Properties") or {}
    if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesResource":
        text = "".join(_strings(properties.get("Manifest")))
        return set(re.findall(r'"apiVersion":"([^"]+)"', text))
    if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue":
        _, _, rest = str(properties["ObjectType"]).partition(".")
        version, _, group = rest.partition(".")
        return {f"{group}/{version}" if group else version}
    return set()


def _assert_no_gate_can_fail_the_cluster(templates: Templates) -> None:
    for name, template in templates.items():
        for logical_id, resource in template["Resources"].items():
            touched = _api_versions_touched(resource)
            assert not touched & UNSERVED, (name, logical_id, touched & UNSERVED)
            assert "gate-probe" not in json.dumps(resource.get("Properties") or {}), (name, logical_id)


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_no_resource_of_the_cluster_stack_needs_a_gate_eks_does_not_serve(synthesized: Synth, env: str) -> None:
    _assert_no_gate_can_fail_the_cluster(_shipped(synthesized, env))


def test_a_workload_aware_environment_probes_its_gates_after_deploy_not_in_the_stack(
    workload_aware_twin: Templates,
) -> None:
    _assert_no_gate_can_fail_the_cluster(workload_aware_twin)
    (template,) = workload_aware_twin.values()
    outputs = {k: v["Value"] for k, v in template["Outputs"].items()}
    (served_beyond,) = [v for k, v in outputs.items() if k.startswith("ServedApiCheckServedBeyondEks")]
    assert served_beyond == ",".join(sorted(WORKLOAD_AWARE))
    (form,) = [v for k, v in outputs.items() if k.startswith("ServedApiCheckWorkloadApi")]
    assert form.startswith("required: make deploy's make verify step checks the gates (")


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_shipped_stacks_state_they_rely_on_nothing_beyond_eks(synthesized: Synth, env: str) -> None:
    (template,) = _shipped(synthesized, env).values()
    outputs = {k: v["Value"] for k, v in template["Outputs"].items()}
    (served_beyond,) = [v for k, v in outputs.items() if k.startswith("ServedApiCheckServedBeyondEks")]
    assert served_beyond == "none"


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_nothing_is_retained_when_its_first_create_fails(synthesized: Synth, env: str) -> None:
    for name, template in _shipped(synthesized, env).items():
        for logical_id, resource in template["Resources"].items():
            assert resource.get("DeletionPolicy") in (None, "Delete", "RetainExceptOnCreate"), (name, logical_id)
            if resource["Type"] == "AWS::EKS::Cluster":
                # Deletion protection from the first second would block the rollback of a failed create.
                assert "DeletionProtection" not in resource["Properties"], (name, logical_id)


def test_long_lived_environment_keeps_its_cluster_and_protects_it_once_created(synthesized: Synth) -> None:
    (template,) = _shipped(synthesized, "prod-example").values()
    resources = template["Resources"]
    kept = {r["Type"] for r in resources.values() if r.get("DeletionPolicy") == "RetainExceptOnCreate"}
    assert {"AWS::EKS::Cluster", "AWS::KMS::Key", "AWS::EKS::Nodegroup", "AWS::Lambda::Function"} <= kept
    (protection,) = [r for r in resources.values() if r["Type"] == "Custom::AWS"]
    assert protection["DeletionPolicy"] == "RetainExceptOnCreate"
    create = "".join(_strings(protection["Properties"]["Create"]))
    delete = "".join(_strings(protection["Properties"]["Delete"]))
    assert '"action":"updateClusterConfig"' in create and '"deletionProtection":true' in create
    assert '"deletionProtection":false' in delete
    nodegroups = {k for k, r in resources.items() if r["Type"] == "AWS::EKS::Nodegroup"}
    assert nodegroups <= set(protection["DependsOn"]), "protection comes after every node group"


def test_short_lived_environment_is_not_protected(synthesized: Synth) -> None:
    (template,) = _shipped(synthesized, "ci").values()
    assert not [r for r in template["Resources"].values() if r["Type"] == "Custom::AWS"]


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_gpu_node_groups_update_without_spare_capacity(synthesized: Synth, env: str) -> None:
    for template in _shipped(synthesized, env).values():
        for resource in template["Resources"].values():
            properties = resource.get("Properties") or {}
            if resource["Type"] == "AWS::EKS::Nodegroup" and properties.get("AmiType") == "AL2023_x86_64_NVIDIA":
                assert properties["UpdateConfig"] == {"MaxUnavailable": 1, "UpdateStrategy": "MINIMAL"}
