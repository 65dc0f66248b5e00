"""Platform charts: DeviceClass selectors under a real CEL engine, tiers, gang templates, output."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from cdk8s import App

from catalog.device_classes import DEVICE_CLASSES, DRIVER_CLASS_NAMES, DRIVER_EXTENDED_RESOURCE, DeviceShape
from catalog.instances import GpuModel
from catalog.priority_tiers import TIERS, Tier
from charts.render import output_files, render_cluster_objects, render_environment
from config.errors import ConfigError
from config.load import REPO_ROOT
from policy.cel import device_matches
from policy.checks.objects import pods as member_pods
from policy.environment.load import load_environment
from policy.environment.teams import TEAMS_DIR, parse_run
from policy.gangs.workload_rules import check_objects, object_errors, workload_errors
from policy.infrastructure.device_classes import (
    MIG_PROFILES,
    models_selected,
    sample_devices,
    sample_gpu,
    sample_mig,
    selector_expression,
)
from tests.conftest import EXAMPLE_ENVIRONMENTS, shipped_render
from tests.helpers import yaml_files
from tests.helpers.environments import workload_aware, workload_aware_data, workload_aware_run

DIST = REPO_ROOT / "dist"
# Custom kinds kubernetes-validate has no schema for: Karpenter's (checked against the reference
# CRDs in tests/addons/karpenter) and the Prometheus Operator's.
CUSTOM_RESOURCE_GROUPS = frozenset({"karpenter.sh", "karpenter.k8s.aws", "monitoring.coreos.com"})

# Exactly the sample devices each class must select; everything else must be rejected.
EXPECTED_MATCHES: dict[DeviceShape, set[str]] = {
    DeviceShape.H100_80GB: {"gpu/H100-80GB"},
    DeviceShape.H200: {"gpu/H200"},
    DeviceShape.B200: {"gpu/B200"},
    DeviceShape.A100_40GB: {"gpu/A100-40GB"},
    DeviceShape.A100_80GB: {"gpu/A100-80GB"},
    DeviceShape.L40S: {"gpu/L40S"},
    DeviceShape.L4: {"gpu/L4"},
    DeviceShape.A10G: {"gpu/A10G"},
    DeviceShape.HOPPER_OR_NEWER: {"gpu/H100-80GB", "gpu/H200", "gpu/B200"},
    DeviceShape.MIG_1G_10GB: {"mig/A100-80GB/1g.10gb", "mig/H100-80GB/1g.10gb"},
}


@pytest.mark.parametrize("shape", list(DeviceShape))
def test_device_class_selects_exactly_its_devices(shape: DeviceShape) -> None:
    expression = selector_expression(DEVICE_CLASSES[shape])
    matched = {name for name, device in sample_devices().items() if device_matches(expression, device)}
    assert matched == EXPECTED_MATCHES[shape]


@pytest.mark.parametrize("shape", list(DeviceShape))
def test_python_model_selection_agrees_with_the_cel_selector(shape: DeviceShape) -> None:
    spec = DEVICE_CLASSES[shape]
    expression = selector_expression(spec)
    via_cel = {
        model
        for model in GpuModel
        if any(
            device_matches(expression, d)
            for d in (sample_gpu(model), *(sample_mig(model, p) for p in MIG_PROFILES.get(model, ())))
        )
    }
    assert models_selected(spec) == via_cel


def test_selector_rejects_other_drivers() -> None:
    device = sample_devices()["gpu/H100-80GB"] | {"driver": "gpu.example.com"}
    assert not device_matches(selector_expression(DEVICE_CLASSES[DeviceShape.H100_80GB]), device)


def test_device_classes_never_reuse_driver_names_or_extended_resource() -> None:
    for env_name in EXAMPLE_ENVIRONMENTS:
        for obj in render_cluster_objects(load_environment(name=env_name))["device-classes.yaml"]:
            assert obj["metadata"]["name"] not in DRIVER_CLASS_NAMES
            assert obj["spec"].get("extendedResourceName") != DRIVER_EXTENDED_RESOURCE


def test_priority_tiers_have_at_most_one_default(dev_data: dict[str, Any]) -> None:
    from tests.conftest import env_from

    objects = render_cluster_objects(load_environment(name="dev"))["priority-classes.yaml"]
    assert [o for o in objects if o.get("globalDefault")] == []
    dev_data["platform"]["default_tier"] = "opportunistic"
    objects = render_cluster_objects(env_from(dev_data))["priority-classes.yaml"]
    assert [o["metadata"]["name"] for o in objects if o.get("globalDefault")] == ["gpu-opportunistic"]


def test_tiers_order_and_preemption() -> None:
    values = [TIERS[t].value for t in (Tier.CRITICAL, Tier.DEADLINE, Tier.STANDARD, Tier.OPPORTUNISTIC)]
    assert values == sorted(values, reverse=True)
    assert TIERS[Tier.OPPORTUNISTIC].preemption_policy.value == "Never"


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_every_rendered_object_validates_strictly_against_1_37(env_name: str) -> None:
    rendered = shipped_render(env_name)
    for obj in rendered.all_objects():
        if obj["apiVersion"].split("/")[0] in CUSTOM_RESOURCE_GROUPS:
            continue  # validated against their own CRDs (tests/addons/karpenter) or not ours to define
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_strict_validation_refuses_an_unknown_field_on_every_call() -> None:
    # The schema files are parsed once per process (tests/conftest.py): later calls still validate.
    good = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"k": "v"}}
    bad = {**good, "date": {"k": "v"}}
    for _ in range(2):
        kubernetes_validate.validate(good, "1.37.0", strict=True)
        with pytest.raises(kubernetes_validate.ValidationError, match="date"):
            kubernetes_validate.validate(bad, "1.37.0", strict=True)


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_committed_dist_is_the_golden_output(env_name: str) -> None:
    env = load_environment(name=env_name)
    files = output_files(env, shipped_render(env_name))
    committed = {
        str(p.relative_to(DIST / env_name)): p.read_text() for p in (DIST / env_name).rglob("*") if p.is_file()
    }
    assert committed == files, "run `make render-all` and commit dist/"


@pytest.mark.parametrize("env_name", EXAMPLE_ENVIRONMENTS)
def test_one_app_per_chart_renders_what_one_shared_app_renders(env_name: str) -> None:
    # The shared App is how every chart used to render; one App per chart must not change a byte.
    env = load_environment(name=env_name)
    per_chart = output_files(env, shipped_render(env_name))
    shared = output_files(env, render_environment(env, shared_app=App()))
    assert per_chart == shared


def test_output_is_deterministic() -> None:
    env = load_environment(name="prod-example")
    assert output_files(env, render_environment(env)) == output_files(env, render_environment(env))


def _objects(env_name: str, team: str, run: str) -> list[dict[str, Any]]:
    """The run as the workload-aware twin of ``env_name`` renders it (the native gang form)."""
    return workload_aware_run(env_name, team, run)


def _shipped_objects(env_name: str, team: str, run: str) -> list[dict[str, Any]]:
    """The run as committed under ``dist/`` for the shipped environment (the fallback form)."""
    return [o for o in yaml_files.load_all((DIST / env_name / "teams" / team / f"{run}.yaml").read_text())]


def _one(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind]
    return found


def test_flat_pytorch_gang_is_one_group_of_coordinator_and_workers() -> None:
    env = workload_aware("dev")  # dev lacks CompositePodGroup: the hierarchical run falls back to flat
    objects = _objects("dev", "llm-research", "pretrain-70b")
    workload = _one(objects, "Workload")
    (template,) = workload["spec"]["podGroupTemplates"]
    assert template["schedulingPolicy"] == {"gang": {"minCount": 16}}
    assert template["priorityClassName"] == "gpu-deadline"
    assert template["disruptionMode"] == {"all": {}}
    assert template["schedulingConstraints"] == {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    assert "preemptionPolicy" not in template  # PodGroupPreemptionPolicy is off in dev
    group = _one(objects, "PodGroup")
    assert group["spec"]["workloadRef"] == {"workloadName": workload["metadata"]["name"], "templateName": "gang"}
    pods = [o for o in objects if o["kind"] == "Pod"]
    assert len(pods) == 16
    assert {p["spec"]["schedulingGroup"]["podGroupName"] for p in pods} == {group["metadata"]["name"]}
    assert all(p["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"] == "true" for p in pods)
    assert env.platform.teams["llm-research"].namespace == workload["metadata"]["namespace"]


def test_hierarchical_form_when_the_gate_is_on() -> None:
    objects = _objects("prod-example", "llm-research", "pretrain-70b")
    workload = _one(objects, "Workload")
    (root,) = workload["spec"]["compositePodGroupTemplates"]
    assert root["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert [t["name"] for t in root["podGroupTemplates"]] == ["coordinator", "workers"]
    composite = _one(objects, "CompositePodGroup")
    assert composite["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    groups = [o for o in objects if o["kind"] == "PodGroup"]
    assert {g["spec"]["parentCompositePodGroupName"] for g in groups} == {composite["metadata"]["name"]}
    kinds = [o["kind"] for o in objects]
    assert kinds.index("Workload") < kinds.index("CompositePodGroup") < kinds.index("PodGroup") < kinds.index("Pod")


def test_job_form_uses_spec_scheduling_and_no_workload() -> None:
    objects = _objects("dev", "llm-research", "finetune-8b")
    assert {o["kind"] for o in objects} == {"Job", "ResourceClaimTemplate", "Service"}
    job = _one(objects, "Job")
    assert job["spec"]["scheduling"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 2


GANG_KINDS = {"Workload", "PodGroup", "CompositePodGroup"}


def _fallback_pods(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == "Pod"]


@pytest.mark.parametrize("env_name", [e for e in EXAMPLE_ENVIRONMENTS if (DIST / e / "teams").is_dir()])
def test_fallback_runs_render_no_scheduling_object_and_no_scheduling_group(env_name: str) -> None:
    for path in sorted((DIST / env_name / "teams").rglob("*.yaml")):
        for obj in yaml_files.load_all(path.read_text()):
            assert not obj["apiVersion"].startswith("scheduling.k8s.io/"), (path.name, obj["kind"])
            template = obj.get("spec", {}).get("template", {}) if obj["kind"] in ("Job", "StatefulSet") else obj
            assert "schedulingGroup" not in (template.get("spec") or {}), (path.name, obj["kind"])
            if obj["kind"] == "Job":
                assert "scheduling" not in obj["spec"], path.name


def test_fallback_job_run_is_a_plain_indexed_job() -> None:
    objects = _shipped_objects("dev", "llm-research", "finetune-8b")
    assert not {o["kind"] for o in objects} & GANG_KINDS
    job = _one(objects, "Job")
    assert "scheduling" not in job["spec"]
    assert job["spec"]["completionMode"] == "Indexed"
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 2
    kubernetes_validate.validate(job, "1.37.0", strict=True)


def test_fallback_zone_run_requires_the_zone_of_its_gpu_pods() -> None:
    objects = _shipped_objects("prod-example", "llm-research", "pretrain-70b")
    assert not {o["kind"] for o in objects} & GANG_KINDS
    pods = _fallback_pods(objects)
    assert len(pods) == 16
    gpu_roles = {"coordinator", "worker"}
    for pod in pods:
        (term,) = pod["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term["topologyKey"] == "topology.kubernetes.io/zone"
        part_of = pod["metadata"]["labels"]["app.kubernetes.io/part-of"]
        assert part_of.startswith("pretrain-70b-")
        assert term["labelSelector"]["matchLabels"] == {"app.kubernetes.io/part-of": part_of}
        (roles,) = term["labelSelector"]["matchExpressions"]
        assert (roles["key"], roles["operator"], set(roles["values"])) == ("gpu-platform.io/role", "In", gpu_roles)
        assert pod["metadata"]["labels"]["gpu-platform.io/role"] in gpu_roles
        assert "schedulingGroup" not in pod["spec"]
        kubernetes_validate.validate(pod, "1.37.0", strict=True)
    # The native twin keeps zone topology on the gang instead, with no Pod affinity.
    native = [o for o in _objects("prod-example", "llm-research", "pretrain-70b") if o["kind"] == "Pod"]
    assert native and all("affinity" not in p["spec"] for p in native)


def test_fallback_run_without_zone_topology_has_no_pod_affinity() -> None:
    from config.platform import TopologyPreference
    from policy.gangs.plan import plan_gang

    env = load_environment(name="prod-example")
    rendered = shipped_render("prod-example")
    for plan in rendered.plans:
        assert not plan.native and plan.topology_key is None
        if plan.zone_affinity_key is None:
            pods = _fallback_pods(rendered.files[f"teams/{plan.team}/{plan.run}.yaml"])
            assert all("podAffinity" not in (p["spec"].get("affinity") or {}) for p in pods), plan.run
    run = parse_run(
        env,
        "llm-research",
        "r",
        BASE_RUN
        | {
            "template": "pytorch",
            "topology": "zone",
            "device_class": "h100-80gb",
            "gpus_per_replica": 8,
            "command": ["train.py"],
        },
    )
    assert run.topology is TopologyPreference.ZONE
    plan = plan_gang(env, team="llm-research", run_name="r", run=run)
    assert (plan.native, plan.zone_affinity_key, plan.topology_key) == (False, "topology.kubernetes.io/zone", None)


def test_spark_driver_and_executors_are_admitted_as_one_gang() -> None:
    objects = _objects("prod-example", "data-eng", "feature-backfill")
    (root,) = _one(objects, "Workload")["spec"]["compositePodGroupTemplates"]
    assert root["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert [(t["name"], t["schedulingPolicy"]) for t in root["podGroupTemplates"]] == [
        ("driver", {"gang": {"minCount": 1}}),
        ("executors", {"gang": {"minCount": 6}}),
    ]
    service = _one(objects, "Service")
    driver = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"].endswith("-driver-0"))
    executor = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"].endswith("-executor-0"))
    address = f"{driver['spec']['hostname']}.{service['metadata']['name']}.team-data-eng.svc.cluster.local"
    assert driver["spec"]["subdomain"] == executor["spec"]["subdomain"] == service["metadata"]["name"]
    assert {"name": "DRIVER_HOST", "value": address} in executor["spec"]["containers"][0]["env"]
    claims = _one([o for o in objects if o["metadata"]["name"].endswith("executor-gpus")], "ResourceClaimTemplate")
    assert claims["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == (
        "mig-1g-10gb.gpu-platform.io"
    )


def test_tier_not_team_decides_priority() -> None:
    env = load_environment(name="dev")
    data = {"template": "mpi", "replicas": 2, "image": "example/app:1", "priorityClassName": "system-node-critical"}
    with pytest.raises(ConfigError, match=r"^priorityClassName: unknown key"):
        parse_run(env, "vision", "x", data)


def test_changed_run_gets_a_new_workload_name() -> None:
    env = load_environment(name="dev")
    base = {"template": "mpi", "replicas": 2, "device_class": "l4", "image": "example/app:1"}
    from charts.render import render_environment as render
    from config.platform import TeamRun

    def name(data: dict[str, Any]) -> str:
        run = TeamRun("vision", "sweep", "teams/vision/sweep.yaml", parse_run(env, "vision", "sweep", data))
        return str(render(env, team_runs=[run]).plans[0].workload_name)

    assert name(base) == name(copy.deepcopy(base))
    assert name(base) != name(base | {"image": "example/app:2"})
    assert name(base).startswith("sweep-")


def _fails_run(data: dict[str, Any], team: str = "vision", env_name: str = "dev") -> str:
    with pytest.raises(ConfigError) as caught:
        parse_run(workload_aware(env_name), team, "run", data)
    return caught.value.line()


BASE_RUN = {"template": "mpi", "replicas": 4, "device_class": "l4", "image": "example/app:1"}


def test_fails_run_unknown_key() -> None:
    assert _fails_run(BASE_RUN | {"gpus": 2}).startswith("gpus: unknown key (got 2); fix: remove it or use one of: ")


def test_fails_run_tier_not_granted() -> None:
    assert _fails_run(BASE_RUN | {"tier": "deadline"}) == (
        "tier: tier is not granted to team vision (got 'deadline'); "
        "fix: use one of standard, opportunistic or grant it under platform.teams.vision.tiers"
    )


def test_fails_run_device_class_not_published() -> None:
    assert _fails_run(BASE_RUN | {"device_class": "b200"}) == (
        "device_class: DeviceClass is not published in environment dev (got 'b200'); "
        "fix: use one of h100-80gb, l4, hopper-or-newer, mig-1g-10gb"
    )


def test_fails_run_unknown_template() -> None:
    assert _fails_run(BASE_RUN | {"template": "ray"}) == (
        "template: not an allowed value (got 'ray'); fix: use one of 'pytorch', 'mpi', 'spark' or 'service'"
    )


def test_fails_run_min_replicas_over_replicas() -> None:
    assert _fails_run(BASE_RUN | {"min_replicas": 5, "elastic": True}) == (
        "min_replicas: min_replicas is larger than replicas 4 (got 5); fix: set min_replicas <= replicas"
    )


def test_fails_run_elastic_not_acknowledged() -> None:
    assert _fails_run(BASE_RUN | {"min_replicas": 2}) == (
        "min_replicas: a gang that may start with fewer than replicas 4 must say so (got 2); "
        "fix: set elastic: true, or drop min_replicas"
    )


def test_fails_run_too_many_gpus() -> None:
    assert _fails_run(BASE_RUN | {"gpus_per_replica": 16}) == (
        "gpus_per_replica: more than 8 (got 16); fix: use a whole number from 0 to 8"
    )


def test_fails_run_bad_file_name() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_run(load_environment(name="dev"), "vision", "My_Run", BASE_RUN)
    assert caught.value.line() == (
        "<file name>: run names become object names and must be DNS labels (got 'My_Run'); "
        "fix: rename the file to lower-case letters, digits and '-', starting with a letter and ending with a letter "
        "or digit (the names built from it set the length: at most about 40 characters)"
    )


def test_team_run_errors_name_the_file(tmp_path: Path) -> None:
    from policy.environment.teams import load_team_runs

    (tmp_path / "llm-research").mkdir()  # the run dev selects for llm-research
    (tmp_path / "llm-research" / "finetune-8b.yaml").write_bytes(
        (TEAMS_DIR / "llm-research" / "finetune-8b.yaml").read_bytes()
    )
    (tmp_path / "vision").mkdir()
    (tmp_path / "vision" / "sweep.yaml").write_text("template: mpi\nreplicas: 0\nimage: example/app:1\n")
    with pytest.raises(ConfigError) as caught:
        load_team_runs(load_environment(name="dev"), teams_dir=tmp_path)
    assert caught.value.line() == (
        f"{tmp_path}/vision/sweep.yaml: replicas: a mpi run needs at least one worker (got 0); fix: set replicas >= 1"
    )


# Semantic rules the schemas do not check.
def _workload(templates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "Workload", "metadata": {"name": "w", "namespace": "n"}, "spec": {"podGroupTemplates": templates}}


def _template(name: str = "g", **extra: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": {"gang": {"minCount": 1}}, "priorityClassName": "gpu-standard"} | extra


def test_valid_workload_has_no_errors() -> None:
    assert workload_errors(_workload([_template()])) == []


def test_fails_min_count_zero() -> None:
    assert workload_errors(_workload([_template(schedulingPolicy={"gang": {"minCount": 0}})])) == [
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: must be >= 1 (got 0)"
    ]


def test_fails_both_basic_and_gang() -> None:
    assert workload_errors(_workload([_template(schedulingPolicy={"basic": {}, "gang": {"minCount": 1}})])) == [
        "spec.podGroupTemplates[0].schedulingPolicy: exactly one of basic or gang must be set (got ['basic', 'gang'])"
    ]


def test_fails_more_than_eight_templates() -> None:
    errors = workload_errors(_workload([_template(f"g{i}") for i in range(9)]))
    assert errors == ["spec.podGroupTemplates: at most 8 templates (got 9)"]


def test_fails_unequal_priorities() -> None:
    errors = workload_errors(_workload([_template("a"), _template("b", priorityClassName="gpu-deadline")]))
    assert errors == ["spec: all templates must share one priorityClassName (got ['gpu-deadline', 'gpu-standard'])"]


def test_fails_bad_template_name() -> None:
    assert workload_errors(_workload([_template("Workers")])) == [
        "spec.podGroupTemplates[0].name: not a DNS label (got 'Workers')"
    ]


def test_fails_two_topology_constraints() -> None:
    topology = {"topology": [{"key": "a"}, {"key": "b"}]}
    assert workload_errors(_workload([_template(schedulingConstraints=topology)])) == [
        "spec.podGroupTemplates[0].schedulingConstraints.topology: at most 1 constraint (got 2)"
    ]


def test_fails_five_claims() -> None:
    claims = [{"name": f"c{i}"} for i in range(5)]
    assert workload_errors(_workload([_template(resourceClaims=claims)])) == [
        "spec.podGroupTemplates[0].resourceClaims: at most 4 claims (got 5)"
    ]


def test_fails_neither_flat_nor_composite() -> None:
    assert workload_errors({"kind": "Workload", "spec": {}}) == [
        "spec: exactly one of podGroupTemplates or compositePodGroupTemplates must be set"
    ]


def _composite(depth: int, name: str = "c") -> dict[str, Any]:
    node = {
        "name": f"{name}{depth}",
        "schedulingPolicy": {"gang": {"minGroupCount": 1}},
        "priorityClassName": "gpu-standard",
        "podGroupTemplates": [_template(f"leaf{depth}")],
    }
    if depth > 1:
        node["compositePodGroupTemplates"] = [_composite(depth - 1, name)]
    return node


def test_fails_tree_deeper_than_four() -> None:
    workload = {"kind": "Workload", "spec": {"compositePodGroupTemplates": [_composite(4)]}}
    assert workload_errors(workload) == [
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0]"
        ".compositePodGroupTemplates: tree deeper than 4 levels (PodGroup level included)"
    ]
    assert workload_errors({"kind": "Workload", "spec": {"compositePodGroupTemplates": [_composite(3)]}}) == []


def test_fails_duplicate_names_across_tree() -> None:
    tree = _composite(2)
    tree["compositePodGroupTemplates"][0]["podGroupTemplates"] = [_template("leaf2")]
    assert workload_errors({"kind": "Workload", "spec": {"compositePodGroupTemplates": [tree]}}) == [
        "spec: template names must be unique across the tree (repeated: leaf2)"
    ]


def test_fails_object_name_not_dns() -> None:
    assert object_errors({"kind": "Pod", "metadata": {"name": "Pod_1"}}) == [
        "metadata.name: not a DNS subdomain (got 'Pod_1')"
    ]


def test_check_objects_names_the_object() -> None:
    from policy.gangs.workload_rules import WorkloadRuleError

    with pytest.raises(WorkloadRuleError, match=r"^Workload/n/w: spec.podGroupTemplates\[0\].name: not a DNS label"):
        check_objects([_workload([_template("Bad")])])


SHARED_GPU_SERVICE = {
    "template": "service",
    "replicas": 3,
    "readiness_command": ["true"],
    "gpus_per_replica": 0,
    "device_class": "hopper-or-newer",
    "cpu_per_replica": 8,
    "memory_gib_per_replica": 32,
    "image": "example/embedder:1",
    "shared_devices": {"device_class": "hopper-or-newer", "count": 1},
}


def _render_run(env_name: str, team: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    from config.platform import TeamRun

    env = workload_aware(env_name)
    run = TeamRun(team, "svc", f"teams/{team}/svc.yaml", parse_run(env, team, "svc", data))
    return render_environment(env, team_runs=[run]).files[f"teams/{team}/svc.yaml"]


def test_shared_devices_are_claimed_once_per_pod_group_and_consumed_by_its_pods() -> None:
    objects = _render_run("prod-example", "llm-research", SHARED_GPU_SERVICE)
    template = _one(objects, "Workload")["spec"]["podGroupTemplates"][0]
    shared = template["resourceClaims"]
    assert [c["name"] for c in shared] == ["shared"]
    group = _one(objects, "PodGroup")
    assert group["spec"]["resourceClaims"] == shared
    claim = next(o for o in objects if o["metadata"]["name"] == shared[0]["resourceClaimTemplateName"])
    assert claim["spec"]["spec"]["devices"]["requests"][0]["exactly"] == {
        "count": 1,
        "deviceClassName": "hopper-or-newer.gpu-platform.io",
    }
    pods = member_pods(objects)  # the StatefulSets' Pods
    assert len(pods) == 3
    for pod in pods:
        assert pod["spec"]["resourceClaims"] == shared
        assert pod["spec"]["containers"][0]["resources"]["claims"] == [{"name": "shared"}]
        assert pod["spec"]["tolerations"]  # they land on GPU nodes, so they tolerate GPU taints
    for obj in objects:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_fails_run_shared_devices_without_the_gate(dev_data: dict[str, Any]) -> None:
    from tests.conftest import env_from

    env = env_from(workload_aware_data(dev_data, control_plane=["GenericWorkload"], kubelet=()))
    with pytest.raises(ConfigError) as caught:
        parse_run(env, "vision", "run", BASE_RUN | {"shared_devices": {"device_class": "mig-1g-10gb"}})
    assert caught.value.line() == (
        "shared_devices: shared claims need the DRAWorkloadResourceClaims gate, which dev lacks (got 'mig-1g-10gb'); "
        "fix: drop shared_devices, or add the gate to feature_gates.control_plane"
    )


def test_fails_run_both_job_and_hierarchical() -> None:
    assert _fails_run(BASE_RUN | {"template": "pytorch", "job": True, "hierarchical": True}) == (
        "job: a Job gang is one flat PodGroup; it cannot also be hierarchical (got True); "
        "fix: set either job: true or hierarchical: true"
    )


def test_fallback_notes_min_replicas_instead_of_refusing_it() -> None:
    """Without GenericWorkload there is no gang minimum to get wrong: the setting is noted as not honoured."""
    from policy.environment.teams import unhonoured_settings

    env = load_environment(name="dev")
    run = parse_run(env, "vision", "run", BASE_RUN | {"min_replicas": 2, "elastic": True})
    (note,) = [u for u in unhonoured_settings(env, run) if u.field == "min_replicas"]
    assert note.value == 2
    assert note.reason == "without GenericWorkload there is no gang minimum: the fallback form starts Pods one by one"


def test_fails_elastic_flat_gang_that_could_start_without_its_coordinator() -> None:
    assert _fails_run(BASE_RUN | {"min_replicas": 2, "elastic": True}) == (
        "min_replicas: in one flat gang, 3 workers could start without the mpi coordinator (minCount counts pods, "
        "not roles) (got 2); fix: set hierarchical: true (needs the CompositePodGroup gate) so the coordinator has "
        "its own group, or drop min_replicas"
    )
