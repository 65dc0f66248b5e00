"""Runtime admission policies: the rendered CEL under a real CEL engine, bindings, schemas, size."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import kubernetes_validate
import pytest

from charts.namespaces import GRANTED
from charts.ordering import SYNC_WAVE
from charts.render import render_cluster_objects
from config.load import REPO_ROOT
from policy.environment.load import load_environment
from policy.gangs.admission import TIER_GRANTED, Verdict, review
from tests.conftest import EXAMPLE_ENVIRONMENTS, env_from, shipped_render
from tests.helpers import yaml_files
from tests.helpers.environments import workload_aware_render, workload_aware_run

DIST = REPO_ROOT / "dist"
Obj = dict[str, Any]

POLICY_NAMES = {
    "gpu-platform-tier-grants-pods",
    "gpu-platform-tier-grants-jobs",
    "gpu-platform-tier-grants-workloads",
    "gpu-platform-tier-grants-podgroups",
    "gpu-platform-tier-grants-compositepodgroups",
    "gpu-platform-job-gang-min-count",
    "gpu-platform-team-gang-jobs",
    "gpu-platform-team-podgroups",
    "gpu-platform-gang-gpu-pods",
    "gpu-platform-device-classes-resourceclaimtemplates",
    "gpu-platform-device-classes-resourceclaims",
}
DEFAULT_NAMESPACE: Obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}


@cache
def _cluster_objects(env_name: str) -> dict[str, list[Obj]]:
    """The workload-aware twin's: the gang policies judge gang kinds, which only a control plane serving
    GenericWorkload has (the shipped environments leave them out, see the end of this file)."""
    return workload_aware_render(env_name).cluster_scoped()


def _kind(env_name: str, kind: str) -> dict[str, Obj]:
    return {
        o["metadata"]["name"]: o for o in _cluster_objects(env_name)["admission-policies.yaml"] if o["kind"] == kind
    }


def _namespaces(env_name: str) -> dict[str, Obj]:
    return {o["metadata"]["name"]: o for o in _cluster_objects(env_name)["namespaces.yaml"]}


def _run(env_name: str, team: str, run: str) -> list[Obj]:
    return workload_aware_run(env_name, team, run)


def _first(objects: list[Obj], kind: str) -> Obj:
    return copy.deepcopy(next(o for o in objects if o["kind"] == kind))


def _in(obj: Obj, namespace: str) -> Obj:
    moved = copy.deepcopy(obj)
    moved["metadata"]["namespace"] = namespace
    return moved


def _review(policy: str, obj: Obj, *, old: Obj | None = None, env_name: str = "dev") -> Verdict:
    """``obj`` as a request to ``policy`` of ``env_name``, in the Namespace the platform renders for it."""
    namespace_name = obj["metadata"]["namespace"]
    namespace = _namespaces(env_name).get(namespace_name, DEFAULT_NAMESPACE | {"metadata": {"name": namespace_name}})
    spec = _kind(env_name, "ValidatingAdmissionPolicy")[policy]["spec"]
    return review(spec, obj, namespace=namespace, old=old, operation="UPDATE" if old else "CREATE")


ADMITTED = Verdict(judged=True)
NOT_JUDGED = Verdict(judged=False)


def _denied(*messages: str) -> Verdict:
    return Verdict(judged=True, failures=messages)


PRETRAIN = _run("dev", "llm-research", "pretrain-70b")  # flat gang (no CompositePodGroup), deadline tier
FINETUNE = _run("dev", "llm-research", "finetune-8b")  # a gang Job on the standard tier
HIERARCHICAL = _run("prod-example", "llm-research", "pretrain-70b")  # composite Workload, deadline tier


# --- shape, bindings, schemas, size -------------------------------------------------------------


def test_every_policy_has_a_binding_and_fails_closed() -> None:
    policies = _kind("dev", "ValidatingAdmissionPolicy")
    bindings = _kind("dev", "ValidatingAdmissionPolicyBinding")
    assert set(policies) == set(bindings) == POLICY_NAMES
    for name, policy in policies.items():
        spec = policy["spec"]
        assert spec["failurePolicy"] == "Fail"
        assert spec["matchConstraints"]["matchPolicy"] == "Equivalent"
        (rule,) = spec["matchConstraints"]["resourceRules"]
        assert rule["operations"] == ["CREATE", "UPDATE"] and len(rule["resources"]) == 1
        assert all("fix: " in v["message"] and v["messageExpression"] for v in spec["validations"])
        assert policy["metadata"]["annotations"][SYNC_WAVE] == "-9"
        assert bindings[name]["metadata"]["annotations"][SYNC_WAVE] == "-8"
        assert bindings[name]["spec"]["policyName"] == name


def test_binding_actions_follow_policy_enforcement(dev_data: dict[str, Any]) -> None:
    def actions(objects: list[Obj]) -> set[tuple[str, ...]]:
        return {
            tuple(o["spec"]["validationActions"]) for o in objects if o["kind"] == "ValidatingAdmissionPolicyBinding"
        }

    assert actions(_cluster_objects("dev")["admission-policies.yaml"]) == {("Deny",)}
    dev_data["platform"]["policy_enforcement"] = "warn_audit"
    assert actions(render_cluster_objects(env_from(dev_data))["admission-policies.yaml"]) == {("Warn", "Audit")}


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_rendered_policies_validate_strictly_against_1_37(env_name: str) -> None:
    for obj in _cluster_objects(env_name)["admission-policies.yaml"]:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_manifest_stays_well_under_the_payload_budget(env_name: str) -> None:
    from stacks.platform_objects import PAYLOAD_BUDGET_BYTES

    size = len(json.dumps(_cluster_objects(env_name)["admission-policies.yaml"]))
    assert size < PAYLOAD_BUDGET_BYTES // 2, size


def test_grant_label_value_is_the_one_namespaces_carry() -> None:
    assert TIER_GRANTED == GRANTED


@pytest.mark.parametrize("env_name", [e for e in EXAMPLE_ENVIRONMENTS if (DIST / e / "teams").is_dir()])
def test_the_platforms_own_runs_pass_every_policy(env_name: str) -> None:
    judged = 0
    rendered = workload_aware_render(env_name)
    for path in sorted(rendered.run_files):
        for obj in rendered.files[path]:
            for policy in POLICY_NAMES:
                verdict = _review(policy, obj, env_name=env_name)
                assert verdict.allowed, (path, obj["kind"], policy, verdict.failures)
                judged += verdict.judged
    assert judged > 0


# --- the shipped environments: fallback form, no gang policy ------------------------------------

FALLBACK_POLICY_NAMES = {
    "gpu-platform-tier-grants-pods",
    "gpu-platform-tier-grants-jobs",
    "gpu-platform-device-classes-resourceclaimtemplates",
    "gpu-platform-device-classes-resourceclaims",
}
"""The policies that judge no gang kind or gang field (``policy.gangs.workload_api.needs_workload_api``)."""


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_shipped_environments_render_no_policy_that_judges_gangs(env_name: str) -> None:
    from policy.gangs.admission import admission_policies
    from policy.gangs.workload_api import needs_workload_api

    committed = list(yaml_files.load_all((DIST / env_name / "admission-policies.yaml").read_text()))
    rendered = shipped_render(env_name).cluster_scoped()["admission-policies.yaml"]
    for objects in (committed, rendered):
        names = {o["metadata"]["name"] for o in objects}
        assert names == FALLBACK_POLICY_NAMES
        assert {o["kind"] for o in objects} == {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    platform = load_environment(name=env_name).platform
    assert {
        p.name for p in admission_policies(platform) if needs_workload_api(p)
    } == POLICY_NAMES - FALLBACK_POLICY_NAMES


@pytest.mark.parametrize("env_name", [e for e in EXAMPLE_ENVIRONMENTS if (DIST / e / "teams").is_dir()])
def test_shipped_runs_pass_every_policy_the_shipped_environment_renders(env_name: str) -> None:
    """The fallback form's Pods and Jobs meet the tier grants and DeviceClass rules that remain."""
    shipped = shipped_render(env_name)
    policies = {
        o["metadata"]["name"]: o["spec"]
        for o in shipped.cluster_scoped()["admission-policies.yaml"]
        if o["kind"] == "ValidatingAdmissionPolicy"
    }
    namespaces = {o["metadata"]["name"]: o for o in shipped.cluster_scoped()["namespaces.yaml"]}
    judged = 0
    for path in sorted((DIST / env_name / "teams").rglob("*.yaml")):
        for obj in yaml_files.load_all(path.read_text()):
            namespace = namespaces[obj["metadata"]["namespace"]]
            for name, spec in policies.items():
                verdict = review(spec, obj, namespace=namespace, old=None, operation="CREATE")
                assert verdict.allowed, (path.name, obj["kind"], name, verdict.failures)
                judged += verdict.judged
    assert judged > 0


