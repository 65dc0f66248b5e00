"""The synthesized cluster stacks: property assertions, cfn-lint and cdk-nag."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template

from tests.conftest import EXAMPLE_ENVIRONMENTS

pytestmark = pytest.mark.synth
Synth = Callable[[str], dict[str, Any]]


def _template(synthesized: Synth, env: str) -> Template:
    return Template.from_json(synthesized(env)[f"gpu-cluster-{env}"])


def _resources(synthesized: Synth, env: str, kind: str) -> list[dict[str, Any]]:
    template = synthesized(env)[f"gpu-cluster-{env}"]
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == kind]


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_cfn_lint_has_no_errors(synthesized: Synth, env: str) -> None:
    from tests.helpers.cfn_lint import lint_errors

    for path in synthesized(env)["__outdir__"].glob("*.template.json"):
        assert lint_errors(path) == [], path.name


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_cdk_nag_passes(synthesized: Synth, env: str) -> None:
    # Synthesis raises on any unacknowledged AwsSolutions error; the plugin writes its report either way.
    import json

    report = json.loads((synthesized(env)["__outdir__"] / "validation-report.json").read_text())
    conclusions = {r["pluginName"]: r["conclusion"] for r in report["pluginReports"]}
    assert conclusions["AwsSolutions"] == "success"
    assert set(conclusions.values()) == {"success"}


def test_cluster_is_1_37_with_every_log_type_and_encrypted_secrets(synthesized: Synth) -> None:
    template = _template(synthesized, "dev")
    template.has_resource_properties(
        "AWS::EKS::Cluster",
        {
            "Name": "gpu-dev",
            "Version": "1.37",
            "Logging": {
                "ClusterLogging": {
                    "EnabledTypes": [
                        {"Type": "api"},
                        {"Type": "audit"},
                        {"Type": "authenticator"},
                        {"Type": "controllerManager"},
                        {"Type": "scheduler"},
                    ]
                }
            },
            "EncryptionConfig": [{"Resources": ["secrets"], "Provider": {"KeyArn": Match.any_value()}}],
            "ResourcesVpcConfig": Match.object_like(
                {
                    "EndpointPublicAccess": True,
                    "EndpointPrivateAccess": True,
                    "PublicAccessCidrs": ["203.0.113.0/24"],
                }
            ),
            "KubeSchedulerConfig": {
                "NodeResourcesFit": {"ScoringStrategy": Match.object_like({"Type": "MostAllocated"})}
            },
        },
    )
    template.has_resource_properties("AWS::KMS::Key", {"EnableKeyRotation": True})


def test_no_auto_mode_and_no_default_capacity(synthesized: Synth) -> None:
    (cluster,) = _resources(synthesized, "dev", "AWS::EKS::Cluster")
    assert "ComputeConfig" not in cluster or not cluster["ComputeConfig"].get("Enabled")
    groups = _resources(synthesized, "dev", "AWS::EKS::Nodegroup")
    roles = sorted(g["Labels"]["gpu-platform.io/role"] for g in groups)
    assert roles == ["gpu", "gpu", "system"]  # h100 in one zone, l4 in one, and the system group


def test_private_endpoint_and_deletion_protection_on_long_lived(synthesized: Synth) -> None:
    (cluster,) = _resources(synthesized, "prod-example", "AWS::EKS::Cluster")
    # Turned on once everything exists (stacks/deletion_protection.py), not on the L1 from the first second.
    assert "DeletionProtection" not in cluster
    (protection,) = _resources(synthesized, "prod-example", "Custom::AWS")
    assert '"deletionProtection":true' in json.dumps(protection["Create"]).replace("\\", "").replace(" ", "")
    assert cluster["ResourcesVpcConfig"]["EndpointPublicAccess"] is False
    assert cluster["ResourcesVpcConfig"]["EndpointPrivateAccess"] is True


def test_short_lived_environment_is_destroyable(synthesized: Synth) -> None:
    template = synthesized("ci")["gpu-cluster-ci"]
    (cluster,) = _resources(synthesized, "ci", "AWS::EKS::Cluster")
    assert "DeletionProtection" not in cluster
    retained = [
        k for k, r in template["Resources"].items() if r.get("DeletionPolicy") in ("Retain", "RetainExceptOnCreate")
    ]
    assert retained == []
    assert _resources(synthesized, "ci", "Custom::AWS") == []


def test_cluster_admins_are_access_entries(synthesized: Synth) -> None:
    entries = _resources(synthesized, "prod-example", "AWS::EKS::AccessEntry")
    admins = {e["PrincipalArn"] for e in entries if isinstance(e["PrincipalArn"], str)}
    assert {
        "arn:aws:iam::111122223333:role/PlatformAdmin",
        "arn:aws:iam::111122223333:role/PlatformBreakGlass",
    } <= admins
    template = synthesized("prod-example")["gpu-cluster-prod-example"]
    configmaps = [
        r for r in template["Resources"].values() if "aws-auth" in str(r.get("Properties", {}).get("Manifest"))
    ]
    assert configmaps == []


def test_every_required_gpu_instance_type_synthesizes(synthesized: Synth) -> None:
    groups = _resources(synthesized, "prod-example", "AWS::EKS::Nodegroup")
    templates = _resources(synthesized, "prod-example", "AWS::EC2::LaunchTemplate")
    # A Capacity Block's launch template carries its instance type; every other group names its types.
    types = {t for g in groups for t in g.get("InstanceTypes", [])}
    types |= {t["LaunchTemplateData"]["InstanceType"] for t in templates if "InstanceType" in t["LaunchTemplateData"]}
    assert {"p4d.24xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "g6e.12xlarge"} <= types
    dev_types = {t for g in _resources(synthesized, "dev", "AWS::EKS::Nodegroup") for t in g.get("InstanceTypes", [])}
    assert {"g6.12xlarge"} <= dev_types
    gpu_groups = [g for g in groups if "m7i.xlarge" not in g.get("InstanceTypes", [])]
    assert {g["AmiType"] for g in gpu_groups} == {"AL2023_x86_64_NVIDIA"}


def test_zone_pinned_pool_has_one_group_per_zone(synthesized: Synth) -> None:
    groups = [
        g
        for g in _resources(synthesized, "prod-example", "AWS::EKS::Nodegroup")
        if g.get("Labels", {}).get("gpu-platform.io/pool") == "h100"
    ]
    assert sorted(g["NodegroupName"] for g in groups) == ["gpu-prod-h100-1a", "gpu-prod-h100-1b", "gpu-prod-h100-1c"]
    assert all(len(g["Subnets"]) == 1 for g in groups)
    assert {g["Labels"]["gpu-platform.io/pool"] for g in groups} == {"h100"}
    assert all(g["Taints"] == [{"Effect": "NO_SCHEDULE", "Key": "nvidia.com/gpu", "Value": "true"}] for g in groups)


def test_capacity_block_pool(synthesized: Synth) -> None:
    (group,) = [
        g
        for g in _resources(synthesized, "prod-example", "AWS::EKS::Nodegroup")
        if g.get("NodegroupName") == "gpu-prod-h200-block-1b"
    ]
    assert group["CapacityType"] == "CAPACITY_BLOCK"
    templates = _resources(synthesized, "prod-example", "AWS::EC2::LaunchTemplate")
    blocks = [
        t["LaunchTemplateData"] for t in templates if "CapacityReservationSpecification" in t["LaunchTemplateData"]
    ]
    (block,) = blocks
    assert block["InstanceMarketOptions"] == {"MarketType": "capacity-block"}
    assert block["CapacityReservationSpecification"] == {
        "CapacityReservationTarget": {"CapacityReservationId": "cr-0123456789abcdef0"}
    }


def test_launch_templates_require_imdsv2_and_encrypt_gp3_roots(synthesized: Synth) -> None:
    for data in (t["LaunchTemplateData"] for t in _resources(synthesized, "dev", "AWS::EC2::LaunchTemplate")):
        assert data["MetadataOptions"]["HttpTokens"] == "required"
        (root,) = data["BlockDeviceMappings"]
        assert root["Ebs"]["Encrypted"] is True
        assert root["Ebs"]["VolumeType"] == "gp3"


def test_gpu_launch_template_carries_the_kubelet_gates(synthesized_workload_aware: Synth) -> None:
    datas = [t["LaunchTemplateData"] for t in _resources(synthesized_workload_aware, "dev", "AWS::EC2::LaunchTemplate")]
    user_data = [d["UserData"]["Fn::Base64"] for d in datas if "UserData" in d]
    assert user_data and all("DRAWorkloadResourceClaims: true" in u for u in user_data)
    assert all("application/node.eks.aws" in u for u in user_data)


def test_shipped_gpu_launch_templates_set_no_kubelet_gate(synthesized: Synth) -> None:
    datas = [t["LaunchTemplateData"] for t in _resources(synthesized, "dev", "AWS::EC2::LaunchTemplate")]
    user_data = [d["UserData"]["Fn::Base64"] for d in datas if "UserData" in d]
    assert user_data and all("featureGates: {}" in u for u in user_data)
    assert not any("DRAWorkloadResourceClaims" in u for u in user_data)


def test_dra_driver_chart_is_pinned(synthesized: Synth) -> None:
    template = _template(synthesized, "dev")
    template.has_resource_properties(
        "Custom::AWSCDK-EKS-HelmChart",
        {
            "Chart": "dra-driver-nvidia-gpu",
            "Version": "0.4.1",
            "Repository": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
            "Namespace": "nvidia",
            "Values": Match.string_like_regexp('"gpuResourcesEnabledOverride":true'),
        },
    )


def test_device_plugin_only_where_a_pool_asks_for_it(synthesized: Synth) -> None:
    charts = {c["Chart"] for c in _resources(synthesized, "prod-example", "Custom::AWSCDK-EKS-HelmChart")}
    assert charts == {
        "dra-driver-nvidia-gpu",
        "nvidia-device-plugin",
        "cluster-autoscaler",
        "aws-efa-k8s-device-plugin",
        "kube-prometheus-stack",
    }
    dev_charts = {c["Chart"] for c in _resources(synthesized, "dev", "Custom::AWSCDK-EKS-HelmChart")}
    assert "nvidia-device-plugin" not in dev_charts


def test_required_gates_are_a_stack_output(synthesized_workload_aware: Synth) -> None:
    outputs = synthesized_workload_aware("dev")["gpu-cluster-dev"]["Outputs"]
    assert outputs["RequiredControlPlaneGates"]["Value"] == (
        "DRAWorkloadResourceClaims,GenericWorkload,TopologyAwareWorkloadScheduling,WorkloadWithJob"
    )
    assert outputs["RequiredApiVersions"]["Value"] == "resource.k8s.io/v1,scheduling.k8s.io/v1beta1"


def test_tags_are_consistent(synthesized: Synth) -> None:
    template = _template(synthesized, "dev")
    template.has_resource_properties(
        "AWS::EC2::VPC",
        {
            "Tags": Match.array_with(
                [
                    {"Key": "environment", "Value": "dev"},
                    {"Key": "managed-by", "Value": "gpu-platform"},
                ]
            )
        },
    )


def test_shipped_stack_requires_no_gate_eks_does_not_serve(synthesized: Synth) -> None:
    outputs = synthesized("dev")["gpu-cluster-dev"]["Outputs"]
    assert outputs["RequiredApiVersions"]["Value"] == "resource.k8s.io/v1"
    assert outputs["RequiredControlPlaneGates"]["Value"] == "none"
