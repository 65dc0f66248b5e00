"""What EKS 1.37 serves, as data, and the rules that keep every environment inside it."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.eks_control_plane import EKS_SERVED, EKS_SERVED_APIS
from catalog.feature_gates import FEATURE_GATES, Stage
from config.errors import ConfigError
from policy.environment.load import load_environment
from policy.gates.rules import check_gates, served_beyond_eks
from tests.conftest import EXAMPLE_ENVIRONMENTS, env_from, shipped_render
from tests.helpers import env_refusal


def test_every_gate_has_a_row_with_a_source_and_date() -> None:
    live = {name for name, gate in FEATURE_GATES.items() if gate.stage is not Stage.REMOVED}
    assert set(EKS_SERVED) == live
    for row in EKS_SERVED.values():
        assert row.source and row.checked == "2026-12-03", row


def test_alpha_is_never_served_and_ga_always_is() -> None:
    for name, row in EKS_SERVED.items():
        stage = FEATURE_GATES[name].stage
        if stage is Stage.ALPHA:
            assert not row.served and not row.assumed, name
        if stage is Stage.GA:
            assert row.served and not row.assumed, name


def test_beta_off_is_not_served_and_marked_assumed() -> None:
    for name in ("GenericWorkload", "DRAWorkloadResourceClaims"):
        assert not EKS_SERVED[name].served
        assert EKS_SERVED[name].assumed, "EKS made an exception once (DRA beta in 1.33): no source covers 1.37"


def test_api_versions_follow_their_gates() -> None:
    assert not EKS_SERVED_APIS["scheduling.k8s.io/v1beta1"].served
    assert not EKS_SERVED_APIS["scheduling.k8s.io/v1alpha3"].served
    assert EKS_SERVED_APIS["resource.k8s.io/v1"].served


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_shipped_environments_need_nothing_eks_does_not_serve(env: str) -> None:
    config = load_environment(name=env)
    assert served_beyond_eks(config.feature_gates.control_plane) == ()
    assert config.feature_gates.acknowledge_served_beyond_eks == ()
    for gate in config.feature_gates.control_plane:
        assert EKS_SERVED[gate].served, (env, gate, EKS_SERVED[gate].source)


def test_fails_alpha_gate_without_the_acknowledgement(dev_data: dict[str, Any]) -> None:
    dev_data["feature_gates"] = {"control_plane": ["GenericWorkload", "TopologyAwareWorkloadScheduling"]}
    dev_data["feature_gates"]["acknowledge_served_beyond_eks"] = ["GenericWorkload"]
    assert env_refusal(dev_data) == (
        "feature_gates.control_plane[1]: EKS 1.37 does not serve this gate (alpha, off by default; "
        "catalog/eks_control_plane.py) (got 'TopologyAwareWorkloadScheduling'); fix: drop it (gangs then render "
        "in the fallback form), or, if this cluster's control plane does serve it, list it in "
        "feature_gates.acknowledge_served_beyond_eks"
    )


def test_fails_beta_gate_that_is_off_without_the_acknowledgement(dev_data: dict[str, Any]) -> None:
    dev_data["feature_gates"] = {"control_plane": ["GenericWorkload"]}
    assert env_refusal(dev_data).startswith(
        "feature_gates.control_plane[0]: EKS 1.37 does not serve this gate (beta, off by default;"
    )


def test_acknowledged_gates_pass_and_are_said(dev_data: dict[str, Any]) -> None:
    gates = ["GenericWorkload", "TopologyAwareWorkloadScheduling"]
    dev_data["feature_gates"] = {"control_plane": gates, "acknowledge_served_beyond_eks": gates}
    env = env_from(dev_data)
    assert served_beyond_eks(env.feature_gates.control_plane) == ("GenericWorkload", "TopologyAwareWorkloadScheduling")


def test_fails_acknowledging_a_gate_not_relied_on() -> None:
    with pytest.raises(ConfigError) as caught:
        check_gates(control_plane=(), kubelet=(), served_beyond_eks=("GenericWorkload",))
    assert caught.value.line() == (
        "feature_gates.acknowledge_served_beyond_eks[0]: acknowledges a gate the environment does not rely on "
        "(got 'GenericWorkload'); fix: drop it, or add GenericWorkload to feature_gates.control_plane"
    )


def test_fails_acknowledging_a_gate_eks_serves() -> None:
    with pytest.raises(ConfigError) as caught:
        check_gates(control_plane=("DRADeviceTaints",), kubelet=(), served_beyond_eks=("DRADeviceTaints",))
    assert caught.value.line() == (
        "feature_gates.acknowledge_served_beyond_eks[0]: EKS 1.37 serves this gate already, so there is nothing "
        "to acknowledge (got 'DRADeviceTaints'); fix: drop it from the list"
    )


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_shipped_summaries_say_the_gang_form_of_every_run(env: str) -> None:
    from charts.summary import summary_markdown

    rendered = shipped_render(env)
    text = summary_markdown(load_environment(name=env), rendered.plans, notes=rendered.notes)
    assert "Gang form: fallback." in text
    assert "Relies on nothing beyond what EKS 1.37 serves." in text
    assert rendered.plans or env == "karpenter-example"
    for plan in rendered.plans:
        assert f"- {plan.team}/{plan.run}: fallback form (no PodGroup): loses the all-or-nothing start" in text
        assert not plan.native
    kinds = {o["kind"] for o in rendered.all_objects()}
    assert not kinds & {"Workload", "PodGroup", "CompositePodGroup"}


@pytest.mark.parametrize("env", ["dev", "prod-example"])
def test_workload_aware_summary_says_native_and_what_it_acknowledges(env: str) -> None:
    from charts.summary import summary_markdown
    from tests.helpers.environments import workload_aware, workload_aware_render

    twin = workload_aware(env)
    rendered = workload_aware_render(env)
    text = summary_markdown(twin, rendered.plans, notes=rendered.notes)
    assert "Gang form: native (Workload and PodGroups; GenericWorkload is on)." in text
    acknowledged = ", ".join(served_beyond_eks(twin.feature_gates.control_plane))
    assert f"(`feature_gates.acknowledge_served_beyond_eks`): {acknowledged}. `make verify` checks them" in text
    assert rendered.plans
    for plan in rendered.plans:
        assert plan.native
        assert f"- {plan.team}/{plan.run}: native gang scheduling: its PodGroups start whole or wait whole" in text