# --- 1. scarce tiers only where granted -----------------------------------------------------------

GRANT_FIX = (
    "fix: use a tier every namespace may use (gpu-standard, gpu-opportunistic) in {field}, "
    "or have the platform team grant the tier to the team (platform.teams.<team>.tiers)"
)


def _not_granted(kind: str, namespace: str, tier: str, field: str = "spec.priorityClassName") -> str:
    return (
        f"{kind} uses priority class gpu-{tier}, which namespace {namespace} is not granted "
        f"(it lacks the label gpu-platform.io/tier-{tier}=allowed); " + GRANT_FIX.format(field=field)
    )


def _with_pod_priority(pod: Obj, priority_class: str) -> Obj:
    changed = copy.deepcopy(pod)
    changed["spec"]["priorityClassName"] = priority_class
    return changed


def test_pod_tier_grants() -> None:
    pod = _first(PRETRAIN, "Pod")
    policy = "gpu-platform-tier-grants-pods"
    assert _review(policy, pod) == ADMITTED
    assert _review(policy, _in(_with_pod_priority(pod, "gpu-standard"), "team-vision")) == ADMITTED
    assert _review(policy, _in(pod, "team-vision")) == _denied(_not_granted("Pod", "team-vision", "deadline"))
    assert _review(policy, _with_pod_priority(pod, "gpu-critical")) == _denied(
        _not_granted("Pod", "team-llm-research", "critical")
    )
    assert _review(policy, _in(pod, "default")) == _denied(_not_granted("Pod", "default", "deadline"))
    assert _review(policy, _in(pod, "gpu-platform")) == _denied(_not_granted("Pod", "gpu-platform", "deadline"))
    assert _review(policy, _in(_with_pod_priority(pod, "gpu-critical"), "gpu-platform")) == ADMITTED


