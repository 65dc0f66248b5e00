"""``platform.workload_api`` on a control plane that serves the Workload API: required has make verify probe
the gates after deploy; optional leaves every gang object out and says so."""

from __future__ import annotations

import json
from typing import Any

import pytest

from charts.render import render_checked, render_cluster_objects
from config.load import REPO_ROOT
from config.platform import WorkloadApi
from policy.environment.load import load_environment
from policy.environment.teams import load_team_runs
from policy.gangs.workload_api import applied_objects, gang_run_warnings, withheld_policy_names
from tests.conftest import env_from
from tests.helpers import yaml_files
from tests.helpers.environments import WORKLOAD_AWARE_GATES, workload_aware, workload_aware_data


def _optional(dev_data: dict[str, Any]) -> Any:
    """dev on a control plane that serves the workload-aware gates, with ``workload_api: optional`` (without
    GenericWorkload there is no gang object to leave out: the fallback form has none)."""
    workload_aware_data(dev_data)["platform"]["workload_api"] = "optional"
    return env_from(dev_data)


def test_required_is_the_default_and_applies_everything() -> None:
    env = load_environment(name="dev")
    assert env.platform.workload_api is WorkloadApi.REQUIRED
    files = render_cluster_objects(env)
    assert applied_objects(env, files) == files


def test_optional_leaves_out_the_admission_policies_that_judge_gangs(dev_data: dict[str, Any]) -> None:
    env = _optional(dev_data)
    files = render_cluster_objects(env)
    applied = applied_objects(env, files)
    names = sorted({o["metadata"]["name"] for o in applied["admission-policies.yaml"]})
    assert names == [
        "gpu-platform-device-classes-resourceclaims",
        "gpu-platform-device-classes-resourceclaimtemplates",
        "gpu-platform-tier-grants-jobs",
        "gpu-platform-tier-grants-pods",
    ]
    withheld = withheld_policy_names(env.platform)
    assert "gpu-platform-gang-gpu-pods" in withheld  # it would refuse every GPU Pod once schedulingGroup is dropped
    assert {k: v for k, v in applied.items() if k != "admission-policies.yaml"} == {
        k: v for k, v in files.items() if k != "admission-policies.yaml"
    }
    # dist/ still shows every object for review.
    assert len(files["admission-policies.yaml"]) == 2 * (len(names) + len(withheld))


def test_optional_warns_once_per_gang_run_naming_it(dev_data: dict[str, Any]) -> None:
    env = _optional(dev_data)
    warnings = gang_run_warnings(env, load_team_runs(env))
    assert len(warnings) == len(load_team_runs(env)) == 3
    assert warnings[0] == (
        "teams/llm-research/finetune-8b.yaml: run llm-research/finetune-8b is a gang (Workload and PodGroups, or a "
        "Job with spec.scheduling); with platform.workload_api: optional it can start only where the cluster "
        "serves scheduling.k8s.io/v1beta1 (make verify says whether it does)"
    )
    assert gang_run_warnings(workload_aware("dev"), load_team_runs(env)) == []


def test_fails_unknown_workload_api_mode(dev_data: dict[str, Any]) -> None:
    from config.errors import ConfigError

    dev_data["platform"]["workload_api"] = "maybe"
    with pytest.raises(ConfigError) as caught:
        env_from(dev_data)
    assert caught.value.line() == (
        "platform.workload_api: not an allowed value (got 'maybe'); fix: use one of 'required' or 'optional'"
    )


@pytest.mark.synth
def test_optional_stack_applies_no_gang_object_and_says_so(dev_data: dict[str, Any], tmp_path: Any) -> None:
    from cli.synth import synth_cloudformation

    warnings = synth_cloudformation(_optional(dev_data), tmp_path)
    env = _optional(dev_data)
    expected = [
        f"warning: /gpu-cluster-dev/ServedApiCheck: {w} [ack: gpu-platform:workload-api-optional-gang-run-{i}]"
        for i, w in enumerate(gang_run_warnings(env, load_team_runs(env)))
    ]
    assert [line for line in warnings if "ServedApiCheck" in line] == expected
    template = json.loads((tmp_path / "gpu-cluster-dev.template.json").read_text())
    text = json.dumps(template["Resources"])
    assert "gate-probe-" not in text and "gpu-platform-gang-gpu-pods" not in text
    assert "gpu-platform-tier-grants-pods" in text
    (output,) = [v for k, v in template["Outputs"].items() if k.startswith("ServedApiCheckWorkloadApi")]
    assert output["Value"] == "optional: gang objects (gang admission policies) not applied; run make verify"


def test_composite_pod_group_path_can_be_dropped_and_the_same_runs_render_flat() -> None:
    """Rehearsal of disabling the alpha CompositePodGroup path in prod-example."""
    import dataclasses

    from charts.render import render_environment
    from config.errors import ConfigError
    from policy.checks.suite import run_checks
    from policy.results import Status

    data = workload_aware_data(yaml_files.load((REPO_ROOT / "environments" / "prod-example.yaml").read_text()))
    with_gate = env_from(data)
    hierarchical = render_checked(with_gate)
    gates = [g for g in WORKLOAD_AWARE_GATES["prod-example"] if g != "CompositePodGroup"]
    env = env_from(workload_aware_data(data, control_plane=gates))
    # An elastic Spark gang needs its own coordinator group: refused in one line naming the run...
    with pytest.raises(ConfigError) as caught:
        render_checked(env)
    assert caught.value.line().startswith("teams/data-eng/feature-backfill.yaml: min_replicas: in one flat gang")
    # ...so the roll first makes it fixed-size (docs/operations/rollback-a-gate.md), then every run renders flat
    # and passes every check.
    runs = [
        dataclasses.replace(r, run=r.run.model_copy(update={"min_replicas": None, "elastic": False}))
        if r.name == "feature-backfill"
        else r
        for r in load_team_runs(with_gate)
    ]
    flat = render_environment(env, team_runs=runs)
    assert [f for f in run_checks(env, flat.all_objects()) if f.status is Status.FAIL] == []

    def kinds(rendered: Any, path: str) -> set[str]:
        return {o["kind"] for o in rendered.files[path]}

    run = "teams/llm-research/pretrain-70b.yaml"
    assert "CompositePodGroup" in kinds(hierarchical, run)
    assert set(hierarchical.files) == set(flat.files)
    for path in flat.files:
        if path.startswith("teams/"):
            assert "CompositePodGroup" not in kinds(flat, path)
            for workload in (o for o in flat.files[path] if o["kind"] == "Workload"):
                assert "podGroupTemplates" in workload["spec"] and "compositePodGroupTemplates" not in workload["spec"]
    # New object names: the form is part of each run's hash, so the flat run is created beside the old one.
    names = {o["metadata"]["name"] for o in flat.files[run]}
    assert names.isdisjoint({o["metadata"]["name"] for o in hierarchical.files[run]})
