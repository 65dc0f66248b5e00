"""What AWS or Kubernetes would refuse, refused at synth in one line; and no refusal in pydantic's words.

Every rule here has a ``fails_...`` test with the exact line (``config.errors.ConfigError``).
"""

from __future__ import annotations

import re
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from config.errors import ConfigError
from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from config.model_base import PATTERN_WORDS
from config.platform import RunConfig
from tests.conftest import env_from
from tests.helpers import env_refusal


def _patterns(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[str]:
    """Every ``pattern`` a field of ``model`` (or of a section inside it) is checked against."""
    if model in seen:
        return set()
    seen.add(model)
    found: set[str] = set()

    def walk(annotation: Any) -> None:
        for meta in getattr(annotation, "__metadata__", ()):
            if getattr(meta, "pattern", None):
                found.add(meta.pattern)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found.update(_patterns(annotation, seen))
        for arg in typing.get_args(annotation):
            walk(arg)

    for field in model.model_fields.values():
        walk(field.annotation)
        for meta in field.metadata:
            if getattr(meta, "pattern", None):
                found.add(meta.pattern)
    return found


def test_every_pattern_a_field_is_checked_against_has_words() -> None:
    patterns = _patterns(EnvironmentConfig, set()) | _patterns(RunConfig, set())
    assert patterns and patterns <= set(PATTERN_WORDS)
    for words in PATTERN_WORDS.values():
        assert not re.search(r"[\^$\\]|\{\d", words), words  # words, not a regular expression


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda d: d["gpu_pools"][0].update(max_size=0),
            "gpu_pools[0].max_size: less than 1 (got 0); fix: use a whole number of at least 1",
        ),
        (
            lambda d: d["gpu_pools"][0].update(root_volume_gib=20000),
            "gpu_pools[0].root_volume_gib: more than 16384 (got 20000); fix: use a whole number from 50 to 16384",
        ),
        (
            lambda d: d["network"].update(vpc_cidr="10.0.0.1/16"),
            "network.vpc_cidr: the address has bits set after its /16 prefix (got '10.0.0.1/16'); "
            "fix: write the block's first address: 10.0.0.0/16",
        ),
        (
            lambda d: d["network"].update(vpc_cidr="10.0.0/16"),
            "network.vpc_cidr: not an IPv4 CIDR block (got '10.0.0/16'); fix: write four numbers 0-255 joined by "
            "'.', then '/' and a prefix length 0-32, e.g. 10.0.0.0/16",
        ),
        (
            lambda d: d["gpu_pools"][0].update(zones=[]),
            "gpu_pools[0].zones: an empty list (got []); fix: give at least one",
        ),
        (
            lambda d: d.update(region="US"),
            "region: not in the allowed form (got 'US'); fix: use an AWS region name (e.g. us-west-2)",
        ),
        (
            lambda d: d.update(account="123"),
            "account: not in the allowed form (got '123'); "
            "fix: use the 12 digits of an AWS account id, quoted (e.g. '111122223333')",
        ),
        (
            lambda d: d["gpu_pools"][0].update(capacity={"type": "capacity_block", "ends_at": "soon"}),
            "gpu_pools[0].capacity.ends_at: not a date and time (got 'soon'); "
            "fix: write it quoted, in ISO 8601 with its zone, e.g. '2027-01-15T11:30:00Z'",
        ),
        (
            lambda d: d["cluster"].update(name="c" * 64),
            f"cluster.name: more than 63 characters (got '{'c' * 64}'); fix: use at most 63 characters",
        ),
    ],
    ids=["ge", "range", "host-bits", "not-a-cidr", "empty-list", "pattern", "account", "datetime", "too-long"],
)
def test_fails_schema_errors_in_words_never_pydantic_s(dev_data: dict[str, Any], edit: Any, expected: str) -> None:
    edit(dev_data)
    line = env_refusal(dev_data)
    assert line == expected
    assert "Input should" not in line and "Value error" not in line


RUN = {
    "template": "pytorch",
    "replicas": 2,
    "gpus_per_replica": 8,
    "image": "example/train:1",
    "command": ["train.py"],
}


def _fails_run(data: dict[str, Any], *, name: str = "run", env_data: dict[str, Any] | None = None) -> str:
    from policy.environment.load import load_environment
    from policy.environment.teams import parse_run

    env = env_from(env_data) if env_data is not None else load_environment(name="dev")
    with pytest.raises(ConfigError) as caught:
        parse_run(env, "vision", name, data)
    return caught.value.line()


