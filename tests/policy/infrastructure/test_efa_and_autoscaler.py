"""EFA and Cluster Autoscaler: the data tables against the reference copies, chart values, and the
synthesized templates of every shipped environment."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from addons.cluster_autoscaler.pin import (
    CLUSTER_AUTOSCALER_CHART_VERSION,
    CLUSTER_AUTOSCALER_RELEASES,
    CLUSTER_AUTOSCALER_VERSION,
    discovery_tag,
)
from addons.cluster_autoscaler.plan import cluster_autoscaler_values, node_template_tags
from addons.efa_device_plugin.plan import efa_device_plugin_image, efa_device_plugin_values
from catalog.efa import EFA_SUPPORT
from catalog.instances import INSTANCE_TYPES
from catalog.versions import KUBERNETES_MINOR
from config.load import REPO_ROOT
from config.model import CapacityProvider, CapacityType
from policy.environment.acknowledgements import AcknowledgedRisk, Acknowledgement, cluster_autoscaler_risks
from policy.environment.load import load_environment
from policy.infrastructure.efa import (
    EfaPodSettings,
    efa_network_interfaces,
    efa_placement,
    karpenter_network_interfaces,
    pool_efa_settings,
)
from policy.infrastructure.node_pools import autoscaled_pools, efa_enabled, efa_interfaces_per_node, node_group_plans
from tests.conftest import EXAMPLE_ENVIRONMENTS, REFERENCE, env_from, require_reference, shipped_render
from tests.helpers import yaml_files
from tests.helpers.chart_values import unknown_keys

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
    # The instance table's RDMA column is the reference's per type; types without EFA have none.
    assert {n: INSTANCE_TYPES[n].efa_rdma_read for n in EFA_SUPPORT} == {n: rows[n]["rdma_read"] for n in EFA_SUPPORT}
    assert not any(t.efa_rdma_read for n, t in INSTANCE_TYPES.items() if n not in EFA_SUPPORT)


def test_efa_types_are_in_the_device_plugin_charts_affinity() -> None:
    values = _reference(EFA_CHART / "values.yaml")
    assert set(EFA_SUPPORT) <= set(values["supportedInstanceLabels"]["values"])


def test_efa_device_plugin_values_exist_in_the_chart() -> None:
    values = _reference(EFA_CHART / "values.yaml")
    ours = efa_device_plugin_values(load_environment(name="prod-example"))
    assert unknown_keys(ours, values) == []
    assert ours["nodeSelector"] == {"gpu-platform.io/efa": "true"}
    # The chart's default image is us-west-2's; ours is the same repository in the cluster's Region.
    assert values["image"]["repository"] == efa_device_plugin_image("us-west-2")
    assert ours["image"] == {"repository": "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-efa-k8s-device-plugin"}


@pytest.mark.parametrize(
    ("region", "repository"),
    [
        ("us-west-2", "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin"),
        ("eu-central-1", "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/aws-efa-k8s-device-plugin"),
        ("af-south-1", "877085696533.dkr.ecr.af-south-1.amazonaws.com/eks/aws-efa-k8s-device-plugin"),
        ("ap-southeast-3", "296578399912.dkr.ecr.ap-southeast-3.amazonaws.com/eks/aws-efa-k8s-device-plugin"),
        ("cn-north-1", "918309763551.dkr.ecr.cn-north-1.amazonaws.com.cn/eks/aws-efa-k8s-device-plugin"),
        ("us-gov-west-1", "013241004608.dkr.ecr.us-gov-west-1.amazonaws.com/eks/aws-efa-k8s-device-plugin"),
    ],
)
def test_efa_plugin_image_comes_from_the_clusters_region(region: str, repository: str) -> None:
    assert efa_device_plugin_image(region) == repository


def test_every_eks_registry_row_names_its_source_and_date() -> None:
    from catalog.eks_registries import EKS_REGISTRIES
    from catalog.regions import REGIONS

    assert set(EKS_REGISTRIES) == set(REGIONS), "every region the config accepts has its EKS registry"
    for region, row in EKS_REGISTRIES.items():
        assert row.source.startswith("https://docs.") and row.checked == "2026-12-03", region
        assert len(row.account) == 12 and row.account.isdigit(), region
    assert [r for r, row in EKS_REGISTRIES.items() if row.assumed] == ["ap-east-2"]


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


def _pool(env: str, name: str) -> Any:
    (pool,) = [p for p in load_environment(name=env).gpu_pools if p.name == name]
    return pool


def test_pod_settings_share_a_nodes_efa_and_huge_pages_by_its_gpus() -> None:
    h100 = _pool("dev", "h100")  # p5.48xlarge: 8 GPUs, 32 EFA
    rdma = {"FI_EFA_FORK_SAFE": "1", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_PROVIDER": "efa"}
    full = pool_efa_settings(h100, gpus=8)
    assert full == EfaPodSettings(efa_devices=32, hugepages_mib=5120, env=tuple(sorted(rdma.items())))
    half = pool_efa_settings(h100, gpus=4)
    assert half is not None and (half.efa_devices, half.hugepages_mib) == (16, 2560)
    one = pool_efa_settings(h100, gpus=1)
    assert one is not None and (one.efa_devices, one.hugepages_mib) == (4, 640)
    # g6.12xlarge/g6.24xlarge: 4 GPUs, one EFA. A full-node pod gets it; a pod of less than one interface's
    # share gets none (the device plugin gives an interface to one pod: it would keep the others off).
    l4 = pool_efa_settings(_pool("dev", "l4"), gpus=4)
    assert l4 is not None and (l4.efa_devices, l4.hugepages_mib) == (1, 5120)
    assert pool_efa_settings(_pool("dev", "l4"), gpus=1) is None
    assert pool_efa_settings(_pool("dev", "l4"), gpus=2) is None
    # A MIG slice is 1/56 of a p5.48xlarge partitioned into 1g.10gb slices: less than one of its 32 interfaces.
    assert pool_efa_settings(_pool("prod-example", "h100-mig"), gpus=1) is None
    seven = pool_efa_settings(_pool("prod-example", "h100-mig"), gpus=7)  # one GPU's slices: 4 interfaces
    assert seven is not None and (seven.efa_devices, seven.hugepages_mib) == (4, 640)
    assert pool_efa_settings(h100, gpus=0) is None
    assert pool_efa_settings(h100.model_copy(update={"efa": False}), gpus=8) is None


def test_rdma_env_only_on_instance_types_with_rdma_read() -> None:
    h100 = _pool("dev", "h100")

    def env_of(*types: str) -> dict[str, str]:
        settings = pool_efa_settings(h100.model_copy(update={"instance_types": types}), gpus=8)  # whole node
        assert settings is not None
        return dict(settings.env)

    for with_rdma in ("p4d.24xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "g6.48xlarge", "g6e.24xlarge"):
        assert env_of(with_rdma)["FI_EFA_USE_DEVICE_RDMA"] == "1", with_rdma
    for without in ("g5.48xlarge", "g5.12xlarge"):
        assert env_of(without) == {"FI_EFA_FORK_SAFE": "1", "FI_PROVIDER": "efa"}, without
    # A pool that mixes the two may land on either: no RDMA.
    assert "FI_EFA_USE_DEVICE_RDMA" not in env_of("g6.48xlarge", "g5.48xlarge")


def test_a_run_over_pools_of_different_efa_counts_is_pinned_to_one_count() -> None:
    env = load_environment(name="prod-example")
    pools = {p.name: p for p in env.gpu_pools}
    hopper = [pools["h100"], pools["h200-block"], pools["b200"]]  # 32, 16 and 8 EFA per 8-GPU node
    placement = efa_placement(hopper, gpus=8)
    assert placement.pools == ("h100",)
    assert placement.settings is not None and placement.settings.efa_devices == 32
    assert [(name, s.efa_devices if s else 0) for name, s in placement.left_out] == [("h200-block", 16), ("b200", 8)]
    # Pools that give a pod the same settings need no pin.
    same = efa_placement([pools["h100"], pools["h100"].model_copy(update={"name": "h100-b"})], gpus=8)
    assert same.pools == () and same.settings == pool_efa_settings(pools["h100"], gpus=8)
    # An EFA group wins over pools without EFA, whatever their size.
    no_efa = pools["b200"].model_copy(update={"name": "b200-tcp", "efa": False, "max_size": 100})
    assert efa_placement([no_efa, pools["b200"]], gpus=8).pools == ("b200",)


def _worker_job(env: str, run: str) -> dict[str, Any]:
    (job,) = [o for o in shipped_render(env).files[f"teams/llm-research/{run}.yaml"] if o["kind"] == "Job"]
    return job


def test_efa_pod_spec_requests_huge_pages_and_its_pools_efa_count() -> None:
    # finetune-8b asks for hopper-or-newer: h100 (32 EFA), h200-block (16), b200 (8) serve it.
    spec = _worker_job("prod-example", "finetune-8b")["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    resources = container["resources"]
    assert resources["requests"]["hugepages-2Mi"] == resources["limits"]["hugepages-2Mi"] == "5120Mi"
    assert resources["requests"]["vpc.amazonaws.com/efa"] == resources["limits"]["vpc.amazonaws.com/efa"] == 32
    assert resources["requests"]["memory"] == resources["limits"]["memory"]  # huge pages come with memory
    assert spec["affinity"]["nodeAffinity"] == {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "gpu-platform.io/pool", "operator": "In", "values": ["h100"]}]}
            ]
        }
    }
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["FI_EFA_USE_DEVICE_RDMA"] == "1" and env["FI_PROVIDER"] == "efa"


def test_runs_on_one_kind_of_pool_are_not_pinned() -> None:
    render = shipped_render("prod-example")
    pods = [o for o in render.files["teams/llm-research/pretrain-70b.yaml"] if o["kind"] == "Pod"]
    assert pods and all("nodeAffinity" not in p["spec"].get("affinity", {}) for p in pods)
    assert {p["spec"]["containers"][0]["resources"]["limits"]["hugepages-2Mi"] for p in pods} == {"5120Mi"}


def test_karpenter_efa_pool_gets_the_interfaces_of_its_type() -> None:
    from addons.karpenter.plan import karpenter_objects

    env = load_environment(name="karpenter-example")
    block = next(p for p in env.gpu_pools if p.name == "h200-block")  # Karpenter static, p5en.48xlarge
    assert efa_enabled(block) and efa_interfaces_per_node(block) == 16
    interfaces = karpenter_network_interfaces(block)
    assert interfaces[0] == {"deviceIndex": 0, "interfaceType": "interface", "networkCardIndex": 0}
    assert [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces[1:]] == [
        (0, 1, "efa-only"),
        *((card, 0, "efa-only") for card in range(1, 16)),
    ]
    (node_class,) = [
        o for o in karpenter_objects(env) if o["kind"] == "EC2NodeClass" and o["metadata"]["name"] == "h200-block"
    ]
    assert node_class["spec"]["networkInterfaces"] == interfaces
    assert node_class["spec"]["securityGroupSelectorTerms"] == [{"tags": {"aws:eks:cluster-name": "gpu-karpenter"}}]
    # A dynamic pool gets no EFA by default (Karpenter cannot provision for huge pages), and no error.
    flex = next(p for p in env.gpu_pools if p.name == "l40s-flex")
    assert not efa_enabled(flex) and karpenter_network_interfaces(flex) == []


def test_karpenter_crd_has_the_network_interfaces_the_pools_use() -> None:
    crd = _reference(REFERENCE / "karpenter-v1.14.1" / "karpenter.k8s.aws_ec2nodeclasses.yaml")
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    item = spec["networkInterfaces"]["items"]
    assert item["properties"]["interfaceType"]["enum"] == ["interface", "efa-only"]
    assert set(item["required"]) == {"deviceIndex", "interfaceType", "networkCardIndex"}


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
                # 5128 pre-allocated 2 MiB pages: what EFA pods' hugepages-2Mi requests fit in from zero.
                assert template_tags["k8s.io/cluster-autoscaler/node-template/resources/hugepages-2Mi"] == "10256Mi"
    # The autoscaler and its role exist exactly when a pool is autoscaled.
    assert ("cluster-autoscaler" in charts) == bool(autoscaled_pools(env))
    associations = {a["ServiceAccount"] for a in _resources(synthesized, name, "AWS::EKS::PodIdentityAssociation")}
    assert ("cluster-autoscaler" in associations) == bool(autoscaled_pools(env))
    assert ("aws-efa-k8s-device-plugin" in charts) == any(efa_enabled(p) for p in env.gpu_pools)
    if "aws-efa-k8s-device-plugin" in charts:
        values = json.loads(charts["aws-efa-k8s-device-plugin"]["Values"])
        assert values["image"] == {"repository": efa_device_plugin_image(env.region)}
    # Placement groups only where allowed: never for a Capacity Block without its own group.
    placements = [t["LaunchTemplateData"]["Placement"] for t in templates if "Placement" in t["LaunchTemplateData"]]
    allowed = sum(
        len(p.zones)
        for p in env.gpu_pools
        if p.provider is CapacityProvider.MANAGED_NODE_GROUP  # Karpenter pools: none
        and efa_enabled(p)
        and p.zone_pinned
        and p.capacity.type is not CapacityType.CAPACITY_BLOCK
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
            "the row Cluster Autoscaler 1.37.0 (Kubernetes 1.37) of addons/cluster_autoscaler/pin.py is an assumption, "
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
    assert warnings == [f"{risk.text} [ack: gpu-platform:cluster_autoscaler.acknowledge_version_skew]"]
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
    from policy.infrastructure.node_pools import capacity_block_scale_ins

    env = load_environment(name="prod-example")
    (block,) = [p for p in env.gpu_pools if p.name == "h200-block"]
    assert [
        (s.nodegroup_name, s.max_size, s.schedule_expression)
        for s in capacity_block_scale_ins(block, cluster_name="gpu-prod")
    ] == [("gpu-prod-h200-block-1b", 2, "at(2027-06-30T10:30:00)")]
    assert capacity_block_scale_ins(env.gpu_pools[0], cluster_name="gpu-prod") == []


@pytest.mark.synth
def test_capacity_block_scale_in_schedule_updates_only_its_group(synthesized: Synth) -> None:
    import json

    (schedule,) = _resources(synthesized, "prod-example", "AWS::Scheduler::Schedule")
    assert schedule["ScheduleExpression"] == "at(2027-06-30T10:30:00)"
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


def test_capacity_checks_count_only_the_pools_a_run_is_pinned_to() -> None:
    from catalog.device_classes import DEVICE_CLASSES, DeviceShape
    from policy.checks.demands import gpu_demands
    from policy.infrastructure.capacity import Reach, cluster_pod_capacity
    from policy.infrastructure.node_pools import max_nodes

    env = load_environment(name="prod-example")
    (demand,) = gpu_demands(shipped_render("prod-example").files["teams/llm-research/finetune-8b.yaml"])
    assert demand.pod.pools == ("h100",)
    spec = DEVICE_CLASSES[DeviceShape.HOPPER_OR_NEWER]
    pinned = cluster_pod_capacity(env, spec, demand.pod, reach=Reach.MAX_SIZE)
    assert pinned == max_nodes(_pool("prod-example", "h100"))  # one 8-GPU pod per p5.48xlarge
    anywhere = cluster_pod_capacity(env, spec, dataclasses.replace(demand.pod, pools=()), reach=Reach.MAX_SIZE)
    assert anywhere > pinned


def test_summary_says_what_efa_each_run_gets_and_where_it_is_pinned() -> None:
    from charts.summary import summary_markdown

    render = shipped_render("prod-example")
    text = summary_markdown(load_environment(name="prod-example"), render.plans)
    assert (
        "| llm-research | finetune-8b | pinned to h100 (not h200-block: 16 EFA, b200: 8 EFA) | 32 | 5120Mi | yes |"
    ) in text.splitlines()
    assert "| llm-research | pretrain-70b | any serving pool | 32 | 5120Mi | yes |" in text.splitlines()
