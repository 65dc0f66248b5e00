"""Gate consistency and static deadlock checks: every check fails with its exact message.

The named scenarios at the end are the product brief's unhappy paths.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from charts.render import render_checked, render_environment
from config.errors import ConfigError
from config.model import EnvironmentConfig
from config.platform import TeamRun
from policy.checks.capacity import check_capacity
from policy.checks.competition import check_competition
from policy.checks.device_classes import check_device_classes
from policy.checks.feature_gates import check_feature_gates
from policy.checks.gang_size import check_gang_size
from policy.checks.priority_tiers import check_priority_tiers
from policy.checks.references import check_references
from policy.checks.suite import run_checks
from policy.checks.tolerations import check_tolerations
from policy.environment.load import load_environment
from policy.environment.teams import parse_run
from policy.results import Check, Status
from tests.conftest import EXAMPLE_ENVIRONMENTS, env_from, shipped_render
from tests.helpers.environments import workload_aware, workload_aware_data

Obj = dict[str, Any]


def _objects(env: EnvironmentConfig, **runs: dict[str, Any]) -> list[Obj]:
    """Render ``env`` with only the given runs (team ``llm-research``, granted every tier but critical)."""
    team_runs = [
        TeamRun("llm-research", name, f"teams/llm-research/{name}.yaml", parse_run(env, "llm-research", name, data))
        for name, data in runs.items()
    ]
    return render_environment(env, team_runs=team_runs).all_objects()


def _find(objects: list[Obj], kind: str) -> Obj:
    return next(o for o in objects if o["kind"] == kind)


def _failures(checks: list[Check]) -> list[tuple[str, str, str]]:
    return [(c.subject, c.detail, c.fix) for c in checks if c.status is Status.FAIL]


H100_RUN = {
    "template": "pytorch",
    "replicas": 2,
    "gpus_per_replica": 8,
    "device_class": "h100-80gb",
    "cpu_per_replica": 180,
    "memory_gib_per_replica": 1800,
    "image": "example/trainer:1",
    "command": ["train.py"],
    "tier": "deadline",
}


@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_shipped_environments_pass_every_check_without_warnings(name: str) -> None:
    env = load_environment(name=name)
    checks = run_checks(env, shipped_render(env.name).all_objects())
    assert [c for c in checks if c.status is not Status.OK] == []


# --- gate consistency --------------------------------------------------------------------------------


def test_fails_field_whose_gate_is_off() -> None:
    env = workload_aware("prod-example")
    objects = _objects(env, big=H100_RUN | {"hierarchical": True})
    dev = workload_aware("dev")  # no CompositePodGroup, no PodGroupPreemptionPolicy
    found = _failures(check_feature_gates(dev, objects))
    workload = _find(objects, "Workload")["metadata"]["name"]
    fix = "add {gate} to feature_gates.control_plane (if the cluster provides it) or stop using the field"
    assert (
        f"Workload/team-llm-research/{workload}",
        "field spec.compositePodGroupTemplates needs feature gate CompositePodGroup, which the cluster lacks",
        fix.format(gate="CompositePodGroup"),
    ) in found
    assert (
        f"CompositePodGroup/team-llm-research/{workload}-gang",
        "field spec needs feature gate CompositePodGroup, which the cluster lacks",
        fix.format(gate="CompositePodGroup"),
    ) in found
    assert (
        f"PodGroup/team-llm-research/{workload}-workers",
        "field spec.preemptionPolicy needs feature gate PodGroupPreemptionPolicy, which the cluster lacks",
        fix.format(gate="PodGroupPreemptionPolicy"),
    ) in found


def test_fails_topology_without_its_gate() -> None:
    objects = _objects(workload_aware("dev"), run=H100_RUN)
    data = workload_aware("dev").model_dump(mode="json")
    workload_aware_data(data, control_plane=["GenericWorkload", "DRAWorkloadResourceClaims", "WorkloadWithJob"])
    found = _failures(check_feature_gates(env_from(data), objects))
    assert {d for _, d, _ in found} == {
        "field spec.podGroupTemplates[].schedulingConstraints.topology needs feature gate "
        "TopologyAwareWorkloadScheduling, which the cluster lacks",
        "field spec.schedulingConstraints.topology needs feature gate TopologyAwareWorkloadScheduling, "
        "which the cluster lacks",
    }


def test_renderer_only_uses_fields_the_environment_has() -> None:
    data = workload_aware("dev").model_dump(mode="json")
    workload_aware_data(data, control_plane=["GenericWorkload"], kubelet=())
    env = env_from(data)
    objects = _objects(env, run=H100_RUN | {"hierarchical": True})  # falls back to the flat form, with a note
    assert check_feature_gates(env, objects) == []
    with pytest.raises(ConfigError, match=r"^job: dev cannot honour it: the WorkloadWithJob gate is off"):
        _objects(env, job=H100_RUN | {"job": True})
    assert {o["kind"] for o in objects} >= {"Workload", "PodGroup", "Pod"}
    assert "Job" not in {o["kind"] for o in objects} and "CompositePodGroup" not in {o["kind"] for o in objects}
    assert "schedulingConstraints" not in _find(objects, "Workload")["spec"]["podGroupTemplates"][0]


def test_native_objects_fail_on_a_cluster_without_generic_workload() -> None:
    """What the twin renders is what shipped dev (EKS 1.37 as AWS runs it) must never be given."""
    objects = _objects(workload_aware("dev"), run=H100_RUN)
    found = _failures(check_feature_gates(load_environment(name="dev"), objects))
    workload = _find(objects, "Workload")["metadata"]["name"]
    fix = "add GenericWorkload to feature_gates.control_plane (if the cluster provides it) or stop using the field"
    assert (
        f"Workload/team-llm-research/{workload}",
        "field spec needs feature gate GenericWorkload, which the cluster lacks",
        fix,
    ) in found
    assert (
        f"Pod/team-llm-research/{workload}-worker-0",
        "field spec.schedulingGroup needs feature gate GenericWorkload, which the cluster lacks",
        fix,
    ) in found


def test_fallback_run_passes_every_check_with_nothing_gated() -> None:
    env = load_environment(name="dev")
    objects = _objects(env, run=H100_RUN)
    assert not {o["kind"] for o in objects} & {"Workload", "PodGroup", "CompositePodGroup"}
    assert [c for c in run_checks(env, objects) if c.status is not Status.OK] == []
    assert check_feature_gates(env, objects) == []


# --- references --------------------------------------------------------------------------------------


def test_fails_pod_without_its_pod_group() -> None:
    objects = [o for o in _objects(workload_aware("dev"), run=H100_RUN) if o["kind"] != "PodGroup"]
    found = _failures(check_references(workload_aware("dev"), objects))
    pod = _find(objects, "Pod")
    group = pod["spec"]["schedulingGroup"]["podGroupName"]
    assert found[0] == (
        f"Pod/team-llm-research/{pod['metadata']['name']}",
        f"spec.schedulingGroup.podGroupName {group!r} names no PodGroup in its namespace; the Pod would stay Pending",
        f"create PodGroup {group} in team-llm-research or fix the name",
    )


def test_fails_pod_group_without_its_workload_or_template() -> None:
    objects = _objects(workload_aware("dev"), run=H100_RUN)
    group = _find(objects, "PodGroup")
    group["spec"]["workloadRef"]["templateName"] = "trainers"
    found = _failures(check_references(workload_aware("dev"), objects))
    assert found == [
        (
            f"PodGroup/team-llm-research/{group['metadata']['name']}",
            "spec.workloadRef.templateName 'trainers' is not a template of "
            f"{group['spec']['workloadRef']['workloadName']}",
            "use one of ['gang']",
        )
    ]
    without = [o for o in objects if o["kind"] != "Workload"]
    (_, detail, _), *_ = _failures(check_references(workload_aware("dev"), without))
    assert detail.startswith("spec.workloadRef names Workload 'run-") and detail.endswith("which does not exist")


# --- gang size ---------------------------------------------------------------------------------------


def test_fails_min_count_above_replicas() -> None:
    objects = _objects(workload_aware("dev"), run=H100_RUN)
    group = _find(objects, "PodGroup")
    group["spec"]["schedulingPolicy"]["gang"]["minCount"] = 3
    assert _failures(check_gang_size(workload_aware("dev"), objects)) == [
        (
            f"PodGroup/team-llm-research/{group['metadata']['name']}",
            "gang minCount 3 exceeds the 2 pods that join the group; it can never start",
            "lower minCount or add pods",
        )
    ]


def test_fails_elastic_gang_without_acknowledgement() -> None:
    objects = _objects(workload_aware("dev"), run=H100_RUN | {"replicas": 2})
    group = _find(objects, "PodGroup")
    group["spec"]["schedulingPolicy"]["gang"]["minCount"] = 1
    assert _failures(check_gang_size(workload_aware("dev"), objects)) == [
        (
            f"PodGroup/team-llm-research/{group['metadata']['name']}",
            "gang minCount 1 is below its 2 pods without an elastic acknowledgement",
            "set elastic: true in the run, or annotate the Workload gpu-platform.io/elastic: 'true'",
        )
    ]


def test_elastic_gang_with_acknowledgement_passes() -> None:
    env = workload_aware("prod-example")
    elastic = {"replicas": 4, "min_replicas": 2, "elastic": True, "hierarchical": True}
    objects = _objects(env, run=H100_RUN | elastic)
    assert check_gang_size(env, objects) == []
    workers = next(o for o in objects if o["kind"] == "PodGroup" and o["metadata"]["name"].endswith("-workers"))
    assert workers["spec"]["schedulingPolicy"] == {"gang": {"minCount": 1}}


def test_fails_job_min_count_above_parallelism() -> None:
    env = workload_aware("dev")
    objects = _objects(env, run=H100_RUN | {"job": True, "tier": "standard"})
    job = _find(objects, "Job")
    job["spec"]["scheduling"]["schedulingPolicy"]["gang"]["minCount"] = 4
    assert _failures(check_gang_size(env, objects)) == [
        (
            f"Job/team-llm-research/{job['metadata']['name']}",
            "gang minCount 4 exceeds parallelism 2; the Job can never start",
            "set minCount <= parallelism",
        )
    ]


# --- device classes ----------------------------------------------------------------------------------


def test_fails_device_class_no_pool_provides() -> None:
    data = load_environment(name="dev").model_dump(mode="json")
    data["platform"]["device_classes"].append("b200")
    env = env_from(data)
    objects = _objects(env, run=H100_RUN | {"device_class": "b200"})
    claim = _find(objects, "ResourceClaimTemplate")
    assert _failures(check_device_classes(env, objects))[0] == (
        f"ResourceClaimTemplate/team-llm-research/{claim['metadata']['name']}",
        "DeviceClass b200.gpu-platform.io selects GPU models (B200) that no DRA pool of dev provides; "
        "claims would never allocate",
        "add a DRA GPU pool with a matching instance type or use another DeviceClass",
    )


def test_fails_driver_device_class() -> None:
    env = load_environment(name="dev")
    objects = _objects(env, run=H100_RUN)
    claim = _find(objects, "ResourceClaimTemplate")
    claim["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = "gpu.nvidia.com"
    assert _failures(check_device_classes(env, objects)) == [
        (
            f"ResourceClaimTemplate/team-llm-research/{claim['metadata']['name']}",
            "uses the driver's own class 'gpu.nvidia.com'",
            "request a platform DeviceClass (<shape>.gpu-platform.io)",
        )
    ]


def test_device_plugin_pools_do_not_serve_device_classes() -> None:
    env = load_environment(name="prod-example")  # l40s comes only from a device-plugin pool there
    objects = _objects(
        env,
        run=H100_RUN
        | {"device_class": "l40s", "cpu_per_replica": 40, "memory_gib_per_replica": 300, "gpus_per_replica": 4},
    )
    found = _failures(check_device_classes(env, objects))
    assert len(found) == 2  # the coordinator's and the workers' claim templates
    assert all("selects GPU models (L40S) that no DRA pool of prod-example provides" in f[1] for f in found)


# --- capacity ----------------------------------------------------------------------------------------


def test_fails_gang_larger_than_any_zone() -> None:
    env = workload_aware("dev")
    objects = _objects(env, run=H100_RUN | {"replicas": 3})
    group = _find(objects, "PodGroup")
    assert _failures(check_capacity(env, objects)) == [
        (
            f"PodGroup/team-llm-research/{group['metadata']['name']}",
            "gang needs 3 pods of 8 x h100-80gb.gpu-platform.io, 180 CPU, 1800Gi in one zone; "
            "the largest zone (us-west-2a) holds at most 2 (pool h100)",
            "raise max_size of pool h100 in that zone, or lower replicas",
        )
    ]


def test_pod_larger_than_any_node_never_fits() -> None:
    env = load_environment(name="dev")
    objects = _objects(env, run=H100_RUN | {"cpu_per_replica": 192})
    (found,) = _failures(check_capacity(env, objects))
    assert found[1:] == (  # not "raise max_size": no node of any size the pool has can hold one Pod
        "no node can hold one Pod of 8 x h100-80gb.gpu-platform.io, 192 CPU, 1800Gi: no instance type of pool h100 "
        "(p5.48xlarge) has room for it",
        "use a larger instance type in pool h100, or lower the per-replica request (gpus_per_replica, "
        "cpu_per_replica, memory_gib_per_replica)",
    )


def test_warns_when_elastic_replicas_exceed_the_domain() -> None:
    env = workload_aware("prod-example")
    elastic = {"replicas": 21, "min_replicas": 11, "elastic": True, "hierarchical": True}
    objects = _objects(env, run=H100_RUN | elastic)
    (warning,) = [c for c in check_capacity(env, objects) if c.status is Status.WARN]
    assert warning.subject.startswith("CompositePodGroup/team-llm-research/run-")
    assert warning.detail == (
        "all 21 pods of 8 x h100-80gb.gpu-platform.io, 180 CPU, 1800Gi do not fit in one zone "
        "(the largest zone (us-east-1a) holds at most 16); only the gang minimum 11 does"
    )


def test_mig_slices_count_per_gpu() -> None:
    env = load_environment(name="prod-example")
    run = {
        "template": "spark",
        "replicas": 56,
        "gpus_per_replica": 1,
        "device_class": "mig-1g-10gb",
        "cpu_per_replica": 3,
        "memory_gib_per_replica": 30,
        "image": "example/spark:1",
    }
    assert check_capacity(env, _objects(env, sweep=run)) == []  # 7 slices x 8 GPUs on one p5 node


# --- tolerations and tiers ---------------------------------------------------------------------------


def test_fails_gpu_pod_without_tolerations() -> None:
    env = load_environment(name="dev")
    objects = _objects(env, run=H100_RUN)
    pod = _find(objects, "Pod")
    pod["spec"]["tolerations"] = []
    assert _failures(check_tolerations(env, objects))[0] == (
        f"Pod/team-llm-research/{pod['metadata']['name']}",
        "needs h100-80gb.gpu-platform.io but tolerates the taints of no pool that serves it "
        "(nvidia.com/gpu=true:NoSchedule)",
        "add tolerations for those taints",
    )


def test_fails_tier_not_granted_to_namespace() -> None:
    env = workload_aware("dev")
    objects = _objects(env, run=H100_RUN)
    for obj in objects:
        obj["metadata"]["namespace"] = "team-vision"
    workload = _find(objects, "Workload")
    found = _failures(check_priority_tiers(env, objects))
    assert (
        f"Workload/team-vision/{workload['metadata']['name']}",
        "tier deadline is not granted to namespace team-vision",
        "use a granted tier or grant it under platform.teams",
    ) in found


def test_fails_unknown_priority_class() -> None:
    env = load_environment(name="dev")
    objects = _objects(env, run=H100_RUN)
    pod = _find(objects, "Pod")
    pod["spec"]["priorityClassName"] = "system-node-critical"
    assert _failures(check_priority_tiers(env, objects)) == [
        (
            f"Pod/team-llm-research/{pod['metadata']['name']}",
            "priorityClassName 'system-node-critical' is not a platform tier",
            "use one of gpu-critical, gpu-deadline, gpu-standard, gpu-opportunistic",
        )
    ]


# --- the product brief's unhappy paths ---------------------------------------------------------------


def test_scenario_missing_composite_parent() -> None:
    env = workload_aware("prod-example")
    objects = [o for o in _objects(env, run=H100_RUN | {"hierarchical": True}) if o["kind"] != "CompositePodGroup"]
    details = [d for _, d, _ in _failures(run_checks(env, objects))]
    parent = next(o for o in objects if o["kind"] == "PodGroup")["spec"]["parentCompositePodGroupName"]
    assert (
        details
        == [
            f"spec.parentCompositePodGroupName {parent!r} names no CompositePodGroup in its namespace; "
            "the group would never schedule",
        ]
        * 2
    )


def test_scenario_zone_exhausted_by_reduced_pool_max() -> None:
    data = workload_aware("dev").model_dump(mode="json")
    data["gpu_pools"][0].update(min_size=1, max_size=1)  # one p5
    env = env_from(data)
    objects = _objects(env, run=H100_RUN)
    (found,) = _failures(run_checks(env, objects))
    assert found[1] == (
        "gang needs 2 pods of 8 x h100-80gb.gpu-platform.io, 180 CPU, 1800Gi in one zone; "
        "the largest zone (us-west-2a) holds at most 1 (pool h100)"
    )
    # The synth path refuses the environment on the pool that shrank, naming the run whose gang no longer fits.
    refusal = (
        r"^environments/dev\.yaml: gpu_pools\[0\]\.max_size: the gang of teams/llm-research/finetune-8b\.yaml "
        r"\(Job/team-llm-research/.*\(got 1\); fix: raise max_size of pool h100 in that zone, or lower replicas "
        r"in teams/llm-research/finetune-8b\.yaml \(full report: make check ENV=dev\)$"
    )
    with pytest.raises(ConfigError, match=refusal):
        render_checked(env)


def test_scenario_tainted_devices_without_tolerations() -> None:
    data = load_environment(name="dev").model_dump(mode="json")
    data["gpu_pools"][0]["taints"].append(
        {"key": "gpu-platform.io/maintenance", "value": "true", "effect": "NoExecute"}
    )
    env = env_from(data)
    objects = _objects(load_environment(name="dev"), run=H100_RUN)  # rendered before the taint existed
    found = _failures(check_tolerations(env, objects))
    assert found and found[0][1] == (
        "needs h100-80gb.gpu-platform.io but tolerates the taints of no pool that serves it "
        "(gpu-platform.io/maintenance=true:NoExecute, nvidia.com/gpu=true:NoSchedule)"
    )
    assert check_tolerations(env, _objects(env, run=H100_RUN)) == []  # re-rendering adds the toleration


def test_scenario_competing_high_priority_gangs() -> None:
    env = workload_aware("dev")
    objects = _objects(env, first=H100_RUN, second=H100_RUN)
    assert _failures(run_checks(env, objects)) == []
    (warning,) = [c for c in check_competition(env, objects) if c.status is Status.WARN]
    assert warning.subject == "h100-80gb.gpu-platform.io"
    assert warning.detail.startswith("high-priority gangs need 4 pods together but one zone holds 2: PodGroup/")


# --- the command ---------------------------------------------------------------------------------------


def test_check_command_json_and_exit_codes(tmp_path: Any) -> None:
    result = subprocess.run([sys.executable, "-m", "cli.check", "--json"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["environment"] == "dev"
    assert {c["check"] for c in report["checks"]} == {
        "feature-gates",
        "references",
        "gang-size",
        "device-classes",
        "capacity",
        "tolerations",
        "priority-tiers",
        "competition",
    }
    data = copy.deepcopy(load_environment(name="dev").model_dump(mode="json"))
    data["gpu_pools"][0].update(min_size=1, max_size=1)
    bad = tmp_path / "small.yaml"
    import yaml

    bad.write_text(yaml.safe_dump(data))
    result = subprocess.run(
        [sys.executable, "-m", "cli.check", "--config", str(bad)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "FAIL" in result.stdout and "fix: raise max_size of pool h100 in that zone" in result.stdout


def test_fails_shared_claim_whose_group_cannot_fit_one_node() -> None:
    env = workload_aware("prod-example")
    service = {
        "template": "service",
        "replicas": 31,
        "readiness_command": ["true"],
        "gpus_per_replica": 0,
        "device_class": "hopper-or-newer",
        "cpu_per_replica": 8,
        "memory_gib_per_replica": 32,
        "image": "example/embedder:1",
        "shared_devices": {"device_class": "hopper-or-newer"},
    }
    assert check_capacity(env, _objects(env, svc=service | {"replicas": 2})) == []
    objects = _objects(env, svc=service)
    group = _find(objects, "PodGroup")
    assert _failures(check_capacity(env, objects)) == [
        (
            f"PodGroup/team-llm-research/{group['metadata']['name']}",
            "its PodGroup-level claim on hopper-or-newer.gpu-platform.io pins all 31 pods of the group to one node, "
            "but at most 23 of them fit on a node that holds it",
            "drop shared_devices, or make the group fit one node",
        )
    ]


def test_fails_shared_mig_slice_for_pods_with_whole_gpus() -> None:
    env = workload_aware("prod-example")  # MIG and whole-GPU pools are never the same nodes
    run = H100_RUN | {"tier": "standard", "shared_devices": {"device_class": "mig-1g-10gb"}}
    (found,) = _failures(check_capacity(env, _objects(env, run=run)))
    assert found[1].endswith(
        "pins all 2 pods of the group to one node, but at most 0 of them fit on a node that holds it"
    )


def test_fails_composite_min_group_count_above_children() -> None:
    env = workload_aware("prod-example")
    objects = _objects(env, run=H100_RUN | {"hierarchical": True})
    composite = _find(objects, "CompositePodGroup")
    composite["spec"]["schedulingPolicy"]["gang"]["minGroupCount"] = 3
    assert _failures(check_gang_size(env, objects)) == [
        (
            f"CompositePodGroup/team-llm-research/{composite['metadata']['name']}",
            "gang minGroupCount 3 exceeds its 2 child groups; it can never start",
            "lower minGroupCount or add child groups",
        )
    ]


def test_cpu_only_members_count_towards_the_gang_minimum_first() -> None:
    env = workload_aware("dev")
    mpi = {
        "template": "mpi",
        "replicas": 2,
        "gpus_per_replica": 8,
        "device_class": "h100-80gb",
        "cpu_per_replica": 180,
        "memory_gib_per_replica": 1800,
        "image": "example/mpi:1",
        "command": ["python", "train.py"],
    }
    objects = _objects(env, run=mpi)  # launcher + 2 workers: minCount 3, but only 2 need GPUs
    assert check_capacity(env, objects) == []