_PRINTABLE_FIX = (
    "fix: write printable text only: give each command argument its own list entry, and keep scripts in the image"
)


def test_fails_control_characters_in_a_command() -> None:
    assert _fails_run(RUN | {"command": ["train.py", "--x\n; rm -rf /"]}) == (
        f"command[1]: holds the control character U+000A (got '--x\\n; rm -rf /'); {_PRINTABLE_FIX}"
    )


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("readiness_command", ["curl", "-fsS\r"], "readiness_command[1]: holds the control character U+000D"),
        ("image", "example/train:1\u202e", "image: holds the control character U+202E"),
    ],
)
def test_fails_control_characters_in_any_free_string_of_a_run(field: str, value: object, expected: str) -> None:
    assert _fails_run(RUN | {field: value}).startswith(expected)


def test_fails_control_characters_in_an_environment(dev_data: dict[str, Any]) -> None:
    dev_data["tags"]["owner\t"] = "me"
    assert env_refusal(dev_data) == f"tags: holds the control character U+0009 (got 'owner\\t'); {_PRINTABLE_FIX}"


def _prod() -> dict[str, Any]:
    from policy.environment.load import load_environment

    return load_environment(name="prod-example").model_dump(mode="json")


def test_region_table_rows_name_their_zones_and_source() -> None:
    from catalog.regions import CHECKED, REGIONS

    assert CHECKED == "2026-12-03"
    for code, region in REGIONS.items():
        assert region.code == code and len(region.zones) >= 2 and region.source.startswith("https://")
        assert all(zone.startswith(code) for zone in region.zones)


def test_fails_region_that_does_not_exist(dev_data: dict[str, Any]) -> None:
    dev_data["region"] = "us-west-3"
    assert env_refusal(dev_data) == (
        "region: no AWS region has this name (catalog/regions.py) (got 'us-west-3'); fix: use an AWS region code "
        "such as us-east-1, us-west-2 or eu-west-1, or add a checked row to the table"
    )


def test_fails_zone_the_region_does_not_have(dev_data: dict[str, Any]) -> None:
    dev_data["network"]["availability_zones"] = ["us-west-2a", "us-west-2e"]
    assert env_refusal(dev_data) == (
        "network.availability_zones[1]: region us-west-2 has no such Availability Zone (catalog/regions.py) "
        "(got 'us-west-2e'); fix: use one of us-west-2a, us-west-2b, us-west-2c, us-west-2d"
    )


def test_fails_pool_zone_the_region_does_not_have(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][1]["zones"] = ["us-west-2z"]
    assert env_refusal(dev_data) == (
        "gpu_pools[1].zones[0]: region us-west-2 has no such Availability Zone (catalog/regions.py) "
        "(got 'us-west-2z'); fix: use one of us-west-2a, us-west-2b, us-west-2c, us-west-2d"
    )


def test_fails_subnet_zone_the_region_does_not_have() -> None:
    data = _prod()
    data["network"]["existing_vpc"]["private_subnet_ids"]["us-east-1g"] = "subnet-0a1b2c3d4e5f60744"
    assert env_refusal(data) == (
        "network.existing_vpc.private_subnet_ids.us-east-1g: region us-east-1 has no such Availability Zone "
        "(catalog/regions.py) (got 'us-east-1g'); fix: use one of us-east-1a, us-east-1b, us-east-1c, us-east-1d, "
        "us-east-1e, us-east-1f"
    )


def test_fails_one_subnet_given_for_two_zones() -> None:
    data = _prod()
    data["network"]["existing_vpc"]["private_subnet_ids"]["us-east-1b"] = "subnet-0a1b2c3d4e5f60711"
    assert env_refusal(data) == (
        "network.existing_vpc.private_subnet_ids.us-east-1b: subnet is also given for zone us-east-1a; a subnet lies "
        "in exactly one zone (got 'subnet-0a1b2c3d4e5f60711'); fix: give each zone its own subnet in that zone"
    )


