"""The workload-aware configuration: rendered objects in native form, admission, gangs, ``make verify``.

One control plane for this module (GenericWorkload, TopologyAwareWorkloadScheduling, WorkloadWithJob,
CompositePodGroup, DRAWorkloadResourceClaims, PodGroupPreemptionPolicy), fake nodes.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from control_plane.configs import for_declared_gates
from control_plane.run import ControlPlane
from tests.conftest import EXAMPLE_ENVIRONMENTS, REFERENCE, require_reference
from tests.control_plane.apply import CRD_KINDS, apply_all, check_applied, delete_all, needs_crd
from tests.control_plane.cluster import ApiError, Cluster, Obj, cleanup, wait_until
from tests.control_plane.conftest import PlaneFor
from tests.control_plane.driver import gate_rows, prepare_for_verify, run_verify
from tests.control_plane.gangs import (
    NAMESPACE,
    Gang,
    Outcome,
    Scenario,
    checked,
    run_on_scheduler,
    simulated,
)
from tests.helpers.environments import workload_aware as workload_aware_env
from tests.helpers.environments import workload_aware_render
from tests.policy.gangs import test_admission as kit

WORKLOAD_ENVIRONMENTS = list(EXAMPLE_ENVIRONMENTS)
"""Every shipped environment, as its workload-aware twin (``tests/helpers/environments.py``): the shipped
ones claim eks."""


def twin_plane(plane_for: PlaneFor, env_name: str) -> Cluster:
    """The configuration the twin of ``env_name`` claims (its declared gates: prod-example's adds
    PodGroupPreemptionPolicy)."""
    return Cluster(plane_for(for_declared_gates(workload_aware_env(env_name).feature_gates.control_plane)).kubeconfig)


def test_workload_apis_are_served(workload_aware: Cluster) -> None:
    groups = {
        g["name"]: [v["version"] for v in g["versions"]] for g in (workload_aware.get_path("/apis") or {})["groups"]
    }
    assert {"v1", "v1beta1", "v1alpha3"} <= set(groups["scheduling.k8s.io"])


@pytest.mark.parametrize("env_name", WORKLOAD_ENVIRONMENTS)
def test_every_rendered_object_of_a_workload_aware_twin_applies_strictly_and_reads_back(
    plane_for: PlaneFor, env_name: str
) -> None:
    """What ``dist/<env>/`` would hold on a control plane serving the gates, in native form (Workloads,
    PodGroups, CompositePodGroups where declared, Job ``spec.scheduling``), on the configuration it claims."""
    objects = [o for o in workload_aware_render(env_name).all_objects() if not needs_crd(o)]
    kinds = {o["kind"] for o in objects}
    if "Pod" in kinds:  # an environment with team runs (karpenter-example has none)
        assert {"Workload", "PodGroup"} <= kinds
    if "CompositePodGroup" in workload_aware_env(env_name).feature_gates.control_plane:
        assert "CompositePodGroup" in kinds
    check_applied(twin_plane(plane_for, env_name), objects)


@pytest.mark.reference
@pytest.mark.parametrize("env_name", ["prod-example"])
def test_objects_of_reference_crds_of_a_twin_apply_strictly_and_read_back(plane_for: PlaneFor, env_name: str) -> None:
    everything = workload_aware_render(env_name).all_objects()
    objects = [o for o in everything if needs_crd(o) or o["kind"] == "Namespace"]
    for key in {(o["apiVersion"], o["kind"]) for o in objects if needs_crd(o)}:
        require_reference(REFERENCE / CRD_KINDS[key])
    check_applied(twin_plane(plane_for, env_name), objects, reference=REFERENCE)


# --- admission: every policy, decided by the real API server -------------------------------------------


def _dry_run_create(cluster: Cluster, obj: Obj) -> str | None:
    """``None`` when the server admits ``obj`` (dry run: nothing stored), else its refusal."""
    try:
        cluster.request("POST", cluster.path(obj, name=False), body=obj, query={"dryRun": "All"})
    except ApiError as error:
        return error.message
    return None


def _gang_job(min_count: int, parallelism: int) -> Obj:
    return kit._gang_job(min_count, parallelism)


def _unset_tier_job() -> Obj:
    job = kit._first(kit.FINETUNE, "Job")
    del job["spec"]["template"]["spec"]["priorityClassName"]
    return job


def _orphan_group() -> Obj:
    group = kit._first(kit.PRETRAIN, "PodGroup")
    del group["spec"]["workloadRef"]
    return group


def _composite() -> Obj:
    return kit._in(kit._first(kit.HIERARCHICAL, "CompositePodGroup"), "team-llm-research")


ADMISSION_CASES: dict[str, tuple[Obj, Obj]] = {
    # policy: (a compliant object, a violating one)
    "gpu-platform-tier-grants-pods": (
        kit._first(kit.PRETRAIN, "Pod"),
        kit._in(kit._first(kit.PRETRAIN, "Pod"), "team-vision"),
    ),
    "gpu-platform-tier-grants-workloads": (
        kit._first(kit.PRETRAIN, "Workload"),
        kit._in(kit._first(kit.PRETRAIN, "Workload"), "team-vision"),
    ),
    "gpu-platform-tier-grants-podgroups": (
        kit._first(kit.PRETRAIN, "PodGroup"),
        kit._in(kit._first(kit.PRETRAIN, "PodGroup"), "team-vision"),
    ),
    "gpu-platform-tier-grants-compositepodgroups": (_composite(), kit._in(_composite(), "team-vision")),
    "gpu-platform-job-gang-min-count": (_gang_job(2, 2), _gang_job(3, 2)),
    "gpu-platform-team-gang-jobs": (kit._first(kit.FINETUNE, "Job"), _unset_tier_job()),
    "gpu-platform-team-podgroups": (kit._first(kit.PRETRAIN, "PodGroup"), _orphan_group()),
    "gpu-platform-gang-gpu-pods": (kit._first(kit.PRETRAIN, "Pod"), kit._loose_pod()),
    "gpu-platform-device-classes-resourceclaimtemplates": (
        kit._first(kit.PRETRAIN, "ResourceClaimTemplate"),
        kit._claim_template(kit._exactly("gpus", "gpu.nvidia.com")),
    ),
    "gpu-platform-device-classes-resourceclaims": (
        kit._claim(kit._exactly("gpus", "l4.gpu-platform.io")),
        kit._claim(kit._exactly("gpus", "gpu.nvidia.com")),
    ),
}


def _critical_job() -> Obj:
    job = kit._first(kit.FINETUNE, "Job")
    job["spec"]["template"]["spec"]["priorityClassName"] = "gpu-critical"
    return job


ADMISSION_CASES["gpu-platform-tier-grants-jobs"] = (kit._first(kit.FINETUNE, "Job"), _critical_job())
ADMISSION_CASES = dict(sorted(ADMISSION_CASES.items()))


@pytest.fixture(scope="module")
def dev_policies(workload_aware: Cluster) -> Any:
    """dev's Namespaces, PriorityClasses, DeviceClasses, policies and bindings, applied; removed afterwards."""
    objects = [
        o
        for name in ("namespaces.yaml", "priority-classes.yaml", "device-classes.yaml", "admission-policies.yaml")
        for o in dist_objects_file(name)
    ]
    applied = apply_all(workload_aware, objects)
    assert applied.refused == {} and applied.dropped == {}
    yield {o["metadata"]["name"]: o for o in objects if o["kind"] == "ValidatingAdmissionPolicy"}
    delete_all(workload_aware, applied.objects)


