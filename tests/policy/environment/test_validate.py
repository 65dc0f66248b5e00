"""Every configuration rule: a ``fails_...`` test with the exact one-line message."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from addons.cluster_autoscaler.pin import CLUSTER_AUTOSCALER_RELEASES, ClusterAutoscalerRelease
from policy.environment.load import load_environment
from tests.conftest import EXAMPLE_ENVIRONMENTS, env_from
from tests.helpers import env_refusal, yaml_files


def _pool(data: dict[str, Any], index: int = 0) -> dict[str, Any]:
    pool: dict[str, Any] = data["gpu_pools"][index]
    return pool


@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_shipped_environments_load(name: str) -> None:
    env = load_environment(name=name)
    assert env.name == name


def test_dev_is_the_default() -> None:
    assert load_environment().name == "dev"


def test_fails_unknown_key(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["endpoint"] = "public"
    assert env_refusal(dev_data) == (
        "cluster.endpoint: unknown key (got 'public'); fix: remove it or use one of: "
        "acknowledge_public_endpoint_open_to_internet, admin_principal_arns, auto_mode, endpoint_access, name, "
        "public_access_cidrs, scheduler_bin_packing"
    )


def test_fails_unknown_key_in_a_pool(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["max"] = 3
    assert env_refusal(dev_data).startswith("gpu_pools[0].max: unknown key (got 3); fix: remove it or use one of: ")


def test_fails_missing_key(dev_data: dict[str, Any]) -> None:
    del dev_data["region"]
    assert env_refusal(dev_data) == (
        "region: required key is missing (got nothing); fix: add 'region' "
        "(see docs/reference/settings.md#environment-files)"
    )


def test_fails_bad_enum(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["capacity"] = {"type": "reserved"}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].capacity.type: not an allowed value (got 'reserved'); "
        "fix: use one of 'on_demand', 'spot' or 'capacity_block'"
    )


def test_fails_min_greater_than_max(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(min_size=3, max_size=2)
    assert env_refusal(dev_data) == (
        "gpu_pools[0].min_size: min_size is larger than max_size 2 (got 3); fix: set min_size <= max_size"
    )


def test_fails_desired_outside_range(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(min_size=0, max_size=2, desired_size=5)
    assert env_refusal(dev_data) == (
        "gpu_pools[0].desired_size: desired_size is outside [min_size, max_size] = [0, 2] (got 5); "
        "fix: set desired_size between min_size and max_size, or leave it out"
    )


def test_fails_system_nodes_min_greater_than_max(dev_data: dict[str, Any]) -> None:
    dev_data["system_nodes"] = {"min_size": 5, "max_size": 4}
    assert env_refusal(dev_data) == (
        "system_nodes.min_size: min_size is larger than max_size 4 (got 5); fix: set min_size <= max_size"
    )


@pytest.mark.parametrize(
    ("instance_type", "problem"),
    [
        ("p9.48xlarge", "unknown instance type"),
        ("m7i.large", "not a GPU instance type"),
        ("g6.3xlarge", "unknown size in a GPU family"),
    ],
)
def test_fails_non_gpu_instance_type(dev_data: dict[str, Any], instance_type: str, problem: str) -> None:
    _pool(dev_data)["instance_types"] = [instance_type]
    assert env_refusal(dev_data) == (
        f"gpu_pools[0].instance_types[0]: {problem} (got '{instance_type}'); fix: use a GPU instance type such as "
        "p4d.24xlarge, p5.48xlarge, p5en.48xlarge, p6-b200.48xlarge, g5.*, g6.*, g6e.*"
    )


def test_fails_zone_not_in_vpc(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["zones"] = ["us-west-2c"]
    assert env_refusal(dev_data) == (
        "gpu_pools[0].zones[0]: zone is not in the VPC ['us-west-2a', 'us-west-2b'] (got 'us-west-2c'); "
        "fix: use one of the VPC's zones or add the zone to network.availability_zones"
    )


def test_fails_zone_not_in_existing_vpc() -> None:
    data = copy.deepcopy(load_environment(name="prod-example").model_dump(mode="json"))
    data["gpu_pools"][0]["zones"] = ["us-east-1d"]
    assert env_refusal(data).startswith("gpu_pools[0].zones[0]: zone is not in the VPC ['us-east-1a', 'us-east-1b', ")


def test_fails_capacity_block_without_reservation(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(zones=["us-west-2a"], capacity={"type": "capacity_block"})
    assert env_refusal(dev_data) == (
        "gpu_pools[0].capacity.reservation_id: a capacity block needs its reservation id (got nothing); "
        "fix: set capacity.reservation_id to the Capacity Block's cr-... id"
    )


def test_fails_capacity_block_over_two_zones(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["zones"] = ["us-west-2a", "us-west-2b"]
    _pool(dev_data)["capacity"] = {"type": "capacity_block", "reservation_id": "cr-0123456789abcdef0"}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].zones: a Capacity Block is one instance type in one zone (got ['us-west-2a', 'us-west-2b']); "
        "fix: give the pool exactly the block's zone and instance type"
    )


def test_fails_reservation_without_capacity_block(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["capacity"] = {"type": "spot", "reservation_id": "cr-0123456789abcdef0"}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].capacity.reservation_id: a reservation id only applies to capacity_block, not spot "
        "(got 'cr-0123456789abcdef0'); fix: set capacity.type: capacity_block or drop reservation_id"
    )


@pytest.mark.parametrize("auto_mode", [{"enabled": True}, {"node_pools": ["general-purpose"]}])
def test_fails_auto_mode_with_dra(dev_data: dict[str, Any], auto_mode: dict[str, Any]) -> None:
    dev_data["cluster"]["auto_mode"] = auto_mode
    line = env_refusal(dev_data)
    assert line.startswith("cluster.auto_mode: EKS Auto Mode brings its own GPU device management, which conflicts")
    assert line.endswith("fix: remove cluster.auto_mode and use gpu_pools (managed node groups) for GPU capacity")


def test_auto_mode_is_allowed_without_the_dra_driver(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["auto_mode"] = {"enabled": True}
    dev_data["dra_driver"] = {"enabled": False}
    for pool in dev_data["gpu_pools"]:
        pool.update(dra=False, device_plugin=True)
    assert env_from(dev_data).cluster.auto_mode.requested


def test_fails_pool_both_dra_and_device_plugin(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["device_plugin"] = True
    assert env_refusal(dev_data) == (
        "gpu_pools[0].device_plugin: pool is marked both dra and device_plugin; the two oversubscribe GPUs silently "
        "(got True); fix: set exactly one of dra and device_plugin to true"
    )


def test_fails_pool_with_neither_dra_nor_device_plugin(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["dra"] = False
    assert env_refusal(dev_data) == (
        "gpu_pools[0].dra: pool exposes its GPUs through neither DRA nor the device plugin (got False); "
        "fix: set dra: true (or device_plugin: true)"
    )


def test_fails_dra_pool_without_driver(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {"enabled": False}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].dra: pool uses DRA but dra_driver.enabled is false (got True); "
        "fix: set dra_driver.enabled: true or use device_plugin: true on this pool"
    )


def test_fails_duplicate_pool_name(dev_data: dict[str, Any]) -> None:
    _pool(dev_data, 1)["name"] = _pool(dev_data)["name"]
    assert env_refusal(dev_data) == (
        "gpu_pools[1].name: pool name used twice (got 'h100'); fix: give every GPU pool its own name"
    )


def test_fails_public_endpoint_without_allow_list(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["public_access_cidrs"] = []
    assert env_refusal(dev_data) == (
        "cluster.public_access_cidrs: a public endpoint needs an allow-list (got []); "
        "fix: list the CIDRs that may reach the API server, or set endpoint_access: private"
    )


def test_fails_single_zone_vpc(dev_data: dict[str, Any]) -> None:
    dev_data["network"]["availability_zones"] = ["us-west-2a"]
    assert env_refusal(dev_data) == (
        "network.availability_zones: the VPC needs at least two zones (got ['us-west-2a']); "
        "fix: list two or more zones of the region"
    )


def test_fails_zone_outside_region(dev_data: dict[str, Any]) -> None:
    dev_data["network"]["availability_zones"] = ["us-west-2a", "us-east-1b"]
    assert env_refusal(dev_data) == (
        "network.availability_zones[1]: zone is not in region us-west-2 (got 'us-east-1b'); "
        "fix: use zones named us-west-2a, us-west-2b, ..."
    )


def test_fails_cpu_type_for_system_nodes(dev_data: dict[str, Any]) -> None:
    dev_data["system_nodes"] = {"instance_types": ["p5.48xlarge"]}
    assert env_refusal(dev_data) == (
        "system_nodes.instance_types[0]: not a known CPU instance type (got 'p5.48xlarge'); "
        "fix: use a general-purpose type such as m7i.large or m7i.xlarge"
    )


def test_fails_malformed_label_value(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["labels"] = {"team": "a b"}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].labels.team: not in the allowed form (got 'a b'); fix: use an empty value, or 1-63 letters, "
        "digits, '-', '_' or '.' starting and ending with a letter or digit"
    )


def test_fails_scarce_default_tier(dev_data: dict[str, Any]) -> None:
    dev_data["platform"]["default_tier"] = "deadline"
    assert env_refusal(dev_data) == (
        "platform.default_tier: a scarce tier as the global default would give every Pod without a class that tier, "
        "and admission refuses it in namespaces without the grant (got 'deadline'); "
        "fix: use standard or opportunistic, or leave default_tier unset"
    )


def test_fails_two_teams_sharing_a_namespace(dev_data: dict[str, Any]) -> None:
    dev_data["platform"]["teams"]["vision"]["namespace"] = "team-llm-research"
    assert env_refusal(dev_data) == (
        "platform.teams.vision.namespace: namespace already belongs to team llm-research (got 'team-llm-research'); "
        "fix: give every team its own namespace (grants are namespace labels)"
    )


@pytest.mark.parametrize("namespace", ["kube-system", "default", "nvidia"])
def test_fails_team_in_a_system_namespace(dev_data: dict[str, Any], namespace: str) -> None:
    dev_data["platform"]["teams"]["vision"]["namespace"] = namespace
    assert env_refusal(dev_data) == (
        f"platform.teams.vision.namespace: a system namespace cannot be a team namespace (got '{namespace}'); "
        "fix: give the team a namespace of its own"
    )


def test_capacity_block_group_may_ask_for_its_nodes(dev_data: dict[str, Any]) -> None:
    # EKS honours a non-zero desired size once the block is active (EKS capacity-blocks-mng).
    _pool(dev_data).update(
        zones=["us-west-2a"],
        min_size=2,
        max_size=2,
        capacity={"type": "capacity_block", "reservation_id": "cr-0123456789abcdef0"},
    )
    assert env_from(dev_data).gpu_pools[0].min_size == 2


# --- scaling and EFA --------------------------------------------------------------------------------


def test_fails_static_pool_with_min_below_max(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["min_size"] = 0
    assert env_refusal(dev_data) == (
        "gpu_pools[0].min_size: a static pool (scaling: static, the default for node groups) holds exactly max_size "
        "2 nodes, and nothing adds the others (got 0); fix: set min_size: 2, or set scaling: autoscaled"
    )


def test_fails_autoscaled_karpenter_pool() -> None:

    from config.load import REPO_ROOT

    data = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data["gpu_pools"][0]["scaling"] = "autoscaled"
    assert env_refusal(data) == (
        "gpu_pools[0].scaling: Karpenter pools scale themselves; scaling applies to managed node groups "
        "(got 'autoscaled'); fix: remove scaling and set karpenter.mode: dynamic (follows pending pods) or static "
        "(holds max_size nodes)"
    )


def test_fails_dra_pool_autoscaled_from_zero(dev_data: dict[str, Any]) -> None:
    _pool(dev_data, 1)["min_size"] = 0
    assert env_refusal(dev_data) == (
        "gpu_pools[1].min_size: Cluster Autoscaler cannot scale a DRA pool up from zero on AWS (its template node "
        "has no ResourceSlices), so gangs on this pool would never get nodes (got 0); fix: set min_size >= 1 (it "
        "scales 1 -> N from a real node), or scaling: static"
    )


def test_device_plugin_pool_may_autoscale_from_zero(dev_data: dict[str, Any]) -> None:
    _pool(dev_data, 1).update(min_size=0, dra=False, device_plugin=True)
    assert env_from(dev_data).gpu_pools[1].min_size == 0


def test_fails_efa_on_a_type_without_efa(dev_data: dict[str, Any]) -> None:
    _pool(dev_data, 1).update(instance_types=["g6.12xlarge", "g6.4xlarge"], efa=True)
    assert env_refusal(dev_data) == (
        "gpu_pools[1].efa: g6.4xlarge (instance_types[1]) has no EFA interfaces (got True); "
        "fix: use EFA instance types only (catalog/efa.py), or set efa: false"
    )


def test_fails_placement_group_with_a_capacity_block_in_another_group(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(
        zones=["us-west-2a"],
        placement_group=True,
        capacity={"type": "capacity_block", "reservation_id": "cr-0123456789abcdef0"},
    )
    assert env_refusal(dev_data) == (
        "gpu_pools[0].placement_group: a Capacity Block's instances launch where the block was reserved; a "
        "placement group of its own causes insufficient-capacity errors (got True); fix: set "
        "capacity.placement_group to the group the block was reserved in, or set placement_group: false"
    )


def test_capacity_block_may_name_its_own_placement_group(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(
        zones=["us-west-2a"],
        placement_group=True,
        capacity={"type": "capacity_block", "reservation_id": "cr-0123456789abcdef0", "placement_group": "blk-1"},
    )
    assert env_from(dev_data).gpu_pools[0].capacity.placement_group == "blk-1"


def test_fails_block_placement_group_without_a_block(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["capacity"] = {"type": "on_demand", "placement_group": "blk-1"}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].capacity.placement_group: names a Capacity Block's placement group, but capacity is "
        "on_demand (got 'blk-1'); fix: set capacity.type: capacity_block or drop capacity.placement_group"
    )


def test_fails_placement_group_without_efa(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(placement_group=True, efa=False)
    assert env_refusal(dev_data) == (
        "gpu_pools[0].placement_group: a cluster placement group is for EFA pools (low-latency node-to-node "
        "traffic) (got True); fix: set efa: true on EFA instance types, or drop placement_group"
    )


def test_fails_placement_group_across_zones(dev_data: dict[str, Any]) -> None:
    _pool(dev_data).update(placement_group=True, zone_pinned=False)
    assert env_refusal(dev_data) == (
        "gpu_pools[0].placement_group: a cluster placement group lives in one zone, and this pool's node group "
        "spans zones (got True); fix: set zone_pinned: true, or drop placement_group"
    )


def test_fails_cluster_autoscaler_version_skew_without_acknowledgement(dev_data: dict[str, Any]) -> None:
    del dev_data["cluster_autoscaler"]
    assert env_refusal(dev_data) == (
        "cluster_autoscaler.version: Cluster Autoscaler 1.36.1 is built for Kubernetes 1.36, one minor behind the "
        "cluster's 1.37, and its minor should match the cluster's (got '1.36.1'); fix: set "
        "cluster_autoscaler.acknowledge_version_skew: true to run it until a 1.37.x release is confirmed, or use a "
        "confirmed 1.37.x release"
    )


def test_acknowledged_cluster_autoscaler_version_skew_loads(dev_data: dict[str, Any]) -> None:
    config = env_from(dev_data).cluster_autoscaler
    assert (config.version, config.acknowledge_version_skew, config.acknowledge_unverified_release) == (
        "1.36.1",
        True,
        False,
    )


def test_fails_unverified_cluster_autoscaler_without_acknowledgement(dev_data: dict[str, Any]) -> None:
    dev_data["cluster_autoscaler"] = {"version": "1.37.0"}
    assert env_refusal(dev_data) == (
        "cluster_autoscaler.version: this release's row is an assumption: no such tag upstream was checked yet "
        "(got '1.37.0'); fix: check https://github.com/kubernetes/autoscaler/releases, then set verified=True on "
        "the row; or set cluster_autoscaler.acknowledge_unverified_release: true"
    )


def test_fails_cluster_autoscaler_two_minors_behind(dev_data: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CLUSTER_AUTOSCALER_RELEASES, "1.35.0", ClusterAutoscalerRelease("1.35.0", "1.35", True))
    dev_data["cluster_autoscaler"]["version"] = "1.35.0"
    assert env_refusal(dev_data) == (
        "cluster_autoscaler.version: Cluster Autoscaler's minor must match the cluster's Kubernetes 1.37 "
        "(got '1.35.0'); fix: use a 1.37.x release, or a 1.36.x release with "
        "cluster_autoscaler.acknowledge_version_skew: true"
    )


def test_fails_cluster_autoscaler_newer_than_the_cluster(
    dev_data: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(CLUSTER_AUTOSCALER_RELEASES, "1.38.0", ClusterAutoscalerRelease("1.38.0", "1.38", True))
    dev_data["cluster_autoscaler"]["version"] = "1.38.0"
    assert env_refusal(dev_data).startswith(
        "cluster_autoscaler.version: Cluster Autoscaler's minor must match the cluster's Kubernetes 1.37 (got '1.38.0')"
    )


def test_fails_unknown_cluster_autoscaler_release(dev_data: dict[str, Any]) -> None:
    dev_data["cluster_autoscaler"]["version"] = "1.37.9"
    assert env_refusal(dev_data) == (
        "cluster_autoscaler.version: not a release in addons/cluster_autoscaler/pin.py (got '1.37.9'); "
        "fix: use one of 1.36.1, 1.37.0 or add a checked row to the table"
    )


def test_no_cluster_autoscaler_rules_without_autoscaled_pools(dev_data: dict[str, Any]) -> None:
    del dev_data["cluster_autoscaler"]
    _pool(dev_data, 1).update(scaling="static", min_size=4)
    assert env_from(dev_data).cluster_autoscaler.acknowledge_version_skew is False


def test_fails_node_group_name_too_long(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["name"] = "gpu-" + "x" * 40
    _pool(dev_data)["name"] = "h100-" + "y" * 14
    assert env_refusal(dev_data) == (
        f"gpu_pools[0].name: node group name 'gpu-{'x' * 40}-h100-{'y' * 14}-2a' is longer than 63 characters "
        f"(got 'h100-{'y' * 14}'); fix: shorten the pool name to at most 15 characters, or the cluster name"
    )


def test_fails_zone_listed_twice(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["zones"] = ["us-west-2a", "us-west-2a"]
    assert env_refusal(dev_data) == (
        "gpu_pools[0].zones: a zone is listed twice (got ['us-west-2a', 'us-west-2a']); fix: list each zone once"
    )


def test_fails_vpc_cidr_too_small(dev_data: dict[str, Any]) -> None:
    dev_data["network"]["vpc_cidr"] = "10.0.0.0/18"
    assert env_refusal(dev_data) == (
        "network.vpc_cidr: too small for a /19 node subnet and a /24 public subnet in 2 zones (got '10.0.0.0/18'); "
        "fix: use a range of at least 16896 addresses, e.g. a /17"
    )


def test_fails_arm_system_nodes(dev_data: dict[str, Any]) -> None:
    dev_data["system_nodes"] = {"instance_types": ["m7g.large"]}
    assert env_refusal(dev_data) == (
        "system_nodes.instance_types[0]: the system node group runs the AL2023 x86_64 AMI (got 'm7g.large'); "
        "fix: use an x86_64 type such as m7i.large"
    )


def test_fails_malformed_admin_arn(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["admin_principal_arns"] = ["PlatformAdmin"]
    assert env_refusal(dev_data) == (
        "cluster.admin_principal_arns[0]: not in the allowed form (got 'PlatformAdmin'); fix: use an IAM role or "
        "user ARN: arn:aws:iam::<12-digit account>:role/<name> or ...:user/<name>"
    )


def test_fails_mig_profile_the_gpu_lacks(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["mig_profile"] = "1g.5gb"
    assert env_refusal(dev_data) == (
        "gpu_pools[0].mig_profile: p5.48xlarge GPUs do not offer this MIG profile (got '1g.5gb'); "
        "fix: use one of 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 7g.80gb"
    )


def test_fails_mig_profile_on_gpus_without_mig(dev_data: dict[str, Any]) -> None:
    _pool(dev_data, 1)["mig_profile"] = "1g.10gb"
    assert env_refusal(dev_data) == (
        "gpu_pools[1].mig_profile: g6.12xlarge GPUs do not offer this MIG profile (got '1g.10gb'); "
        "fix: drop mig_profile for this type"
    )


def test_fails_efa_on_a_dynamic_karpenter_pool() -> None:
    from config.load import REPO_ROOT

    data = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data["gpu_pools"][0]["efa"] = True
    assert env_refusal(data) == (
        "gpu_pools[0].efa: EFA pods request the EFA driver's hugepages-2Mi, which Karpenter cannot provision for "
        "(kubernetes-sigs/karpenter#751), so a dynamic pool would never launch their nodes (got True); "
        "fix: set karpenter.mode: static (every node exists before the pods), or set efa: false"
    )


def test_fails_efa_on_a_karpenter_pool_that_launches_any_size_of_its_families() -> None:
    from config.load import REPO_ROOT

    data = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data["gpu_pools"][1]["efa"] = True
    data["gpu_pools"][1]["karpenter"]["instance_families"] = ["p5en"]
    assert env_refusal(data) == (
        "gpu_pools[1].efa: karpenter.instance_families ['p5en'] lets Karpenter launch any size of the families, "
        "and the sizes differ in EFA interfaces or have none (got True); fix: list the EFA sizes in "
        "instance_types and drop karpenter.instance_families, or set efa: false"
    )


def test_fails_efa_on_a_karpenter_pool_of_two_interface_layouts() -> None:
    from config.load import REPO_ROOT

    data = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data["gpu_pools"][1].update(instance_types=["p5en.48xlarge", "p5.48xlarge"], efa=True)
    assert env_refusal(data) == (
        "gpu_pools[1].efa: one EC2NodeClass carries one network interface layout, but the types take different "
        "EFA interfaces (p5en.48xlarge 16, p5.48xlarge 32) (got True); fix: give each EFA layout its own "
        "Karpenter pool, or set efa: false"
    )


def test_fails_placement_group_on_a_karpenter_pool() -> None:
    from config.load import REPO_ROOT

    data = yaml_files.load((REPO_ROOT / "environments" / "karpenter-example.yaml").read_text())
    data["gpu_pools"][1]["placement_group"] = True
    assert env_refusal(data) == (
        "gpu_pools[1].placement_group: placement groups are built into managed node group launch templates only "
        "(got True); fix: use provider: managed_node_group for a pool in a placement group, or drop placement_group"
    )


def test_fails_end_time_on_capacity_that_does_not_end(dev_data: dict[str, Any]) -> None:
    _pool(dev_data)["capacity"] = {"type": "on_demand", "ends_at": "2027-01-15T11:30:00Z"}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].capacity.ends_at: only a Capacity Block ends, not on_demand capacity "
        "(got '2027-01-15T11:30:00+00:00'); fix: set capacity.type: capacity_block or drop capacity.ends_at"
    )