def test_fails_existing_vpc_with_subnets_in_one_zone() -> None:
    data = _prod()
    data["network"]["existing_vpc"]["private_subnet_ids"] = {"us-east-1a": "subnet-0a1b2c3d4e5f60711"}
    data["gpu_pools"] = []
    assert env_refusal(data) == (
        "network.existing_vpc.private_subnet_ids: EKS needs subnets in at least two zones "
        "(got {'us-east-1a': 'subnet-0a1b2c3d4e5f60711'}); fix: list a private subnet in each of two or more zones"
    )


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("nat_gateways", 2, "2"),
        ("vpc_cidr", "10.1.0.0/16", "'10.1.0.0/16'"),
        ("availability_zones", ["us-east-1a"], "['us-east-1a']"),
    ],
)
def test_fails_vpc_settings_an_existing_vpc_ignores(field: str, value: object, shown: str) -> None:
    data = _prod()
    data["network"][field] = value
    assert env_refusal(data) == (
        f"network.{field}: has no effect with existing_vpc: the kit creates no VPC (the existing VPC's zones are the "
        f"keys of existing_vpc.private_subnet_ids) (got {shown}); fix: remove network.{field}, or remove existing_vpc "
        "to create a VPC"
    )


_VPC_GUIDE = "https://docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html"


@pytest.mark.parametrize(
    ("cidr", "expected"),
    [
        (
            "10.0.0.0/8",
            f"network.vpc_cidr: EC2 allows VPC blocks from /16 (65,536 addresses) to /28 (16 addresses) ({_VPC_GUIDE}) "
            "(got '10.0.0.0/8'); fix: use a /16 inside it, e.g. 10.0.0.0/16",
        ),
        (
            "10.0.0.0/29",
            f"network.vpc_cidr: EC2 allows VPC blocks from /16 (65,536 addresses) to /28 (16 addresses) ({_VPC_GUIDE}) "
            "(got '10.0.0.0/29'); fix: use a larger block, e.g. a /16",
        ),
        (
            "169.254.0.0/16",
            "network.vpc_cidr: not a range EC2 gives a VPC: neither private (RFC 1918), shared (100.64.0.0/10) nor "
            f"publicly routable ({_VPC_GUIDE}) (got '169.254.0.0/16'); fix: use a block inside 10.0.0.0/8, "
            "172.16.0.0/12 or 192.168.0.0/16, e.g. 10.0.0.0/16",
        ),
        (
            "10.0.0.0/24",
            "network.vpc_cidr: too small for a /19 node subnet and a /24 public subnet in 2 zones (got '10.0.0.0/24'); "
            "fix: use a range of at least 16896 addresses, e.g. a /17",
        ),
    ],
    ids=["larger-than-16", "smaller-than-28", "link-local", "too-small-for-the-subnets"],
)
def test_fails_vpc_cidr_ec2_refuses(dev_data: dict[str, Any], cidr: str, expected: str) -> None:
    dev_data["network"]["vpc_cidr"] = cidr
    assert env_refusal(dev_data) == expected


@pytest.mark.parametrize("cidr", ["10.0.0.0/16", "172.31.0.0/16", "192.168.0.0/16", "100.64.0.0/16", "52.0.0.0/16"])
def test_vpc_ranges_ec2_accepts(cidr: str) -> None:
    from ipaddress import IPv4Network

    from catalog.vpc import usable_vpc_range

    assert usable_vpc_range(IPv4Network(cidr))


def test_fails_more_nat_gateways_than_zones(dev_data: dict[str, Any]) -> None:
    dev_data["network"]["nat_gateways"] = 3
    assert env_refusal(dev_data) == (
        "network.nat_gateways: a VPC places at most one NAT gateway per zone, and this one has 2 zones (got 3); "
        "fix: set nat_gateways to at most 2"
    )