def dist_objects_file(name: str) -> list[Obj]:
    """``name`` of dev's workload-aware twin (shipped dev renders no gang policy: it has no Workload API)."""
    return workload_aware_render("dev").files[name]


def test_every_rendered_policy_has_a_case() -> None:
    assert set(ADMISSION_CASES) == kit.POLICY_NAMES


REFUSED_BEFORE_THE_POLICY = {
    "gpu-platform-job-gang-min-count": "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 3: "
    "must not be greater than parallelism (2)",
}
"""Policies whose violation the 1.37 API server's own validation refuses first (the policy never runs)."""


@pytest.mark.parametrize("policy", sorted(ADMISSION_CASES))
def test_the_real_api_server_denies_with_the_policys_message_and_admits_the_compliant(
    workload_aware: Cluster, dev_policies: dict[str, Obj], policy: str
) -> None:
    compliant, violating = (copy.deepcopy(o) for o in ADMISSION_CASES[policy])
    expected = kit._review(policy, violating).failures
    assert expected, "the kit's own engine admits the violating case"
    # A new policy takes effect once the API server's policy informer has it: poll the violating case.
    refusal = wait_until(lambda: _dry_run_create(workload_aware, violating), timeout_s=15)
    assert refusal is not None, f"{policy}: the API server admitted the violating object"
    if policy in REFUSED_BEFORE_THE_POLICY:
        assert REFUSED_BEFORE_THE_POLICY[policy] in refusal
    else:
        assert f"ValidatingAdmissionPolicy '{policy}'" in refusal
        for message in expected:
            assert message in refusal
    assert _dry_run_create(workload_aware, compliant) is None


# --- gangs: the real scheduler, the simulator and make check -------------------------------------------

SCENARIOS = (
    Scenario("partial", "room for minCount - 1 (2 nodes, gang of 3)", (1, 1), Gang("partial", 3)),
    Scenario("fit", "room for minCount (2 nodes, gang of 2)", (1, 1), Gang("fit", 2)),
    Scenario("zones", "two zones, zone-topology gang of 2 (2 + 2 nodes)", (2, 2), Gang("zones", 2, zone=True)),
    Scenario(
        "bigzone", "gang larger than a zone (zone topology, 3 of 2 + 2 nodes)", (2, 2), Gang("bigzone", 3, zone=True)
    ),
    Scenario(
        "elastic", "partial fit above minCount (2 nodes, 3 pods, minCount 2)", (1, 1), Gang("elastic", 3, min_count=2)
    ),
    Scenario(
        "preempt",
        "deadline gang vs a running standard gang (2 nodes, 2 + 2)",
        (1, 1),
        Gang("deadline", 2, tier="deadline"),
        running=(Gang("standard", 2),),
    ),
    Scenario(
        "preemptzone",
        "zone-topology deadline gang vs a running standard gang (one zone, 2 + 2)",
        (2, 0),
        Gang("deadline-zone", 2, tier="deadline", zone=True),
        running=(Gang("standard-zone", 2, zone=True),),
    ),
)