def test_metadata_only_updates_are_not_judged() -> None:
    old = _in(_first(PRETRAIN, "Pod"), "team-vision")
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["finalizers"] = []
    relabelled["metadata"]["labels"]["audit"] = "done"
    assert _review("gpu-platform-tier-grants-pods", relabelled, old=old) == NOT_JUDGED
    changed = copy.deepcopy(old)
    changed["spec"]["activeDeadlineSeconds"] = 3600
    assert _review("gpu-platform-tier-grants-pods", changed, old=old) == _denied(
        _not_granted("Pod", "team-vision", "deadline")
    )


def test_job_tier_grants() -> None:
    job = _first(FINETUNE, "Job")
    policy = "gpu-platform-tier-grants-jobs"
    field = "spec.template.spec.priorityClassName"
    assert _review(policy, job) == ADMITTED
    deadline = copy.deepcopy(job)
    deadline["spec"]["template"]["spec"]["priorityClassName"] = "gpu-deadline"
    assert _review(policy, deadline) == ADMITTED
    assert _review(policy, _in(deadline, "team-vision")) == _denied(
        _not_granted("Job", "team-vision", "deadline", field)
    )
    critical = copy.deepcopy(job)
    critical["spec"]["template"]["spec"]["priorityClassName"] = "gpu-critical"
    assert _review(policy, critical) == _denied(_not_granted("Job", "team-llm-research", "critical", field))
    assert _review(policy, _in(deadline, "default")) == _denied(_not_granted("Job", "default", "deadline", field))


def _set_tree_priorities(templates: list[Obj], priority_class: str) -> None:
    for template in templates:
        template["priorityClassName"] = priority_class
        _set_tree_priorities(template.get("podGroupTemplates", []), priority_class)
        _set_tree_priorities(template.get("compositePodGroupTemplates", []), priority_class)


def _deep_workload(leaf_class: str) -> Obj:
    """Three levels of composites (the limit) on gpu-standard, with ``leaf_class`` only on the deepest PodGroup."""
    workload = _first(HIERARCHICAL, "Workload")
    root = workload["spec"]["compositePodGroupTemplates"][0]
    middle = copy.deepcopy(root) | {"name": "middle"}
    bottom = copy.deepcopy(root) | {"name": "bottom"}
    bottom["podGroupTemplates"] = [t | {"name": f"bottom-{t['name']}"} for t in bottom["podGroupTemplates"]]
    middle["podGroupTemplates"] = [t | {"name": f"middle-{t['name']}"} for t in middle["podGroupTemplates"]]
    middle["compositePodGroupTemplates"] = [bottom]
    root["compositePodGroupTemplates"] = [middle]
    _set_tree_priorities(workload["spec"]["compositePodGroupTemplates"], "gpu-standard")
    bottom["podGroupTemplates"][-1]["priorityClassName"] = leaf_class
    return _in(workload, "team-vision")


