"""API-before-use over the synthesized stacks of every shipped environment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from policy.checks.api_order import api_before_use, assumed_api_groups
from policy.environment.load import load_environment
from tests.conftest import EXAMPLE_ENVIRONMENTS
from tests.policy.checks.api_order.builtin import built_in_kinds

Synth = Callable[[str], dict[str, Any]]


def test_the_built_in_list_comes_from_the_schemas() -> None:
    kinds = built_in_kinds()
    assert ("apps/v1", "Deployment") in kinds and ("scheduling.k8s.io/v1beta1", "Workload") in kinds
    assert ("scheduling.k8s.io/v1alpha3", "CompositePodGroup") in kinds
    assert not any(api_version.startswith("monitoring.coreos.com/") for api_version, _ in kinds)
    assert not any(api_version.startswith("karpenter.sh/") for api_version, _ in kinds)


@pytest.mark.synth
@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_every_api_exists_before_it_is_used(synthesized: Synth, env_name: str) -> None:
    env = load_environment(name=env_name)
    templates = {k: v for k, v in synthesized(env_name).items() if not k.startswith("__")}
    assert templates
    for name, template in templates.items():
        violations = api_before_use(template, built_in=built_in_kinds(), assumed_groups=assumed_api_groups(env))
        assert [str(v) for v in violations] == [], name


@pytest.mark.synth
@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_the_first_deploy_page_names_every_chart_and_add_on(synthesized: Synth, env_name: str) -> None:
    from config.load import REPO_ROOT

    section = (REPO_ROOT / "docs" / "operations" / "first-deploy.md").read_text()
    template = synthesized(env_name)[f"gpu-cluster-{env_name}"]
    installed = {
        r["Properties"]["Chart"] if r["Type"] == "Custom::AWSCDK-EKS-HelmChart" else r["Properties"]["AddonName"]
        for r in template["Resources"].values()
        if r["Type"] in ("Custom::AWSCDK-EKS-HelmChart", "AWS::EKS::Addon")
    }
    assert installed
    assert [name for name in sorted(installed) if f"`{name}`" not in section and name not in section] == []
