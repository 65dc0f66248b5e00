"""Gang scenarios run three ways: the real 1.37 scheduler, ``make simulate``'s engine, ``make check``.

A gang is a rendered run's own objects (the ``ci`` environment's ``gang-smoke`` run: its Workload,
PodGroup, ResourceClaimTemplate and worker Pod), resized: ``pods`` workers, ``minCount`` of them, one
node's eight H100s each, with or without the zone topology constraint, on a tier. Nodes are fake
(two zones, eight H100s per node in an NVIDIA-shaped ResourceSlice).
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum

from tests.control_plane.cluster import ApiError, Cluster, Obj, add_node, cleanup, resource_slice, wait_until
from tests.control_plane.environments import DIST
from tests.control_plane.nvidia import gpu
from tests.helpers import yaml_files

NAMESPACE = "gangs"
ZONE_KEY = "topology.kubernetes.io/zone"
H100_CLASS = "h100-80gb.gpu-platform.io"
GPUS_PER_NODE = 8
SCENARIO_LABEL = "gpu-platform.io/scenario"


@dataclass(frozen=True)
class Gang:
    name: str
    pods: int
    min_count: int | None = None
    tier: str = "standard"
    zone: bool = False

    @property
    def minimum(self) -> int:
        return self.pods if self.min_count is None else self.min_count


class Outcome(StrEnum):
    ALL_BOUND = "all bind"
    MINIMUM_BOUND = "minCount bind, the rest wait"
    NONE_BOUND = "none binds"
    PREEMPTED_AND_BOUND = "preempts the running gang, binds"
    WAITS = "waits (no preemption)"
    SOME_BOUND = "some bind and hold their GPUs, the rest wait"


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    nodes_per_zone: tuple[int, int]
    arriving: Gang
    running: tuple[Gang, ...] = ()


@dataclass
class Observed:
    outcome: Outcome
    zones: set[str] = field(default_factory=set)
    victims_deleted: int = 0


def _template() -> list[Obj]:
    """The ``gang-smoke`` run in native form: rendered on ci's workload-aware twin (shipped ci has no Workload API)."""
    from tests.helpers.environments import workload_aware_run

    return workload_aware_run("ci", "platform-smoke", "gang-smoke")


def gang_objects(gang: Gang, scenario: str) -> list[Obj]:
    """The run's objects resized to ``gang``, in the namespace ``gangs``, kept to ``scenario``'s nodes."""
    source = _template()
    by_kind = {o["kind"]: o for o in source if o["kind"] != "Pod"}
    worker = next(
        o for o in source if o["kind"] == "Pod" and o["metadata"]["labels"]["gpu-platform.io/role"] == "worker"
    )
    workload, group = copy.deepcopy(by_kind["Workload"]), copy.deepcopy(by_kind["PodGroup"])
    template = copy.deepcopy(
        next(o for o in source if o["kind"] == "ResourceClaimTemplate" and "worker" in o["metadata"]["name"])
    )
    priority = f"gpu-{gang.tier}"
    for obj in (workload, group, template):
        obj["metadata"] = {"name": gang.name, "namespace": NAMESPACE, "labels": obj["metadata"]["labels"]}
    pg_template = workload["spec"]["podGroupTemplates"][0]
    for spec in (pg_template, group["spec"]):
        spec["schedulingPolicy"] = {"gang": {"minCount": gang.minimum}}
        spec["priorityClassName"] = priority
        if gang.zone:
            spec["schedulingConstraints"] = {"topology": [{"key": ZONE_KEY}]}
        else:
            spec.pop("schedulingConstraints", None)
    group["spec"]["workloadRef"] = {"workloadName": gang.name, "templateName": pg_template["name"]}
    request = template["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    request.update(count=GPUS_PER_NODE, deviceClassName=H100_CLASS)
    pods = []
    for index in range(gang.pods):
        pod = copy.deepcopy(worker)
        pod["metadata"] = {"name": f"{gang.name}-{index}", "namespace": NAMESPACE, "labels": {"gang": gang.name}}
        spec = pod["spec"]
        spec.pop("hostname", None)
        spec.pop("subdomain", None)
        spec["priorityClassName"] = priority
        spec["schedulingGroup"] = {"podGroupName": gang.name}
        spec["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": gang.name}]
        spec["nodeSelector"] = {SCENARIO_LABEL: scenario}
        pods.append(pod)
    return [workload, template, group, *pods]


