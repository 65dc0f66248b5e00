"""Every stack of an environment in one App, under cdk-nag; a broken environment is refused before any stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import Stack
from aws_cdk import aws_iam as iam

from charts import render
from policy.environment.load import load_environment
from stacks.app_options import new_app
from stacks.environment import add_environment_stacks
from tests.conftest import shipped_render
from tests.helpers import env_from, refusal


def test_given_objects_the_stacks_are_built_without_rendering_and_checked_by_cdk_nag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = shipped_render("dev").deployed()
    monkeypatch.setattr(render, "render_checked", lambda *_a, **_k: pytest.fail("rendered again"))
    app = new_app(outdir=str(tmp_path))
    add_environment_stacks(app, load_environment(name="dev"), objects)
    assert [c.node.id for c in app.node.children] == ["gpu-cluster-dev"]
    # A stack added beside them is checked too: the plugin is on the whole App.
    extra = Stack(app, "extra")
    iam.Role(
        extra,
        "Admin",
        assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
        managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name("AdministratorAccess")],
    )
    with pytest.raises(RuntimeError):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    (plugin,) = [r for r in report["pluginReports"] if r["pluginName"] == "AwsSolutions"]
    assert [(v["ruleName"], [c["constructPath"] for c in v["violatingConstructs"]]) for v in plugin["violations"]] == [
        (
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AdministratorAccess]",
            ["extra/Admin/Resource"],
        )
    ]


def test_a_broken_environment_is_refused_before_any_stack_exists(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][0].update(min_size=1, max_size=1)  # h100: the 2-node fine-tune gang no longer fits
    app = new_app()
    line = refusal(add_environment_stacks, app, env_from(dev_data))
    assert line.startswith(
        "environments/dev.yaml: gpu_pools[0].max_size: the gang of teams/llm-research/finetune-8b.yaml "
        "(Pods/team-llm-research/finetune-8b-"
    )
    assert "the largest zone (us-west-2a) holds at most 1 (pool h100) (got 1); fix: raise max_size of pool h100" in line
    assert app.node.children == []