def test_fails_public_access_cidrs_on_a_private_endpoint(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["endpoint_access"] = "private"
    assert env_refusal(dev_data) == (
        "cluster.public_access_cidrs: a private endpoint has no public address, so these ranges would allow nothing "
        "(got ['203.0.113.0/24']); fix: remove public_access_cidrs, or set endpoint_access: public_and_private"
    )


def test_fails_acknowledgement_with_nothing_to_acknowledge(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["acknowledge_public_endpoint_open_to_internet"] = True
    assert env_refusal(dev_data) == (
        "cluster.acknowledge_public_endpoint_open_to_internet: no range of public_access_cidrs is open to every "
        "address, so there is nothing to acknowledge (got True); fix: remove the acknowledgement"
    )


def _with_block(dev_data: dict[str, Any], ends_at: str) -> dict[str, Any]:
    dev_data["gpu_pools"].append(
        {
            "name": "block",
            "instance_types": ["p5en.48xlarge"],
            "zones": ["us-west-2a"],
            "min_size": 2,
            "max_size": 2,
            "capacity": {"type": "capacity_block", "reservation_id": "cr-0123456789abcdef0", "ends_at": ends_at},
        }
    )
    return dev_data


def test_fails_capacity_block_that_has_ended(dev_data: dict[str, Any]) -> None:
    from datetime import date

    from policy.environment.load import parse_environment

    data = _with_block(dev_data, "2026-12-02T23:30:00Z")
    with pytest.raises(ConfigError) as caught:
        parse_environment(data, today=date(2026, 12, 3))
    assert caught.value.line() == (
        "gpu_pools[2].capacity.ends_at: the Capacity Block ended on 2026-12-02, before today (2026-12-03, UTC) "
        "(got '2026-12-02T23:30:00+00:00'); fix: set the end of a current Capacity Block and its reservation_id, "
        "or remove the pool"
    )
    # The verdict depends on the file and the date only: the day it ends, the block is still accepted.
    assert parse_environment(data, today=date(2026, 12, 2)).gpu_pools[2].name == "block"


def test_fails_system_node_group_that_can_hold_no_node(dev_data: dict[str, Any]) -> None:
    dev_data["system_nodes"] = {"min_size": 0, "max_size": 2}
    assert env_refusal(dev_data) == (
        "system_nodes.min_size: the system node group holds CoreDNS and the platform's controllers (the DRA "
        "controller, Cluster Autoscaler, Karpenter), and nothing adds its first node: at 0 nodes none of them runs "
        "(got 0); fix: set min_size to 1 or more (2 keeps them running while a node is replaced)"
    )
    dev_data["system_nodes"] = {"max_size": 0}
    assert env_refusal(dev_data) == "system_nodes.max_size: less than 1 (got 0); fix: use a whole number of at least 1"


_KUBELET_DOC = "https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/"
_OWN_KEY = "fix: use a prefix of your own, e.g. example.com/<name>, or node.kubernetes.io/<name>"


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "kubernetes.io/team",
            "gpu_pools[0].labels.kubernetes.io/team: kubelet refuses node labels in the kubernetes.io namespace "
            "except under kubelet.kubernetes.io/ and node.kubernetes.io/ (--node-labels, "
            f"{_KUBELET_DOC}) (got 'kubernetes.io/team'); {_OWN_KEY}",
        ),
        (
            "node-role.kubernetes.io/gpu",
            "gpu_pools[0].labels.node-role.kubernetes.io/gpu: kubelet refuses node labels in the kubernetes.io "
            "namespace except under kubelet.kubernetes.io/ and node.kubernetes.io/ (--node-labels, "
            f"{_KUBELET_DOC}) (got 'node-role.kubernetes.io/gpu'); {_OWN_KEY}",
        ),
        (
            "example.k8s.io/x",
            "gpu_pools[0].labels.example.k8s.io/x: kubelet refuses node labels in the k8s.io namespace except under "
            f"kubelet.kubernetes.io/ and node.kubernetes.io/ (--node-labels, {_KUBELET_DOC}) "
            f"(got 'example.k8s.io/x'); {_OWN_KEY}",
        ),
        (
            "topology.kubernetes.io/zone",
            "gpu_pools[0].labels.topology.kubernetes.io/zone: kubelet and the cloud provider set this label from the "
            f"node itself (got 'topology.kubernetes.io/zone'); {_OWN_KEY}",
        ),
        (
            "karpenter.sh/capacity-type",
            "gpu_pools[0].labels.karpenter.sh/capacity-type: label domain karpenter.sh is Karpenter's own (its "
            f"NodePool CRD refuses it) (got 'karpenter.sh/capacity-type'); {_OWN_KEY}",
        ),
        (
            "gpu-platform.io/pool",
            "gpu_pools[0].labels.gpu-platform.io/pool: the platform sets this label itself (gpu-platform.io/* from "
            "the pool, nvidia.com/mig.config from mig_profile), so the value written here would never reach a node "
            "(got 'gpu-platform.io/pool'); fix: remove it (set mig_profile for MIG), or use a prefix of your own, "
            "e.g. example.com/<name>",
        ),
        (
            "-bad-.example/x",
            "gpu_pools[0].labels.-bad-.example/x: not a label key: the prefix before '/' is not a DNS subdomain "
            "(got '-bad-.example/x'); fix: write a key as an optional prefix and '/', then a name: the prefix a DNS "
            "subdomain of at most 253 characters (lower-case letters, digits and '-', in parts joined by '.'), the "
            "name 1-63 letters, digits, '-', '_' or '.' starting and ending with a letter or digit "
            "(e.g. example.com/team)",
        ),
        (
            "example.com/" + "t" * 52,
            f"gpu_pools[0].labels.example.com/{'t' * 52}: EKS node group label keys have at most 63 characters, "
            "prefix included (https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html) "
            f"(got 'example.com/{'t' * 52}'); fix: shorten the key to at most 63 characters",
        ),
    ],
    ids=["kubernetes-io", "node-role", "k8s-io", "kubelet-sets-it", "karpenter", "platform-owned", "syntax", "eks"],
)
def test_fails_node_labels_kubelet_eks_or_the_platform_refuse(
    dev_data: dict[str, Any], key: str, expected: str
) -> None:
    dev_data["gpu_pools"][0]["labels"] = {key: "x"}
    assert env_refusal(dev_data) == expected


