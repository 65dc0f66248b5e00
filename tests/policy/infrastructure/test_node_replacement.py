"""A change that replaces every node of a static GPU pool is said at synth, naming the pool."""

from __future__ import annotations

import copy
from typing import Any

from policy.environment.load import load_environment
from policy.infrastructure.node_replacement import node_fingerprints, replacement_warnings


def _template(*, ami: str = "AL2023_x86_64_NVIDIA", user_data: str = "a", min_size: int = 2) -> dict[str, Any]:
    """A template as the stack writes it: dev's h100 node group and its launch template."""
    return {
        "Resources": {
            "LaunchTemplate": {
                "Type": "AWS::EC2::LaunchTemplate",
                "Properties": {"LaunchTemplateData": {"UserData": user_data}},
            },
            "GpuPoolh100": {
                "Type": "AWS::EKS::Nodegroup",
                "Properties": {
                    "NodegroupName": "gpu-dev-h100-2a",
                    "AmiType": ami,
                    "InstanceTypes": ["p5.48xlarge"],
                    "LaunchTemplate": {"Id": {"Ref": "LaunchTemplate"}, "Version": {"Fn::GetAtt": ["x", "y"]}},
                    "ScalingConfig": {"MinSize": min_size, "MaxSize": 2, "DesiredSize": min_size},
                },
            },
        }
    }


def test_launch_template_change_of_a_static_pool_is_a_warning_naming_it() -> None:
    env = load_environment(name="dev")
    assert replacement_warnings(env, before=_template(), after=_template(user_data="b")) == [
        "gpu_pools[0] (h100): this change replaces every node of static pool h100 (changed: LaunchTemplate), "
        "evicting every gang on it; deploy it when the pool's gangs can be stopped"
    ]


def test_ami_change_names_the_property() -> None:
    env = load_environment(name="dev")
    (line,) = replacement_warnings(env, before=_template(), after=_template(ami="AL2023_ARM_64_NVIDIA"))
    assert "(changed: AmiType)" in line


def test_scaling_or_an_identical_template_replaces_nothing() -> None:
    env = load_environment(name="dev")
    assert replacement_warnings(env, before=_template(), after=copy.deepcopy(_template())) == []
    assert replacement_warnings(env, before=_template(), after=_template(min_size=1)) == []


def test_first_synthesis_has_nothing_to_compare() -> None:
    env = load_environment(name="dev")
    assert replacement_warnings(env, before={}, after=_template(user_data="b")) == []


def test_capacity_block_pools_are_told_to_scale_to_zero_first() -> None:
    env = load_environment(name="prod-example")
    index, pool = next((i, p) for i, p in enumerate(env.gpu_pools) if p.capacity.type.value == "capacity_block")
    name = (
        f"{env.cluster.name}-{pool.name}-{pool.zones[0][-2:]}"
        if pool.zone_pinned
        else f"{env.cluster.name}-{pool.name}"
    )
    before, after = _template(), _template(user_data="b")
    for template in (before, after):
        template["Resources"]["GpuPoolh100"]["Properties"]["NodegroupName"] = name
    (line,) = replacement_warnings(env, before=before, after=after)
    assert line.endswith(f"scale it to 0 first (gpu_pools[{index}].min_size and max_size: 0), deploy, then scale back")


def test_fingerprints_follow_the_launch_template_reference() -> None:
    before = node_fingerprints(_template())["gpu-dev-h100-2a"]
    after = node_fingerprints(_template(user_data="b"))["gpu-dev-h100-2a"]
    assert {k for k in before if before[k] != after[k]} == {"LaunchTemplate"}


def test_make_synth_compares_with_the_last_synthesis(tmp_path: Any) -> None:
    import json

    from cli.synth import node_replacement_lines

    before, after = tmp_path / "cdk.out", tmp_path / "staging"
    for directory, template in ((before, _template()), (after, _template(user_data="b"))):
        directory.mkdir()
        (directory / "gpu-cluster-dev.template.json").write_text(json.dumps(template))
    env = load_environment(name="dev")
    (line,) = node_replacement_lines(env, before=before, after=after)
    assert line.startswith("warning: gpu_pools[0] (h100): this change replaces every node of static pool h100")
    assert node_replacement_lines(env, before=tmp_path / "none", after=after) == []