def _fallback_template() -> list[Obj]:
    """The ``gang-smoke`` run in the fallback form, as shipped: ``dist/ci/`` (ci declares no Workload API gate)."""
    path = DIST / "ci" / "teams" / "platform-smoke" / "gang-smoke.yaml"
    return [d for d in yaml_files.load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]


def fallback_objects(gang: Gang, scenario: str) -> list[Obj]:
    """The fallback run's objects resized to ``gang``: its worker ResourceClaimTemplate (one node's eight H100s)
    and ``pods`` worker Pods, no PodGroup and no ``schedulingGroup``; with ``zone``, the run's required Pod
    affinity on the zone (its part-of label is the gang's name), else none."""
    source = _fallback_template()
    worker = next(
        o for o in source if o["kind"] == "Pod" and o["metadata"]["labels"]["gpu-platform.io/role"] == "worker"
    )
    assert "schedulingGroup" not in worker["spec"] and not [o for o in source if o["kind"] == "PodGroup"]
    template = copy.deepcopy(
        next(o for o in source if o["kind"] == "ResourceClaimTemplate" and "worker" in o["metadata"]["name"])
    )
    template["metadata"] = {"name": gang.name, "namespace": NAMESPACE, "labels": template["metadata"]["labels"]}
    request = template["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    request.update(count=GPUS_PER_NODE, deviceClassName=H100_CLASS)
    pods = []
    for index in range(gang.pods):
        pod = copy.deepcopy(worker)
        labels = {"gang": gang.name, PART_OF: gang.name, "gpu-platform.io/role": "worker"}
        pod["metadata"] = {"name": f"{gang.name}-{index}", "namespace": NAMESPACE, "labels": labels}
        spec = pod["spec"]
        spec.pop("hostname", None)
        spec.pop("subdomain", None)
        spec["priorityClassName"] = f"gpu-{gang.tier}"
        spec["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": gang.name}]
        spec["nodeSelector"] = {SCENARIO_LABEL: scenario}
        if gang.zone:
            (term,) = spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            assert term["topologyKey"] == ZONE_KEY
            term["labelSelector"]["matchLabels"] = {PART_OF: gang.name}
        else:
            spec.pop("affinity", None)
        pods.append(pod)
    return [template, *pods]


PART_OF = "app.kubernetes.io/part-of"