@pytest.mark.parametrize("key", ["node.kubernetes.io/gpu-pool", "kubelet.kubernetes.io/x", "example.com/team", "team"])
def test_node_labels_kubelet_accepts(dev_data: dict[str, Any], key: str) -> None:
    dev_data["gpu_pools"][0]["labels"] = {key: "x"}
    assert env_from(dev_data).gpu_pools[0].labels == {key: "x"}


def test_fails_empty_label_value_on_a_node_group(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][0]["labels"] = {"example.com/team": ""}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].labels.example.com/team: EKS node group label values have 1-63 characters "
        "(https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html) (got ''); "
        "fix: give the label a value, e.g. 'true'"
    )


def test_fails_taint_in_a_kubernetes_namespace(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][0]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    assert env_refusal(dev_data) == (
        "gpu_pools[0].taints[0].key: taints in the kubernetes.io namespace are Kubernetes' own (the node lifecycle "
        "controller adds and removes them, e.g. node.kubernetes.io/not-ready) "
        "(got 'node.kubernetes.io/unschedulable'); fix: use a prefix of your own, e.g. example.com/<name>"
    )


def test_fails_two_taints_with_one_key_and_effect(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][0]["taints"] = [
        {"key": "nvidia.com/gpu", "value": "true"},
        {"key": "nvidia.com/gpu", "value": "false"},
    ]
    assert env_refusal(dev_data) == (
        "gpu_pools[0].taints[1]: taints[0] has the same key and effect; a node holds one taint per key and effect "
        "(got 'nvidia.com/gpu:NoSchedule'); fix: keep one of the two"
    )


def test_fails_run_name_that_starts_with_a_digit() -> None:
    assert _fails_run(RUN, name="70b-pretrain") == (
        "<file name>: the run's name begins its Service's name, and a Service name must start with a letter "
        "(got '70b-pretrain'); fix: rename the file to start with a lower-case letter, e.g. run-70b-pretrain.yaml"
    )


def test_fails_run_name_that_makes_a_generated_name_too_long() -> None:
    name = "r" * 41
    line = _fails_run(RUN, name=name)
    digest = line.split(f"'{name}-", 1)[1].split("-", 1)[0]
    assert line == (
        f"<file name>: the run's Pod hostname (coordinator) would be '{name}-{digest}-coordinator-0', 64 characters "
        f"(at most 63) (got '{name}'); fix: rename the file to at most 40 characters before .yaml"
    )