def test_workload_tier_grants_cover_flat_and_composite_trees() -> None:
    policy = "gpu-platform-tier-grants-workloads"
    field = "the templates' priorityClassName"
    flat = _first(PRETRAIN, "Workload")
    composite = _in(_first(HIERARCHICAL, "Workload"), "team-llm-research")
    assert _review(policy, flat) == ADMITTED
    assert _review(policy, composite) == ADMITTED
    assert _review(policy, _deep_workload("gpu-standard")) == ADMITTED
    assert _review(policy, _in(flat, "team-vision")) == _denied(
        _not_granted("Workload", "team-vision", "deadline", field)
    )
    assert _review(policy, _in(composite, "team-vision")) == _denied(
        _not_granted("Workload", "team-vision", "deadline", field)
    )
    assert _review(policy, _deep_workload("gpu-critical")) == _denied(
        _not_granted("Workload", "team-vision", "critical", field)
    )
    kubernetes_validate.validate(_deep_workload("gpu-critical"), "1.37.0", strict=True)


def test_pod_group_tier_grants() -> None:
    group = _first(PRETRAIN, "PodGroup")
    policy = "gpu-platform-tier-grants-podgroups"
    assert _review(policy, group) == ADMITTED
    assert _review(policy, _in(group, "team-vision")) == _denied(_not_granted("PodGroup", "team-vision", "deadline"))
    critical = copy.deepcopy(group)
    critical["spec"]["priorityClassName"] = "gpu-critical"
    assert _review(policy, critical) == _denied(_not_granted("PodGroup", "team-llm-research", "critical"))
    assert _review(policy, _in(group, "default")) == _denied(_not_granted("PodGroup", "default", "deadline"))


def test_composite_pod_group_tier_grants() -> None:
    composite = _in(_first(HIERARCHICAL, "CompositePodGroup"), "team-llm-research")
    policy = "gpu-platform-tier-grants-compositepodgroups"
    assert _review(policy, composite) == ADMITTED
    assert _review(policy, _in(composite, "team-vision")) == _denied(
        _not_granted("CompositePodGroup", "team-vision", "deadline")
    )
    unset = copy.deepcopy(composite)
    del unset["spec"]["priorityClassName"]
    assert _review(policy, _in(unset, "team-vision")) == ADMITTED


# --- 2. gang minCount within parallelism -----------------------------------------------------------

MIN_COUNT_FIX = (
    "fix: set spec.scheduling.schedulingPolicy.gang.minCount <= spec.parallelism "
    "(or leave minCount unset: it defaults to parallelism)"
)


def _gang_job(min_count: int | None, parallelism: int | None) -> Obj:
    job = _first(FINETUNE, "Job")
    if min_count is None:
        job["spec"]["scheduling"]["schedulingPolicy"]["gang"].pop("minCount")
    else:
        job["spec"]["scheduling"]["schedulingPolicy"]["gang"]["minCount"] = min_count
    if parallelism is None:
        job["spec"].pop("parallelism")
    else:
        job["spec"]["parallelism"] = parallelism
    return job


def _too_large(min_count: int, parallelism: int) -> str:
    return (
        f"Job gang minCount {min_count} is larger than spec.parallelism {parallelism}, "
        f"so the gang never starts; {MIN_COUNT_FIX}"
    )


def test_job_gang_min_count_within_parallelism() -> None:
    policy = "gpu-platform-job-gang-min-count"
    assert _review(policy, _gang_job(2, 2)) == ADMITTED
    assert _review(policy, _gang_job(1, None)) == ADMITTED
    assert _review(policy, _gang_job(None, 4)) == NOT_JUDGED  # minCount defaults to parallelism
    plain = _first(FINETUNE, "Job")
    del plain["spec"]["scheduling"]
    assert _review(policy, plain) == NOT_JUDGED
    assert _review(policy, _gang_job(3, 2)) == _denied(_too_large(3, 2))
    assert _review(policy, _gang_job(2, None)) == _denied(_too_large(2, 1))
    assert _review(policy, _gang_job(16, 0)) == _denied(_too_large(16, 0))
    assert _review(policy, _gang_job(2, 1), old=_gang_job(2, 2)) == _denied(_too_large(2, 1))


