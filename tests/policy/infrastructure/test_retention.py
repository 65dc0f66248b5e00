"""Nothing a stack update applies deletes user data: namespaces are never pruned nor deleted by the stack."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from policy.checks.api_order.template import manifest_objects
from policy.infrastructure.retention import PROTECTED_KINDS, holds_user_data
from tests.conftest import EXAMPLE_ENVIRONMENTS

Synth = Callable[[str], dict[str, Any]]
PRUNE_LABEL_PREFIX = "aws.cdk.eks/prune-"
"""What aws-cdk-lib's KubernetesManifest injects into every object it may prune (``k8s-manifest.js``)."""


def _manifests(template: dict[str, Any]) -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
    return {
        logical_id: (resource, manifest_objects(resource["Properties"]["Manifest"]))
        for logical_id, resource in template["Resources"].items()
        if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
    }


def test_namespaces_hold_user_data_and_device_classes_do_not() -> None:
    assert holds_user_data([{"kind": "Namespace"}]) and "PersistentVolumeClaim" in PROTECTED_KINDS
    assert not holds_user_data([{"kind": "DeviceClass"}, {"kind": "PriorityClass"}])


@pytest.mark.synth
@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_manifests_with_namespaces_are_never_pruned_nor_deleted(synthesized: Synth, env_name: str) -> None:
    template = synthesized(env_name)[f"gpu-cluster-{env_name}"]
    ephemeral = env_name == "ci"  # the run's whole cluster goes with its stack
    protected = {k: v for k, v in _manifests(template).items() if holds_user_data(v[1])}
    assert protected, "every environment applies its team or platform namespaces"
    for logical_id, (resource, objects) in protected.items():
        assert "PruneLabel" not in resource["Properties"], logical_id
        assert not any(
            key.startswith(PRUNE_LABEL_PREFIX) for o in objects for key in (o["metadata"].get("labels") or {})
        ), logical_id
        # Long-lived: kept on update and delete, but removed when the first create fails (RetainExceptOnCreate).
        expected = ("Delete", "Delete") if ephemeral else ("RetainExceptOnCreate", "Retain")
        assert (resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy")) == expected
    # Everything else keeps pruning, so a removed DeviceClass or policy does go away.
    others = [r for k, (r, _) in _manifests(template).items() if k not in protected]
    assert others and all("PruneLabel" in r["Properties"] for r in others)


@pytest.mark.synth
def test_removing_a_team_leaves_its_namespace(synthesized: Synth, dev_data: dict[str, Any]) -> None:
    """The next update applies the manifest without the team and without prune: kubectl leaves the namespace."""
    template = synthesized("dev")["gpu-cluster-dev"]
    ((resource, objects),) = [v for k, v in _manifests(template).items() if k.startswith("PlatformObjectsNamespaces")]
    assert "team-vision" in {o["metadata"]["name"] for o in objects}
    from charts.render import render_cluster_objects
    from tests.conftest import env_from

    del dev_data["platform"]["teams"]["vision"]
    remaining = render_cluster_objects(env_from(dev_data))["namespaces.yaml"]
    assert "team-vision" not in {o["metadata"]["name"] for o in remaining}
    assert holds_user_data(remaining)  # so the updated manifest is applied without --prune as well
    assert resource["DeletionPolicy"] == "RetainExceptOnCreate"
    assert resource["UpdateReplacePolicy"] == "Retain"