def test_every_rendered_name_built_from_the_run_name_fits_its_limit() -> None:
    """At the longest accepted run name, every object name and label value the charts render fits: the
    generated names ``config`` checks are the ones that reach the objects."""
    from charts.render import render_environment
    from config.platform import TeamRun
    from policy.environment.load import load_environment
    from policy.environment.teams import parse_run

    env = load_environment(name="dev")
    runs = []
    cases = [
        ("pytorch", RUN, 40),
        ("mpi", RUN | {"template": "mpi", "gpus_per_replica": 4, "device_class": "l4", "command": ["a"]}, 43),
        ("service", RUN | {"template": "service", "readiness_command": ["true"], "command": ["a"]}, 36),
    ]
    for template, data, length in cases:
        name = (template[0] * length)[:length]
        runs.append(TeamRun("vision", name, f"teams/vision/{name}.yaml", parse_run(env, "vision", name, data)))
        with pytest.raises(ConfigError):
            parse_run(env, "vision", name + "x", data)
    rendered = render_environment(env, team_runs=runs)
    for path, objects in rendered.files.items():
        if not path.startswith("teams/"):
            continue
        for obj in objects:
            meta = obj["metadata"]
            assert all(len(v) <= 63 for v in (meta.get("labels") or {}).values()), meta
            limit = 52 if obj["kind"] == "StatefulSet" else 63
            assert len(meta["name"]) <= limit or obj["kind"] in ("ConfigMap", "ResourceClaimTemplate"), meta["name"]


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (
            RUN | {"readiness_command": ["curl", "-fsS", "http://127.0.0.1:8080/ready"]},
            "readiness_command: the pytorch template never reads it (only service runs do) "
            "(got ['curl', '-fsS', 'http://127.0.0.1:8080/ready']); "
            "fix: remove readiness_command from the run, or use template: service",
        ),
        (
            RUN | {"template": "spark", "gpus_per_replica": 1, "processes_per_pod": 4},
            "processes_per_pod: the spark template never reads it (only pytorch and mpi runs do) (got 4); "
            "fix: remove processes_per_pod from the run, or use template: pytorch",
        ),
        (
            RUN | {"template": "mpi", "job": True},
            "job: dev cannot honour it: the Job form is pytorch only, not mpi (got True); "
            "fix: drop job from the run, or use template: pytorch",
        ),
    ],
    ids=["readiness-on-pytorch", "processes-on-spark", "job-on-mpi"],
)
def test_fails_run_field_its_template_ignores(run: dict[str, Any], expected: str) -> None:
    assert _fails_run(run) == expected


def test_fails_karpenter_pool_name_that_makes_a_node_pool_name_too_long() -> None:
    from policy.environment.load import load_environment

    data = load_environment(name="karpenter-example").model_dump(mode="json")
    data["gpu_pools"][1]["name"] = "h" * 61
    assert env_refusal(data) == (
        f"gpu_pools[1].name: NodePool name '{'h' * 61}-2a' is longer than 63 characters (Karpenter labels every node "
        f"with it, karpenter.sh/nodepool) (got '{'h' * 61}'); fix: shorten the pool name to at most 60 characters"
    )


_MPI = RUN | {"template": "mpi", "gpus_per_replica": 4, "device_class": "l4", "command": ["python", "train.py"]}


@pytest.mark.parametrize(
    ("run", "path", "expected"),
    [
        (
            RUN,
            "/dev/shm",
            "checkpoint.mount_path: is where the platform mounts the memory-backed /dev/shm (/dev/shm) "
            "(got '/dev/shm'); fix: use a directory of its own, e.g. /checkpoints",
        ),
        (
            RUN,
            "/dev",
            "checkpoint.mount_path: is above where the platform mounts the memory-backed /dev/shm (/dev/shm), "
            "and would hide it (got '/dev'); fix: use a directory of its own, e.g. /checkpoints",
        ),
        (
            _MPI,
            "/etc/mpi/ssh",
            "checkpoint.mount_path: is where the platform mounts the MPI SSH keys (/etc/mpi/ssh) "
            "(got '/etc/mpi/ssh'); fix: use a directory of its own, e.g. /checkpoints",
        ),
        (
            RUN,
            "/dev/shm/",
            "checkpoint.mount_path: not a plain absolute path ('.', '..', '//' or a trailing '/' make two spellings "
            "of one directory) (got '/dev/shm/'); fix: write it as /dev/shm",
        ),
    ],
    ids=["shm", "above-shm", "mpi-ssh", "two-spellings"],
)
def test_fails_checkpoint_mount_on_a_path_the_platform_mounts(run: dict[str, Any], path: str, expected: str) -> None:
    assert _fails_run(run | {"checkpoint": {"claim_name": "ckpt", "mount_path": path}}) == expected