def test_team_gang_jobs_use_a_platform_tier() -> None:
    policy = "gpu-platform-team-gang-jobs"
    job = _first(FINETUNE, "Job")
    assert _review(policy, job) == ADMITTED
    fix = (
        "is not a platform tier; fix: set spec.template.spec.priorityClassName to one of "
        "gpu-critical, gpu-deadline, gpu-standard, gpu-opportunistic"
    )
    system = copy.deepcopy(job)
    system["spec"]["template"]["spec"]["priorityClassName"] = "system-node-critical"
    assert _review(policy, system) == _denied(f"gang Job priority class system-node-critical {fix}")
    unset = copy.deepcopy(job)
    del unset["spec"]["template"]["spec"]["priorityClassName"]
    assert _review(policy, unset) == _denied(f"gang Job priority class (unset) {fix}")
    other = copy.deepcopy(job)
    other["spec"]["template"]["spec"]["priorityClassName"] = "high"
    assert _review(policy, other) == _denied(f"gang Job priority class high {fix}")
    plain = copy.deepcopy(unset)
    del plain["spec"]["scheduling"]
    assert _review(policy, plain) == NOT_JUDGED  # ordinary Jobs are not gang Jobs


# --- 3. PodGroups in team namespaces --------------------------------------------------------------

NO_WORKLOAD = (
    "PodGroup in team namespace {namespace} does not reference a Workload; "
    "fix: set spec.workloadRef.workloadName and spec.workloadRef.templateName "
    "to the Workload and the podGroupTemplate it is created from"
)
NOT_A_TIER = (
    "PodGroup priority class {priority_class} is not a platform tier; fix: set spec.priorityClassName to one of "
    "gpu-critical, gpu-deadline, gpu-standard, gpu-opportunistic"
)


def test_team_pod_groups_reference_a_workload_and_a_platform_tier() -> None:
    group = _first(PRETRAIN, "PodGroup")
    policy = "gpu-platform-team-podgroups"
    assert _review(policy, group) == ADMITTED
    orphan = copy.deepcopy(group)
    del orphan["spec"]["workloadRef"]
    assert _review(policy, orphan) == _denied(NO_WORKLOAD.format(namespace="team-llm-research"))
    system = copy.deepcopy(group)
    system["spec"]["priorityClassName"] = "system-cluster-critical"
    assert _review(policy, system) == _denied(NOT_A_TIER.format(priority_class="system-cluster-critical"))
    bare = copy.deepcopy(orphan)
    del bare["spec"]["priorityClassName"]
    assert _review(policy, _in(bare, "team-vision")) == _denied(
        NO_WORKLOAD.format(namespace="team-vision"), NOT_A_TIER.format(priority_class="(unset)")
    )
    assert _review(policy, _in(bare, "default")) == NOT_JUDGED  # not a team namespace


# --- 4. GPU Pods in gang-managed namespaces join a PodGroup ---------------------------------------

NO_POD_GROUP = (
    "GPU Pod in gang-managed namespace {namespace} does not join a PodGroup; "
    "fix: set spec.schedulingGroup.podGroupName to the gang's PodGroup, "
    "or submit a Job with spec.scheduling (its controller creates the PodGroup)"
)


def _loose_pod(namespace: str = "team-llm-research") -> Obj:
    pod = _in(_first(PRETRAIN, "Pod"), namespace)
    del pod["spec"]["schedulingGroup"]
    return pod


def _device_plugin_pod(field: str, *, init: bool = False) -> Obj:
    pod = _loose_pod()
    del pod["spec"]["resourceClaims"]
    container = pod["spec"]["containers"][0]
    del container["resources"]["claims"]
    container["resources"][field] = {"nvidia.com/gpu": "8"}
    if init:
        pod["spec"]["initContainers"] = [
            {"name": "warmup", "image": "example/warmup:1", "resources": container.pop("resources")}
        ]
    return pod


