"""NodePools and EC2NodeClasses from config: valid against the reference CRDs, and shaped for training."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from addons.karpenter.plan import karpenter_objects, node_role_name
from addons.nvidia_dra_driver.values import dra_driver_values
from catalog.labels import DEVICE_MANAGEMENT_LABEL, POOL_LABEL, ZONE_LABEL
from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from tests.addons.karpenter.conftest import example_data, example_env
from tests.addons.karpenter.crds import (
    cel_rules,
    cel_violations,
    metadata_errors,
    nodeclaim_from,
    openapi_schema,
    schema_errors,
)
from tests.conftest import env_from
from tests.helpers import yaml_files

MAX_MANIFEST_BYTES = 262_144

DIST = REPO_ROOT / "dist"


def _variants() -> dict[str, EnvironmentConfig]:
    """The shipped example plus the shapes it does not show: an existing VPC, zone-pinned and device-plugin
    pools, reservations by tags, a dynamic reserved pool with an on-demand fallback."""
    example = example_env()
    data = example_data()
    data["network"] = {
        "existing_vpc": {
            "vpc_id": "vpc-0a1b2c3d4e5f60718",
            "private_subnet_ids": {"us-west-2a": "subnet-0a1b2c3d4e5f60711", "us-west-2b": "subnet-0a1b2c3d4e5f60722"},
        }
    }
    flex, block = data["gpu_pools"][0], data["gpu_pools"][1]
    flex.update(zone_pinned=True, dra=False, device_plugin=True)
    block["name"] = "h200-reserved"
    block["karpenter"] = {
        "capacity_types": ["reserved", "on_demand"],
        "capacity_reservations": [{"tags": {"purpose": "training"}, "owner_account": "111122223333"}],
        "consolidate_after_minutes": 0,
    }
    return {"karpenter-example": example, "existing-vpc": env_from(data)}


VARIANTS = _variants()
OBJECTS = [
    (f"{name}/{o['kind']}/{o['metadata']['name']}", o) for name, env in VARIANTS.items() for o in karpenter_objects(env)
]


@pytest.mark.reference
@pytest.mark.parametrize(("name", "obj"), OBJECTS, ids=[n for n, _ in OBJECTS])
def test_object_validates_strictly_against_its_crd(name: str, obj: dict[str, Any]) -> None:
    assert schema_errors(obj) == []
    assert cel_violations(obj) == []
    assert metadata_errors(obj) == []


@pytest.mark.reference
@pytest.mark.parametrize(("name", "obj"), [(n, o) for n, o in OBJECTS if o["kind"] == "NodePool"])
def test_nodeclaims_of_every_node_pool_validate(name: str, obj: dict[str, Any]) -> None:
    claim = nodeclaim_from(obj)
    assert schema_errors(claim) == []
    assert cel_violations(claim) == []


@pytest.mark.reference
def test_strict_schema_and_cel_catch_bad_objects() -> None:
    node_class, *_ = karpenter_objects(VARIANTS["karpenter-example"])
    bad = copy.deepcopy(node_class)
    bad["spec"]["metadataOptions"]["httpTokenz"] = "required"
    bad["spec"]["amiSelectorTerms"] = [{"alias": "al2024@v20260930"}]
    assert schema_errors(bad) == [
        "spec/metadataOptions: Additional properties are not allowed ('httpTokenz' was unexpected)"
    ]
    assert len(cel_violations(bad)) == 1
    node_pool = next(o for o in karpenter_objects(VARIANTS["karpenter-example"]) if "replicas" in o["spec"])
    static_with_cpu_limit = copy.deepcopy(node_pool)
    static_with_cpu_limit["spec"]["limits"] = {"cpu": "10"}
    static_with_cpu_limit["spec"]["template"]["metadata"]["labels"]["karpenter.sh/nodepool"] = "x"
    assert [v.split(" (")[0] for v in cel_violations(static_with_cpu_limit)] == [
        "/spec: only 'limits.nodes' is supported on static NodePools",
        '/spec/template/metadata/labels: label "karpenter.sh/nodepool" is restricted',
    ]


@pytest.mark.reference
def test_cel_rules_are_all_evaluated_except_transition_rules() -> None:
    # Transition rules compare with the stored object (oldSelf): they only run on updates.
    counts = {kind: cel_rules(openapi_schema(kind)) for kind in ("NodePool", "EC2NodeClass", "NodeClaim")}
    assert {k: sum("oldSelf" in r for r in v) for k, v in counts.items()} == {
        "NodePool": 3,
        "EC2NodeClass": 0,
        "NodeClaim": 1,
    }


def _by_name(env: EnvironmentConfig) -> dict[str, dict[str, Any]]:
    return {f"{o['kind']}/{o['metadata']['name']}": o for o in karpenter_objects(env)}


def test_dynamic_spot_pool_for_training() -> None:
    pool = _by_name(VARIANTS["karpenter-example"])["NodePool/l40s-flex"]
    spec = pool["spec"]
    assert spec["disruption"] == {
        "budgets": [{"nodes": "10%", "reasons": ["Empty"]}, {"nodes": "0", "reasons": ["Drifted"]}],
        "consolidateAfter": "15m",
        "consolidationPolicy": "WhenEmpty",
    }
    assert spec["limits"] == {"cpu": "1152", "nvidia.com/gpu": "48"}
    template = spec["template"]["spec"]
    assert template["expireAfter"] == "Never"
    assert "terminationGracePeriod" not in template  # it would override do-not-disrupt
    assert template["taints"] == [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "true"}]
    requirements = {r["key"]: r["values"] for r in template["requirements"]}
    assert requirements == {
        "karpenter.k8s.aws/instance-family": ["g6e"],
        "karpenter.k8s.aws/instance-gpu-name": ["l40s"],
        "karpenter.sh/capacity-type": ["on-demand", "spot"],
        "kubernetes.io/arch": ["amd64"],
        "kubernetes.io/os": ["linux"],
        "topology.kubernetes.io/zone": ["us-west-2a", "us-west-2b"],
    }
    assert {r["operator"] for r in template["requirements"]} == {"In"}


def test_static_capacity_block_pool() -> None:
    objects = _by_name(VARIANTS["karpenter-example"])
    pool = objects["NodePool/h200-block-2a"]
    assert pool["spec"]["replicas"] == 2
    assert "limits" not in pool["spec"] and "weight" not in pool["spec"]
    requirements = {r["key"]: r["values"] for r in pool["spec"]["template"]["spec"]["requirements"]}
    assert requirements["karpenter.sh/capacity-type"] == ["reserved"]
    assert requirements["node.kubernetes.io/instance-type"] == ["p5en.48xlarge"]
    assert requirements["topology.kubernetes.io/zone"] == ["us-west-2a"]
    node_class = objects["EC2NodeClass/h200-block"]
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0a1b2c3d4e5f60789"}]


def test_node_classes_pin_the_ami_and_lock_down_the_node() -> None:
    env = VARIANTS["karpenter-example"]
    for name, obj in _by_name(env).items():
        if not name.startswith("EC2NodeClass/"):
            continue
        spec = obj["spec"]
        assert spec["amiSelectorTerms"] == [{"alias": "al2023@v20260930"}]
        assert spec["metadataOptions"]["httpTokens"] == "required"
        (root,) = spec["blockDeviceMappings"]
        assert root["rootVolume"] is True
        assert root["ebs"]["encrypted"] is True and root["ebs"]["volumeType"] == "gp3"
        assert spec["role"] == node_role_name("gpu-karpenter")
        assert spec["securityGroupSelectorTerms"] == [{"tags": {"aws:eks:cluster-name": "gpu-karpenter"}}]
        assert "featureGates: {}" in spec["userData"]  # shipped: no kubelet gate (nothing EKS does not serve)
        assert "Content-Type: application/node.eks.aws" in spec["userData"]
        assert spec["tags"]["environment"] == "karpenter-example"


def test_node_classes_set_the_kubelet_gates_where_the_control_plane_serves_them() -> None:
    from tests.helpers.environments import workload_aware

    node_classes = [o for o in karpenter_objects(workload_aware("karpenter-example")) if o["kind"] == "EC2NodeClass"]
    assert node_classes
    for obj in node_classes:
        assert "DRAWorkloadResourceClaims: true" in obj["spec"]["userData"]
        assert "Content-Type: application/node.eks.aws" in obj["spec"]["userData"]


def test_existing_vpc_selects_the_pool_subnets_by_id_and_zone_pinned_pools_split() -> None:
    objects = _by_name(VARIANTS["existing-vpc"])
    assert objects["EC2NodeClass/l40s-flex"]["spec"]["subnetSelectorTerms"] == [
        {"id": "subnet-0a1b2c3d4e5f60711"},
        {"id": "subnet-0a1b2c3d4e5f60722"},
    ]
    assert objects["EC2NodeClass/h200-reserved"]["spec"]["capacityReservationSelectorTerms"] == [
        {"ownerID": "111122223333", "tags": {"purpose": "training"}}
    ]
    reserved = objects["NodePool/h200-reserved-2a"]["spec"]
    assert reserved["disruption"]["consolidateAfter"] == "0s"
    assert reserved["limits"] == {"cpu": "384", "nvidia.com/gpu": "16"}
    assert sorted(n for n in objects if n.startswith("NodePool/")) == [
        "NodePool/h200-reserved-2a",
        "NodePool/l40s-flex-2a",
        "NodePool/l40s-flex-2b",
    ]
    zones = {
        n: next(r["values"] for r in o["spec"]["template"]["spec"]["requirements"] if r["key"] == ZONE_LABEL)
        for n, o in objects.items()
        if n.startswith("NodePool/l40s")
    }
    assert zones == {"NodePool/l40s-flex-2a": ["us-west-2a"], "NodePool/l40s-flex-2b": ["us-west-2b"]}


def test_dra_pools_carry_the_dra_label_and_device_plugin_pools_theirs() -> None:
    for env in VARIANTS.values():
        for obj in karpenter_objects(env):
            if obj["kind"] != "NodePool":
                continue
            labels = obj["spec"]["template"]["metadata"]["labels"]
            pool = next(p for p in env.gpu_pools if p.name == labels[POOL_LABEL])
            assert labels[DEVICE_MANAGEMENT_LABEL] == ("dra" if pool.dra else "device-plugin")


def test_dra_kubelet_plugin_tolerates_karpenter_dra_pools(karpenter_1_15_data: dict[str, Any]) -> None:
    karpenter_1_15_data["gpu_pools"][0]["taints"] = [{"key": "gpu-platform.io/flex", "effect": "NoSchedule"}]
    values = dra_driver_values(env_from(karpenter_1_15_data))
    assert values["kubeletPlugin"]["nodeSelector"] == {DEVICE_MANAGEMENT_LABEL: "dra"}
    assert {"key": "gpu-platform.io/flex", "operator": "Exists", "effect": "NoSchedule"} in values["kubeletPlugin"][
        "tolerations"
    ]


def test_output_is_sorted_and_deterministic() -> None:
    env = VARIANTS["karpenter-example"]
    objects = karpenter_objects(env)
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("EC2NodeClass", "h200-block"),
        ("EC2NodeClass", "l40s-flex"),
        ("NodePool", "h200-block-2a"),
        ("NodePool", "l40s-flex"),
    ]
    for obj in objects:
        assert json.dumps(obj, sort_keys=True) == json.dumps(obj)
    text = (DIST / "karpenter-example" / "karpenter.yaml").read_text()
    assert list(yaml_files.load_all(text)) == objects  # the reviewed file is exactly these objects


def test_no_karpenter_objects_without_karpenter_pools() -> None:
    env = load_environment(name="dev")
    assert karpenter_objects(env) == []
    assert not (DIST / "dev" / "karpenter.yaml").exists()


def test_every_manifest_payload_stays_well_under_the_custom_resource_limit() -> None:
    for env in VARIANTS.values():
        assert len(json.dumps(karpenter_objects(env))) < MAX_MANIFEST_BYTES // 10