def test_platform_mount_table_is_what_the_charts_mount() -> None:
    from catalog.launchers import CHECKPOINT_PATH, MPI_MOUNTS, PLATFORM_MOUNTS
    from charts.render import render_environment
    from config.platform import TeamRun
    from policy.environment.load import load_environment
    from policy.environment.teams import parse_run

    env = load_environment(name="dev")
    checkpoint = {"checkpoint": {"claim_name": "ckpt"}}
    for data, expected in ((RUN, PLATFORM_MOUNTS), (_MPI, PLATFORM_MOUNTS | MPI_MOUNTS)):
        run = TeamRun(
            "vision", "mounts", "teams/vision/mounts.yaml", parse_run(env, "vision", "mounts", data | checkpoint)
        )
        objects = render_environment(env, team_runs=[run]).files["teams/vision/mounts.yaml"]
        paths = {
            mount["mountPath"]
            for obj in objects
            if obj["kind"] == "Pod"
            for container in obj["spec"]["containers"]
            for mount in container.get("volumeMounts", [])
        }
        assert paths == {*expected, CHECKPOINT_PATH}


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        (
            "vision/sweep.yml",
            "{teams}/vision/sweep.yml: <file>: run files are read only as teams/<team>/<run>.yaml: this file would "
            "never be rendered (got 'vision/sweep.yml'); fix: rename it to sweep.yaml, or move it out of teams/",
        ),
        (
            "vision/Sweep.YAML",
            "{teams}/vision/Sweep.YAML: <file>: run files are read only as teams/<team>/<run>.yaml: this file would "
            "never be rendered (got 'vision/Sweep.YAML'); fix: rename it to sweep.yaml, or move it out of teams/",
        ),
        (
            "vision/old/sweep.yaml",
            "{teams}/vision/old/sweep.yaml: <file>: run files are read only as teams/<team>/<run>.yaml: this file "
            "would never be rendered (got 'vision/old/sweep.yaml'); fix: move it to vision/<run>.yaml",
        ),
    ],
    ids=["yml", "upper-case", "nested"],
)
def test_fails_run_file_that_would_never_be_read(tmp_path: Any, relative: str, expected: str) -> None:
    from policy.environment.load import load_environment
    from policy.environment.teams import TEAMS_DIR, load_team_runs

    teams = tmp_path / "teams"
    (teams / "vision").mkdir(parents=True)
    (teams / "llm-research").mkdir()  # the run dev selects for llm-research (platform.teams.<team>.runs)
    (teams / "llm-research" / "finetune-8b.yaml").write_bytes(
        (TEAMS_DIR / "llm-research" / "finetune-8b.yaml").read_bytes()
    )
    (teams / relative).parent.mkdir(parents=True, exist_ok=True)
    (teams / relative).write_text("template: pytorch\n")
    with pytest.raises(ConfigError) as caught:
        load_team_runs(load_environment(name="dev"), teams_dir=teams)
    assert caught.value.line() == expected.format(teams=teams)


def test_fails_pod_no_node_of_the_pool_can_hold_on_the_pool_not_with_raise_max_size() -> None:
    from charts.render import render_checked
    from config.platform import TeamRun
    from policy.environment.load import load_environment
    from policy.environment.teams import parse_run

    env = load_environment(name="dev")
    big = RUN | {"device_class": "h100-80gb", "cpu_per_replica": 192, "memory_gib_per_replica": 900}
    run = TeamRun("llm-research", "big", "teams/llm-research/big.yaml", parse_run(env, "llm-research", "big", big))
    with pytest.raises(ConfigError) as caught:
        render_checked(env, team_runs=[run])
    line = caught.value.line()
    group = line.split("(Pods/", 1)[1].split(")", 1)[0]  # dev's fallback form: the run's GPU Pods
    assert line == (
        "environments/dev.yaml: gpu_pools[0].instance_types: the gang of teams/llm-research/big.yaml "
        f"(Pods/{group}): no node can hold one Pod of 8 x h100-80gb.gpu-platform.io, 192 CPU, 900Gi: no instance "
        "type of pool h100 (p5.48xlarge) has room for it (got ['p5.48xlarge']); fix: use a larger instance type in "
        "pool h100, or lower the per-replica request (gpus_per_replica, cpu_per_replica, memory_gib_per_replica) in "
        "teams/llm-research/big.yaml (full report: make check ENV=dev)"
    )


def test_fails_mix_number_out_of_bounds_in_words() -> None:

    from config.files import read_yaml_file
    from policy.environment.load import load_environment
    from simulation.mix.load import parse_mix

    data = read_yaml_file(REPO_ROOT / "mixes" / "dev.yaml")
    data["classes"][0]["duration"]["sigma"] = 9.0
    with pytest.raises(ConfigError) as caught:
        parse_mix(load_environment(name="dev"), data)
    assert caught.value.line() == (
        "classes[0].duration.sigma: more than 4.0 (got 9.0); fix: use a number of more than 0 and at most 4"
    )