class FakeKubelet:
    """What a kubelet would do for the tests' Pods: finish terminating Pods (delete them at once)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.3):
            try:
                for pod in self.cluster.list("v1", "Pod"):
                    if pod["metadata"].get("deletionTimestamp"):
                        self.cluster.delete(pod | {"apiVersion": "v1", "kind": "Pod"})
            except ApiError:
                continue

    @contextmanager
    def running(self) -> Iterator[FakeKubelet]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(timeout=5)


def _pods(cluster: Cluster, gang: Gang) -> list[Obj]:
    return cluster.list("v1", "Pod", NAMESPACE, labelSelector=f"gang={gang.name}")


def _bound(cluster: Cluster, gang: Gang) -> list[Obj]:
    return [p for p in _pods(cluster, gang) if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")]


def _condition(cluster: Cluster, gang: Gang, type_: str) -> Obj | None:
    group = cluster.get_path(f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NAMESPACE}/podgroups/{gang.name}") or {}
    return next((c for c in group.get("status", {}).get("conditions", []) if c["type"] == type_), None)


def _unschedulable(cluster: Cluster, gang: Gang) -> bool:
    condition = _condition(cluster, gang, "PodGroupInitiallyScheduled")
    return condition is not None and condition["status"] == "False"


def nodes(scenario: Scenario) -> list[tuple[str, str]]:
    return [
        (f"{scenario.name}-{zone}-{i}", zone)
        for zone, count in zip(("zone-a", "zone-b"), scenario.nodes_per_zone, strict=True)
        for i in range(count)
    ]


def run_on_scheduler(cluster: Cluster, scenario: Scenario, *, fallback: bool = False) -> Observed:
    """Nodes, then the running gangs (each bound before the next), then the arriving gang; what happened.
    ``fallback``: the gangs in the fallback form (``fallback_objects``), judged Pod by Pod."""
    make_objects = fallback_objects if fallback else gang_objects
    created: list[Obj] = []
    with FakeKubelet(cluster).running():
        try:
            for name, zone in nodes(scenario):
                add_node(cluster, name, labels={ZONE_KEY: zone, SCENARIO_LABEL: scenario.name})
                created.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
                slice_ = resource_slice(name, [gpu(i, "h100") for i in range(GPUS_PER_NODE)])
                cluster.apply(slice_)
                created.append(slice_)
            for gang in scenario.running:
                objects = make_objects(gang, scenario.name)
                created += objects
                for obj in objects:
                    cluster.create(obj)
                assert wait_until(lambda g=gang: len(_bound(cluster, g)) == g.pods, timeout_s=30), gang
            arriving = scenario.arriving
            objects = make_objects(arriving, scenario.name)
            created += objects
            for obj in objects:
                cluster.create(obj)

            def scheduled_or_refused(pod: Obj) -> bool:
                conditions = pod.get("status", {}).get("conditions", [])
                return bool(pod["spec"].get("nodeName")) or any(
                    c["type"] == "PodScheduled" and c["status"] == "False" for c in conditions
                )

            def settled() -> bool:
                pods = _pods(cluster, arriving)
                bound = _bound(cluster, arriving)
                if fallback:
                    return all(scheduled_or_refused(p) for p in pods)
                return (
                    len(bound) == arriving.pods
                    or _unschedulable(cluster, arriving)
                    or (len(bound) >= arriving.minimum and all(scheduled_or_refused(p) for p in pods))
                )

            # A gang with fewer Pods than its minCount is never attempted: nothing to wait for but a window.
            wait_until(settled, timeout_s=45 if arriving.pods >= arriving.minimum else 10)
            if len(_bound(cluster, arriving)) < arriving.pods:  # Unschedulable: let it retry (after preemption)
                settle_s = 12.0 if scenario.running else 3.0
                wait_until(lambda: len(_bound(cluster, arriving)) == arriving.pods, timeout_s=settle_s)
            bound = _bound(cluster, arriving)
            zones = {n["metadata"]["labels"][ZONE_KEY] for n in _nodes_of(cluster, bound)}
            victims = sum(g.pods - len(_bound(cluster, g)) for g in scenario.running)
            if len(bound) == arriving.pods:
                outcome = Outcome.PREEMPTED_AND_BOUND if victims else Outcome.ALL_BOUND
            elif fallback and bound:
                outcome = Outcome.SOME_BOUND
            elif bound and len(bound) >= arriving.minimum:
                outcome = Outcome.MINIMUM_BOUND
            else:
                assert bound == [], f"a gang partly bound: {[p['metadata']['name'] for p in bound]}"
                outcome = Outcome.WAITS if scenario.running else Outcome.NONE_BOUND
            return Observed(outcome, zones, victims)
        finally:
            for obj in created:
                if obj["kind"] == "Pod":
                    cluster.delete(obj)
            cleanup(cluster, created)
            wait_until(lambda: not cluster.list("v1", "Pod", NAMESPACE), timeout_s=30)


def _nodes_of(cluster: Cluster, pods: list[Obj]) -> list[Obj]:
    return [
        cluster.get({"apiVersion": "v1", "kind": "Node", "metadata": {"name": p["spec"]["nodeName"]}}) or {}
        for p in pods
    ]


# --- the same scenarios through the simulator and the static checks ------------------------------------


def simulated(scenario: Scenario, *, fallback: bool = False) -> Outcome:
    """What ``make simulate``'s engine does with the scenario (running gangs first, the arriving one a minute later);
    ``fallback``: its per-pod baseline (``Mode.POD``), which is how the fallback form schedules."""
    from catalog.priority_tiers import Tier
    from simulation.engine.event_loop import Mode, Simulation
    from tests.simulation.scenario import NODE_POD, cluster, gang

    env = scenario_environment(scenario)
    arrival = 1.0 if scenario.running else 0.0

    def request(g: Gang, at_minutes: float):  # type: ignore[no-untyped-def]
        job = gang(g.name, g.minimum, tier=Tier(g.tier), zone=g.zone, at_minutes=at_minutes, minutes=600)
        return dataclasses.replace(job, optional=(NODE_POD,) * (g.pods - g.minimum))

    jobs = [request(g, 0.0) for g in scenario.running] + [request(scenario.arriving, arrival)]
    simulation = Simulation(cluster(env), jobs, mode=Mode.POD if fallback else Mode.GANG, horizon_seconds=3600)
    result = simulation.run()
    outcomes = {j.request.name: j for j in result.jobs}
    if fallback:
        job = next(j for j in simulation.jobs if j.request.name == scenario.arriving.name)
        placed = sum(len(u.placed) for u in job.units)
        if placed == scenario.arriving.pods:
            return Outcome.ALL_BOUND
        return Outcome.SOME_BOUND if placed else Outcome.NONE_BOUND
    mine = outcomes[scenario.arriving.name]
    if mine.scheduled_seconds is None or mine.scheduled_seconds > arrival * 60:
        return Outcome.WAITS if scenario.running else Outcome.NONE_BOUND
    if any(outcomes[g.name].preemptions for g in scenario.running):
        return Outcome.PREEMPTED_AND_BOUND
    job = next(j for j in simulation.jobs if j.request.name == scenario.arriving.name)
    if sum(len(u.placed) for u in job.units) < scenario.arriving.pods:
        return Outcome.MINIMUM_BOUND
    return Outcome.ALL_BOUND


def scenario_environment(scenario: Scenario):  # type: ignore[no-untyped-def]
    from tests.simulation.scenario import ZONES, environment, h100_pool

    a, b = scenario.nodes_per_zone
    if a == b:
        return environment([h100_pool(min_size=a, max_size=a)])
    assert b == 0, "scenarios use equal zones, or zone-b empty"
    return environment([h100_pool(min_size=a, max_size=a, zones=[ZONES[0]])])


def checked(scenario: Scenario, *, fallback: bool = False) -> str:
    """``make check``'s verdict on the arriving gang: ``fail`` (never starts), ``warn`` or ``ok``. A fallback
    run is the demand ``Pods/<namespace>/<run>`` (``policy.checks.demands.gpu_demands``)."""
    from policy.checks.suite import run_checks

    env = scenario_environment(scenario)
    make_objects = fallback_objects if fallback else gang_objects
    objects = [o for g in (*scenario.running, scenario.arriving) for o in make_objects(g, scenario.name)]
    for obj in objects:  # the scenario namespace is the environment's team namespace
        obj["metadata"]["namespace"] = "research"
    kind = "Pods" if fallback else "PodGroup"
    subject = f"{kind}/research/{scenario.arriving.name}"
    found = [c for c in run_checks(env, objects) if c.subject == subject and c.check in ("capacity", "competition")]
    return max((c.status.value for c in found), key=("ok", "warn", "fail").index, default="ok")
