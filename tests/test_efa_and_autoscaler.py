"""EFA and Cluster Autoscaler: the data tables against the reference copies, chart values, and the
synthesized templates of every shipped environment."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from catalog.cluster_autoscaler import CLUSTER_AUTOSCALER_RELEASES, discovery_tag
from catalog.efa import EFA_SUPPORT
from catalog.instances import INSTANCE_TYPES
from catalog.versions import CLUSTER_AUTOSCALER_CHART_VERSION, CLUSTER_AUTOSCALER_VERSION, KUBERNETES_MINOR
from config import load_environment
from config.load import REPO_ROOT
from config.model import CapacityProvider, CapacityType
from policy.acknowledgements import AcknowledgedRisk, Acknowledgement, cluster_autoscaler_risks
from policy.cluster_autoscaler import cluster_autoscaler_values, node_template_tags
from policy.efa import efa_device_plugin_values, efa_network_interfaces, efa_pod_settings
from policy.node_pools import autoscaled_pools, efa_enabled, efa_interfaces_per_node, node_group_plans
from tests import yaml_files
from tests.chart_values import unknown_keys
from tests.conftest import EXAMPLE_ENVIRONMENTS, REFERENCE, env_from, require_reference

EFA_TABLE = REFERENCE / "aws-instance-network" / "efa-instance-types.yaml"
CA_CHART = REFERENCE / f"cluster-autoscaler-chart-{CLUSTER_AUTOSCALER_CHART_VERSION}"
EFA_CHART = REFERENCE / "aws-efa-k8s-device-plugin-v0.5.30"
Synth = Callable[[str], dict[str, Any]]


def _reference(path: Any) -> Any:
    return yaml_files.load(require_reference(path).read_text())


def test_efa_table_matches_the_reference_table() -> None:
    rows = _reference(EFA_TABLE)["instance_types"]
    for name, support in EFA_SUPPORT.items():
        row = rows[name]
        assert (support.efa_interfaces, support.network_cards, support.efa_only) == (
            row["max_efa_interfaces"],
            row["network_cards"],
            row["efa_only_supported"],
        ), name
    # Every GPU type of the catalog that the reference lists with EFA is in our table, and no other.
    with_efa = {n for n in INSTANCE_TYPES if n in rows and isinstance(rows[n]["max_efa_interfaces"], int)}
    assert with_efa == set(EFA_SUPPORT)


def test_efa_types_are_in_the_device_plugin_charts_affinity() -> None:
    values = _reference(EFA_CHART / "values.yaml")
    assert set(EFA_SUPPORT) <= set(values["supportedInstanceLabels"]["values"])


def test_efa_device_plugin_values_exist_in_the_chart() -> None:
    values = _reference(EFA_CHART / "values.yaml")
    ours = efa_device_plugin_values(load_environment(name="prod-example"))
    assert unknown_keys(ours, values) == []
    assert ours["nodeSelector"] == {"gpu-platform.io/efa": "true"}


def test_cluster_autoscaler_values_exist_in_the_chart() -> None:
    chart = _reference(CA_CHART / "values.yaml")
    ours = cluster_autoscaler_values(load_environment(name="prod-example"))
    assert unknown_keys(ours, chart, free_form=("extraArgs", "expanderPriorities")) == []
    # The chart's default image (v1.35.0) is older than the pin: the tag is always set, to the newest confirmed
    # release, one minor behind the cluster until a 1.37.x is confirmed.
    assert chart["image"]["tag"] != ours["image"]["tag"] == f"v{CLUSTER_AUTOSCALER_VERSION}" == "v1.36.1"
    pinned = CLUSTER_AUTOSCALER_RELEASES[CLUSTER_AUTOSCALER_VERSION]
    assert pinned.verified and pinned.minors_behind(KUBERNETES_MINOR) == 1
    assert chart["autoDiscovery"]["tags"] == [
        "k8s.io/cluster-autoscaler/enabled",
        "k8s.io/cluster-autoscaler/{{ .Values.autoDiscovery.clusterName }}",
    ]


def test_interfaces_one_per_network_card_primary_efa() -> None:
    pool = load_environment(name="dev").gpu_pools[0]  # p5.48xlarge
    interfaces = efa_network_interfaces(pool)
    assert len(interfaces) == 32
    assert interfaces[0].interface_type == "efa" and interfaces[0].network_card_index == 0
    assert {i.interface_type for i in interfaces[1:]} == {"efa-only"}
    assert [i.network_card_index for i in interfaces] == list(range(32))


def test_pod_settings_share_a_nodes_efa_by_its_gpus() -> None:
    env = load_environment(name="dev")
    settings = efa_pod_settings([env.gpu_pools[0]], gpus=4)
    assert settings is not None
    assert settings.efa_devices == 16
    assert dict(settings.env) == {"FI_EFA_FORK_SAFE": "1", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_PROVIDER": "efa"}
    no_efa = env.gpu_pools[0].model_copy(update={"efa": False})
    assert efa_pod_settings([env.gpu_pools[0], no_efa], gpus=8) is None


def _resources(synthesized: Synth, env: str, kind: str) -> list[dict[str, Any]]:
    template = synthesized(env)[f"gpu-cluster-{env}"]
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == kind]


@pytest.mark.synth
@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_synthesized_efa_and_autoscaler_resources(synthesized: Synth, name: str) -> None:
    env = load_environment(name=name)
    groups = {
        g["NodegroupName"]: g for g in _resources(synthesized, name, "AWS::EKS::Nodegroup") if "NodegroupName" in g
    }
    templates = _resources(synthesized, name, "AWS::EC2::LaunchTemplate")
    charts = {c["Chart"]: c for c in _resources(synthesized, name, "Custom::AWSCDK-EKS-HelmChart")}
    for pool in env.gpu_pools:
        if pool.provider is not CapacityProvider.MANAGED_NODE_GROUP:
            continue
        expected_cards = efa_interfaces_per_node(pool)
        counts = {
            len(t["LaunchTemplateData"].get("NetworkInterfaces", []))
            for t in templates
            if "UserData" in t["LaunchTemplateData"]
            and (t["LaunchTemplateData"].get("InstanceType") in (None, *pool.instance_types))
        }
        assert expected_cards in counts, pool.name
        for plan in node_group_plans(pool, cluster_name=env.cluster.name):
            tags = groups[plan.name].get("Tags", {})
            template_tags = {k: v for k, v in tags.items() if k.startswith("k8s.io/cluster-autoscaler/")}
            assert template_tags == (node_template_tags(pool) if pool in autoscaled_pools(env) else {}), plan.name
            if efa_enabled(pool) and pool in autoscaled_pools(env):
                assert template_tags["k8s.io/cluster-autoscaler/node-template/resources/vpc.amazonaws.com/efa"] == str(
                    expected_cards
                )
    # The autoscaler and its role exist exactly when a pool is autoscaled.
    assert ("cluster-autoscaler" in charts) == bool(autoscaled_pools(env))
    associations = {a["ServiceAccount"] for a in _resources(synthesized, name, "AWS::EKS::PodIdentityAssociation")}
    assert ("cluster-autoscaler" in associations) == bool(autoscaled_pools(env))
    assert ("aws-efa-k8s-device-plugin" in charts) == any(efa_enabled(p) for p in env.gpu_pools)
    # Placement groups only where allowed: never for a Capacity Block without its own group.
    placements = [t["LaunchTemplateData"]["Placement"] for t in templates if "Placement" in t["LaunchTemplateData"]]
    allowed = sum(
        len(p.zones)
        for p in env.gpu_pools
        if efa_enabled(p) and p.zone_pinned and p.capacity.type is not CapacityType.CAPACITY_BLOCK
    )
    assert len(placements) == allowed
    assert len(_resources(synthesized, name, "AWS::EC2::PlacementGroup")) == allowed


@pytest.mark.synth
def test_efa_security_group_allows_all_traffic_to_and_from_itself(synthesized: Synth) -> None:
    template = synthesized("dev")["gpu-cluster-dev"]["Resources"]
    (group_id,) = [k for k, r in template.items() if r["Type"] == "AWS::EC2::SecurityGroup" and "EFA" in str(r)]
    own = {"Fn::GetAtt": [group_id, "GroupId"]}
    (ingress,) = [
        r["Properties"]
        for r in template.values()
        if r["Type"] == "AWS::EC2::SecurityGroupIngress" and r["Properties"]["GroupId"] == own
    ]
    (egress,) = [
        r["Properties"]
        for r in template.values()
        if r["Type"] == "AWS::EC2::SecurityGroupEgress" and r["Properties"]["GroupId"] == own
    ]
    assert (ingress["IpProtocol"], ingress["SourceSecurityGroupId"]) == ("-1", own)
    assert (egress["IpProtocol"], egress["DestinationSecurityGroupId"]) == ("-1", own)
    efa_templates = [
        t["LaunchTemplateData"]
        for t in _resources(synthesized, "dev", "AWS::EC2::LaunchTemplate")
        if t["LaunchTemplateData"].get("NetworkInterfaces")
    ]
    assert efa_templates
    for data in efa_templates:
        for interface in data["NetworkInterfaces"]:
            assert {"Fn::GetAtt": [group_id, "GroupId"]} in interface["Groups"]
            assert "SubnetId" not in interface  # EKS refuses a subnet in a node group's launch template


@pytest.mark.synth
def test_cluster_autoscaler_role_is_scoped_to_this_clusters_groups(synthesized: Synth) -> None:
    policies = _resources(synthesized, "dev", "AWS::IAM::ManagedPolicy")
    (document,) = [p["PolicyDocument"] for p in policies if "autoscaling:SetDesiredCapacity" in str(p)]
    statements = {s["Sid"]: s for s in document["Statement"]}
    write = statements["ScaleThisClustersGroups"]
    assert write["Condition"] == {
        "StringEquals": {
            f"aws:ResourceTag/{discovery_tag('gpu-dev')}": "owned",
            "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
        }
    }
    assert "nodegroup/gpu-dev/" in str(statements["ReadThisClustersNodegroups"]["Resource"])
    assert statements["DescribeScalingInputs"]["Resource"] == "*"
    assert all(a.split(":")[1].startswith(("Describe", "Get")) for a in statements["DescribeScalingInputs"]["Action"])


@pytest.mark.synth
def test_capacity_block_launch_template_as_eks_requires(synthesized: Synth) -> None:
    # EKS capacity-blocks-mng: InstanceType, MarketType capacity-block and the reservation target in the
    # launch template; no instance types on the node group; the group in the reservation's one zone.
    (group,) = [
        g
        for g in _resources(synthesized, "prod-example", "AWS::EKS::Nodegroup")
        if g.get("NodegroupName") == "gpu-prod-h200-block-1b"
    ]
    assert group["CapacityType"] == "CAPACITY_BLOCK"
    assert "InstanceTypes" not in group
    assert len(group["Subnets"]) == 1
    assert group["ScalingConfig"] == {"MinSize": 2, "MaxSize": 2, "DesiredSize": 2}
    (block,) = [
        t["LaunchTemplateData"]
        for t in _resources(synthesized, "prod-example", "AWS::EC2::LaunchTemplate")
        if "CapacityReservationSpecification" in t["LaunchTemplateData"]
    ]
    assert block["InstanceType"] == "p5en.48xlarge"
    assert block["InstanceMarketOptions"] == {"MarketType": "capacity-block"}
    assert block["CapacityReservationSpecification"] == {
        "CapacityReservationTarget": {"CapacityReservationId": "cr-0123456789abcdef0"}
    }
    assert "Placement" not in block
    assert len(block["NetworkInterfaces"]) == 16


def test_acknowledged_cluster_autoscaler_version_skew_is_an_acknowledged_risk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert cluster_autoscaler_risks(load_environment(name="dev")) == [
        AcknowledgedRisk(
            Acknowledgement.CLUSTER_AUTOSCALER_VERSION_SKEW,
            "cluster_autoscaler.version",
            "Cluster Autoscaler 1.36.1 is built for Kubernetes 1.36 and runs on the cluster's 1.37, although its "
            "minor should match the cluster's (no 1.37.x release is confirmed); deploying it anyway because "
            "cluster_autoscaler.acknowledge_version_skew is true",
        )
    ]
    assert cluster_autoscaler_risks(load_environment(name="ci")) == []  # nothing autoscaled, nothing installed


def test_acknowledged_unverified_cluster_autoscaler_release_is_an_acknowledged_risk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = yaml_files.load((REPO_ROOT / "environments" / "dev.yaml").read_text())
    data["cluster_autoscaler"] = {"version": "1.37.0", "acknowledge_unverified_release": True}
    assert cluster_autoscaler_risks(env_from(data)) == [
        AcknowledgedRisk(
            Acknowledgement.CLUSTER_AUTOSCALER_UNVERIFIED_RELEASE,
            "cluster_autoscaler.version",
            "the row Cluster Autoscaler 1.37.0 (Kubernetes 1.37) of catalog/cluster_autoscaler.py is an assumption, "
            "not verified against upstream; deploying it anyway because "
            "cluster_autoscaler.acknowledge_unverified_release is true",
        )
    ]
    pinned = CLUSTER_AUTOSCALER_RELEASES["1.37.0"]
    monkeypatch.setitem(CLUSTER_AUTOSCALER_RELEASES, "1.37.0", dataclasses.replace(pinned, verified=True))
    assert cluster_autoscaler_risks(env_from(data)) == []


@pytest.mark.synth
def test_cluster_autoscaler_version_skew_is_a_cdk_warning(synthesized: Synth) -> None:
    import json

    outdir = synthesized("dev")["__outdir__"]
    metadata = json.loads((outdir / "gpu-cluster-dev.metadata.json").read_text())
    warnings = [
        e["data"] for e in metadata.get("/gpu-cluster-dev/ClusterAutoscaler", []) if e["type"] == "aws:cdk:warning"
    ]
    (risk,) = cluster_autoscaler_risks(load_environment(name="dev"))
    assert warnings == [f"{risk.text} [ack: gpu-platform:cluster-autoscaler-version-skew]"]
    ci = json.loads((synthesized("ci")["__outdir__"] / "gpu-cluster-ci.metadata.json").read_text())
    assert "/gpu-cluster-ci/ClusterAutoscaler" not in ci  # nothing autoscaled, nothing installed


def test_expander_prefers_the_pool_listed_first() -> None:
    priorities = yaml_files.load(cluster_autoscaler_values(load_environment(name="prod-example"))["expanderPriorities"])
    assert priorities == {
        1: [".*"],
        20: ["^eks-gpu-prod-l40s-inference-.*"],
        30: ["^eks-gpu-prod-a100-1a-.*", "^eks-gpu-prod-a100-1b-.*"],
    }
    assert cluster_autoscaler_values(load_environment(name="prod-example"))["extraArgs"]["expander"] == (
        "priority,least-waste"
    )


def test_capacity_block_scale_in_an_hour_before_the_end() -> None:
    from policy.node_pools import capacity_block_scale_ins

    env = load_environment(name="prod-example")
    (block,) = [p for p in env.gpu_pools if p.name == "h200-block"]
    assert [
        (s.nodegroup_name, s.max_size, s.schedule_expression)
        for s in capacity_block_scale_ins(block, cluster_name="gpu-prod")
    ] == [("gpu-prod-h200-block-1b", 2, "at(2027-01-15T10:30:00)")]
    assert capacity_block_scale_ins(env.gpu_pools[0], cluster_name="gpu-prod") == []


@pytest.mark.synth
def test_capacity_block_scale_in_schedule_updates_only_its_group(synthesized: Synth) -> None:
    import json

    (schedule,) = _resources(synthesized, "prod-example", "AWS::Scheduler::Schedule")
    assert schedule["ScheduleExpression"] == "at(2027-01-15T10:30:00)"
    assert json.loads(schedule["Target"]["Input"]) == {
        "ClusterName": "gpu-prod",
        "NodegroupName": "gpu-prod-h200-block-1b",
        "ScalingConfig": {"DesiredSize": 0, "MaxSize": 2, "MinSize": 0},
    }
    assert "aws-sdk:eks:updateNodegroupConfig" in json.dumps(schedule["Target"]["Arn"])
    roles = [r for r in _resources(synthesized, "prod-example", "AWS::IAM::Role") if "scheduler" in json.dumps(r)]
    (statement,) = roles[0]["Policies"][0]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "eks:UpdateNodegroupConfig"
    assert "nodegroup/gpu-prod/gpu-prod-h200-block-1b/*" in json.dumps(statement["Resource"])