AGREEMENT: dict[str, tuple[Outcome, Outcome, str]] = {
    # scenario: (real 1.37 scheduler, simulator, make check)
    "partial": (Outcome.NONE_BOUND, Outcome.NONE_BOUND, "fail"),
    "fit": (Outcome.ALL_BOUND, Outcome.ALL_BOUND, "ok"),
    "zones": (Outcome.ALL_BOUND, Outcome.ALL_BOUND, "ok"),
    "bigzone": (Outcome.NONE_BOUND, Outcome.NONE_BOUND, "fail"),
    "elastic": (Outcome.MINIMUM_BOUND, Outcome.MINIMUM_BOUND, "warn"),
    # Disagreement, the scheduler is the truth: 1.37's pod-group preemption (PodGroupPostFilter,
    # DefaultPreemption) finds "0/2 nodes are available: 2 cannot allocate all claims" with the running
    # gang's devices counted as still allocated, so a DRA gang never preempts a DRA gang; the simulator's
    # can_preempt rule says it does (docs/control-plane.md, limits).
    "preempt": (Outcome.WAITS, Outcome.PREEMPTED_AND_BOUND, "ok"),
    "preemptzone": (Outcome.WAITS, Outcome.WAITS, "ok"),
}
"""docs/control-plane.md's agreement table, native rows, as the tests find them."""


TIER_GRANTS = {"gpu-platform.io/tier-deadline": "allowed", "gpu-platform.io/tier-critical": "allowed"}


@pytest.fixture(scope="module")
def gang_cluster(workload_aware: Cluster) -> Any:
    objects = [
        # granted the scarce tiers, as a team namespace would be (the admission tests' policies may be in force)
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE, "labels": TIER_GRANTS}},
        *dist_objects_file("priority-classes.yaml"),
        *[o for o in dist_objects_file("device-classes.yaml") if o["metadata"]["name"] == "h100-80gb.gpu-platform.io"],
    ]
    applied = apply_all(workload_aware, objects)
    assert applied.refused == {}
    yield workload_aware
    delete_all(workload_aware, applied.objects)


OBSERVED: dict[str, tuple[str, str, str]] = {}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_gang_scenarios_on_the_real_scheduler_the_simulator_and_check(
    gang_cluster: Cluster, scenario: Scenario
) -> None:
    observed = run_on_scheduler(gang_cluster, scenario)
    row = (observed.outcome, simulated(scenario), checked(scenario))
    OBSERVED[scenario.name] = tuple(str(v) for v in row)  # type: ignore[assignment]
    print(f"{scenario.title}: scheduler {row[0]}, simulator {row[1]}, check {row[2]}; zones {observed.zones}")
    if scenario.arriving.zone and observed.zones:
        assert len(observed.zones) == 1, f"a zone-topology gang spread over {observed.zones}"
    assert row == AGREEMENT[scenario.name]


def test_a_broken_min_count_is_caught_by_the_real_scheduler(gang_cluster: Cluster) -> None:
    """minCount one above the gang's Pods: room for every Pod, yet the scheduler binds none."""
    broken = Scenario("brokenmin", "minCount 3 for 2 Pods on 2 free nodes", (1, 1), Gang("brokenmin", 2, min_count=3))
    assert run_on_scheduler(gang_cluster, broken).outcome is Outcome.NONE_BOUND


# --- make verify ----------------------------------------------------------------------------------------


def test_verify_reports_every_gate_present_in_the_workload_aware_configuration(
    workload_plane: ControlPlane, workload_aware: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make verify CONFIG=<dev's workload-aware twin>`` (``cli.live.verify.main``) against the workload-aware
    configuration, through a kubeconfig naming gpu-dev: every declared gate and the Workload API present."""
    created = prepare_for_verify(workload_aware)
    try:
        code = run_verify(workload_plane.kubeconfig, tmp_path, twin=True)
    finally:
        cleanup(workload_aware, created)
    out = capsys.readouterr().out
    print(out)
    assert code == 0, out
    rows = gate_rows(out)
    for gate in workload_aware_env("dev").feature_gates.control_plane:
        assert rows[f"gate {gate}"] == "OK", out
    assert rows["api scheduling.k8s.io/v1beta1"] == "OK", out
    assert set(rows.values()) == {"OK"}, out
    assert out.rstrip().endswith(f"{len(rows)} ok, 0 warn, 0 fail, 0 skip"), out