def test_fails_scale_in_lead_time_without_the_block_end(dev_data: dict[str, Any]) -> None:
    _with_block(dev_data, "2099-01-01T00:00:00Z")
    dev_data["gpu_pools"][2]["capacity"] = {
        "type": "capacity_block",
        "reservation_id": "cr-0123456789abcdef0",
        "scale_in_minutes_before_end": 90,
    }
    assert env_refusal(dev_data) == (
        "gpu_pools[2].capacity.scale_in_minutes_before_end: the scale-in is timed from capacity.ends_at, which is "
        "not set, so nothing would ever scale in (got 90); fix: set capacity.ends_at to the Capacity Block's end, "
        "or remove scale_in_minutes_before_end"
    )


def test_fails_compute_domains_without_the_dra_driver(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {"enabled": False, "compute_domains": True}
    for pool in dev_data["gpu_pools"]:
        pool.update(dra=False, device_plugin=True)
    dev_data["platform"]["device_classes"] = []
    assert env_refusal(dev_data) == (
        "dra_driver.compute_domains: compute domains are a feature of the DRA driver, and dra_driver.enabled is "
        "false (got True); fix: set dra_driver.enabled: true, or remove compute_domains"
    )


def test_sections_of_components_not_installed_are_warned_and_noted_in_the_summary() -> None:
    from charts.render import output_files, render_environment
    from cli.render import note_lines
    from policy.environment.load import load_environment

    data = load_environment(name="ci").model_dump(mode="json")
    data["cluster_autoscaler"]["scale_down_unneeded_minutes"] = 5
    data["karpenter"]["acknowledge_unverified_release"] = True
    env = env_from(data)
    rendered = render_environment(env, team_runs=[])
    notes = [
        "ci: cluster_autoscaler: scale_down_unneeded_minutes set, but no GPU pool has scaling: autoscaled, so "
        "Cluster Autoscaler is not installed and the setting has no effect",
        "ci: karpenter: acknowledge_unverified_release set, but no GPU pool has provider: karpenter, so "
        "Karpenter is not installed and the setting has no effect",
    ]
    assert rendered.notes == notes
    assert note_lines(rendered) == [f"warning: {n}" for n in rendered.notes]
    summary = output_files(env, rendered)["SUMMARY.md"]
    assert all(f"- {note}" in summary for note in rendered.notes)
    assert render_environment(load_environment(name="ci"), team_runs=[]).notes == []


def test_fails_control_characters_in_a_mix() -> None:

    from config.files import read_yaml_file
    from policy.environment.load import load_environment
    from simulation.mix.load import parse_mix

    data = read_yaml_file(REPO_ROOT / "mixes" / "dev.yaml")
    data["classes"][0]["name"] = "pretrain\x1b[31m"
    with pytest.raises(ConfigError) as caught:
        parse_mix(load_environment(name="dev"), data)
    assert caught.value.line() == (
        f"classes[0].name: holds the control character U+001B (got 'pretrain\\x1b[31m'); {_PRINTABLE_FIX}"
    )


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda d: d["cluster"]["admin_principal_arns"].append("arn:aws:iam::111122223333:role/PlatformAdmin"),
            "cluster.admin_principal_arns[1]: this entry is listed twice "
            "(got 'arn:aws:iam::111122223333:role/PlatformAdmin'); fix: list each entry once",
        ),
        (
            lambda d: d["cluster"]["public_access_cidrs"].append("203.0.113.0/24"),
            "cluster.public_access_cidrs[1]: this entry is listed twice (got '203.0.113.0/24'); "
            "fix: list each entry once",
        ),
        (
            lambda d: d["gpu_pools"][1]["instance_types"].append("g6.12xlarge"),
            "gpu_pools[1].instance_types[2]: this entry is listed twice (got 'g6.12xlarge'); fix: list each entry once",
        ),
        (
            lambda d: d["platform"]["teams"]["vision"].update(tiers=["standard", "standard"]),
            "platform.teams.vision.tiers[1]: this entry is listed twice (got 'standard'); fix: list each entry once",
        ),
    ],
    ids=["admin-principal", "public-cidr", "instance-type", "team-tier"],
)
def test_fails_list_entry_given_twice(dev_data: dict[str, Any], edit: Any, expected: str) -> None:
    edit(dev_data)
    assert env_refusal(dev_data) == expected


def test_fails_elastic_acknowledgement_with_nothing_to_acknowledge() -> None:
    assert _fails_run(RUN | {"elastic": True}) == (
        "elastic: acknowledges a gang that may start with fewer than replicas 2, but min_replicas is not set, so it "
        "has no effect (got True); fix: set min_replicas below replicas, or remove elastic"
    )
