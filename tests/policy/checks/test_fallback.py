"""make check over the fallback form: a run without a PodGroup is still checked whole."""

from __future__ import annotations

from typing import Any

from charts.render import render_environment
from policy.checks.capacity import check_capacity
from policy.checks.demands import gpu_demands
from policy.results import Status
from tests.conftest import env_from


def test_fallback_run_that_cannot_fit_whole_fails_the_capacity_check(dev_data: dict[str, Any]) -> None:
    dev_data["platform"]["teams"]["llm-research"]["runs"] = ["finetune-8b", "pretrain-70b"]
    env = env_from(dev_data)
    objects = render_environment(env).all_objects()
    (pretrain,) = [d for d in gpu_demands(objects) if d.subject.startswith("Pods/team-llm-research/pretrain-70b-")]
    assert (pretrain.min_pods, pretrain.all_pods, pretrain.topology_key) == (16, 16, "topology.kubernetes.io/zone")
    failed = [c for c in check_capacity(env, objects) if c.status is Status.FAIL]
    assert [c.subject for c in failed] == [pretrain.subject]
    assert "the largest zone (us-west-2a) holds at most 2" in failed[0].detail


def test_fallback_job_counts_its_parallelism(dev_data: dict[str, Any]) -> None:
    objects = render_environment(env_from(dev_data)).all_objects()
    (job,) = [o for o in objects if o["kind"] == "Job"]
    assert "scheduling" not in job["spec"]
    (finetune,) = [d for d in gpu_demands(objects) if "finetune-8b" in d.subject]
    assert finetune.all_pods == job["spec"]["parallelism"] == 2


def test_a_job_run_renders_only_the_claim_template_its_pods_use(dev_data: dict[str, Any]) -> None:
    objects = render_environment(env_from(dev_data)).all_objects()
    (job,) = [o for o in objects if o["kind"] == "Job"]
    used = {c["resourceClaimTemplateName"] for c in job["spec"]["template"]["spec"]["resourceClaims"]}
    part_of = job["metadata"]["labels"]["app.kubernetes.io/part-of"]
    templates = {
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "ResourceClaimTemplate" and o["metadata"]["labels"]["app.kubernetes.io/part-of"] == part_of
    }
    assert templates == used