def test_gang_gpu_pods_join_a_pod_group() -> None:
    policy = "gpu-platform-gang-gpu-pods"
    denied = _denied(NO_POD_GROUP.format(namespace="team-llm-research"))
    assert _review(policy, _first(PRETRAIN, "Pod")) == ADMITTED
    assert _review(policy, _loose_pod()) == denied
    assert _review(policy, _device_plugin_pod("limits")) == denied
    assert _review(policy, _device_plugin_pod("requests", init=True)) == denied
    empty = _first(PRETRAIN, "Pod")
    empty["spec"]["schedulingGroup"]["podGroupName"] = ""
    assert _review(policy, empty) == denied
    cpu_only = _device_plugin_pod("limits")
    cpu_only["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    assert _review(policy, cpu_only) == NOT_JUDGED
    assert _review(policy, _loose_pod("gpu-platform")) == NOT_JUDGED  # not gang-managed


# --- 5. platform DeviceClasses only in team namespaces --------------------------------------------

CLASS_FIX = (
    " use DeviceClasses outside the platform catalogue; fix: use a platform DeviceClass (h100-80gb.gpu-platform.io, "
    "hopper-or-newer.gpu-platform.io, l4.gpu-platform.io, mig-1g-10gb.gpu-platform.io)"
)


def _requests(*requests: Obj) -> dict[str, Any]:
    return {"devices": {"requests": list(requests)}}


def _exactly(name: str, device_class: str) -> Obj:
    return {"name": name, "exactly": {"deviceClassName": device_class, "count": 8}}


def _first_available(name: str, *device_classes: str) -> Obj:
    return {
        "name": name,
        "firstAvailable": [{"name": f"s{i}", "deviceClassName": c} for i, c in enumerate(device_classes)],
    }


def _claim_template(*requests: Obj, namespace: str = "team-llm-research") -> Obj:
    template = _in(_first(PRETRAIN, "ResourceClaimTemplate"), namespace)
    template["spec"]["spec"] = _requests(*requests)
    return template


def _claim(*requests: Obj, namespace: str = "team-vision") -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "shared-gpus", "namespace": namespace},
        "spec": _requests(*requests),
    }


def test_claim_templates_use_platform_device_classes() -> None:
    policy = "gpu-platform-device-classes-resourceclaimtemplates"
    assert _review(policy, _first(PRETRAIN, "ResourceClaimTemplate")) == ADMITTED
    fallback = _claim_template(_first_available("gpus", "h100-80gb.gpu-platform.io", "l4.gpu-platform.io"))
    assert _review(policy, fallback) == ADMITTED
    assert _review(policy, _claim_template(_exactly("gpus", "gpu.nvidia.com"))) == _denied(
        "ResourceClaimTemplate requests gpus (gpu.nvidia.com)" + CLASS_FIX
    )
    driver_fallback = _claim_template(_first_available("gpus", "h100-80gb.gpu-platform.io", "mig.nvidia.com"))
    assert _review(policy, driver_fallback) == _denied(
        "ResourceClaimTemplate requests gpus (h100-80gb.gpu-platform.io | mig.nvidia.com)" + CLASS_FIX
    )
    mixed = _claim_template(
        _exactly("gpus", "vfio.gpu.nvidia.com"),
        _exactly("ok", "l4.gpu-platform.io"),
        _exactly("nic", "rdma.example.com"),
    )
    assert _review(policy, mixed) == _denied(
        "ResourceClaimTemplate requests gpus (vfio.gpu.nvidia.com), nic (rdma.example.com)" + CLASS_FIX
    )
    assert _review(policy, _claim_template(_exactly("gpus", "gpu.nvidia.com"), namespace="default")) == NOT_JUDGED


def test_claims_use_platform_device_classes() -> None:
    policy = "gpu-platform-device-classes-resourceclaims"
    for claim in (_claim(_exactly("gpus", "l4.gpu-platform.io")), _claim(_exactly("gpus", "gpu.nvidia.com"))):
        kubernetes_validate.validate(claim, "1.37.0", strict=True)
    assert _review(policy, _claim(_exactly("gpus", "l4.gpu-platform.io"))) == ADMITTED
    assert _review(policy, _claim(_exactly("gpus", "gpu.nvidia.com"))) == _denied(
        "ResourceClaim requests gpus (gpu.nvidia.com)" + CLASS_FIX
    )
    assert _review(policy, _claim(_first_available("gpus", "mig.nvidia.com"))) == _denied(
        "ResourceClaim requests gpus (mig.nvidia.com)" + CLASS_FIX
    )
    assert _review(policy, _claim(_exactly("gpus", "gpu.nvidia.com.gpu-platform.io.evil"))) == _denied(
        "ResourceClaim requests gpus (gpu.nvidia.com.gpu-platform.io.evil)" + CLASS_FIX
    )
    assert _review(policy, _claim(_exactly("gpus", "gpu.nvidia.com"), namespace="kube-system")) == NOT_JUDGED
