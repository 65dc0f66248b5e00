"""The event loop: gangs arrive, bind, run, get preempted and re-queue; nodes scale up and down.

A small heap-ordered event loop rather than a process library: scheduling is one global
decision over the queue at each instant, not many cooperating processes, and a loop with
``(time, kind, sequence)`` ordering is deterministic for a seed by construction.

Waiting gangs with identical requirements share a bucket: when the head of a bucket does not
fit, none behind it does, until capacity in one of its pools grows. That keeps the cost of a
scheduling pass independent of the queue's length, so a run costs time linear in arrivals.

Answers do not depend on the sampling step: a pass that frees capacity (a preemption that frees
more than the preemptor takes) is followed by another pass at the same instant, so the waiting
gangs are reconsidered then, not at the next event (often a sample tick). A pass that frees
nothing ends it: every preemption replaces lower-priority running gangs with a higher one, so the
repeat ends.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from catalog.device_classes import DEVICE_CLASSES, DeviceShape
from policy.infrastructure.capacity import PodShape
from simulation.engine.cluster import ClusterModel, PoolZone
from simulation.engine.jobs import JobRequest
from simulation.engine.rules import Free, Running, can_preempt, choose_victims, nodes_to_add, place_gang, queue_key


class Mode(StrEnum):
    GANG = "gangs"
    """Workload-aware scheduling: a gang binds whole or waits whole; preemption evicts whole gangs."""
    POD = "baseline"
    """The per-pod baseline: every pod is scheduled and preempted on its own (no gangs, no topology).
    Its queue is kube-scheduler's: by priority, then creation, and the pods of gangs created at the
    same instant alternate (each gang's first pod, then each gang's second, ...), as the pods of
    jobs submitted together do."""


PREEMPTION_EPISODE_SECONDS = 120.0
"""Pods of one gang preempted within this long of each other are one preemption of the gang: the
gang exporter's ``--preemption-episode-seconds`` default (``gang_podgroup_preemptions_total``)."""


class NeverStarted(StrEnum):
    NO_POOL = "no-pool"
    EXCEEDS_CAPACITY = "exceeds-capacity"
    CAPACITY_BUSY = "capacity-busy"
    PARTIAL = "partial"


NEVER_STARTED_REASONS = {
    NeverStarted.NO_POOL: "no pool publishes devices its DeviceClass selects",
    NeverStarted.EXCEEDS_CAPACITY: "its minimum does not fit one domain even with every reachable node empty",
    NeverStarted.CAPACITY_BUSY: "it would fit, but other gangs held the capacity until the end "
    "(a gang kept to one zone never preempts in 1.37)",
    NeverStarted.PARTIAL: "some of its pods ran (baseline), never all it needs at once",
}


class _Kind(IntEnum):
    WINDOW_END = 0
    COMPLETE = 1
    NODE_READY = 2
    WINDOW_START = 3
    IDLE = 4
    ARRIVAL = 5
    SAMPLE = 6


@dataclass
class Node:
    index: int
    pool_zone: PoolZone
    free: list[float]
    static: bool
    ready: bool
    removed: bool = False
    idle_epoch: int = 0
    holders: dict[int, list[PodShape]] = field(default_factory=dict)


@dataclass
class Unit:
    """What the scheduler places at once: a whole gang, or (baseline) one pod."""

    key: int
    job: Job
    required: tuple[PodShape, ...]
    optional: tuple[PodShape, ...]
    topology_zone: bool
    signature: tuple[object, ...]
    sequence: int
    placed: list[tuple[Node, PodShape]] = field(default_factory=list)
    position: int = 0
    """The pod's index within its gang (baseline); 0 for a whole gang."""
    inflight: int = 0
    waiting: bool = False


@dataclass
class Job:
    index: int
    request: JobRequest
    units: list[Unit] = field(default_factory=list)
    needed_units: int = 1
    placed_units: int = 0
    running: bool = False
    started_seconds: float = 0.0
    epoch: int = 0
    scheduled_seconds: float | None = None
    completed_seconds: float | None = None
    preemptions: int = 0
    preempted_pods: int = 0
    last_preempted_seconds: float | None = None
    interruptions: int = 0
    starts: int = 0
    pods_held: int = 0
    most_pods_held: int = 0

    @property
    def placed_gpus(self) -> float:
        return sum(n.pool_zone.gpus_per_device * p.devices for u in self.units for n, p in u.placed)


@dataclass
class JobOutcome:
    request: JobRequest
    scheduled_seconds: float | None
    completed_seconds: float | None
    preemptions: int
    """Preemption episodes, as the gang exporter counts them (``PREEMPTION_EPISODE_SECONDS``)."""
    interruptions: int
    never_started: NeverStarted | None
    preempted_pods: int = 0
    """Pods of the gang evicted by preemption, each eviction once."""
    most_pods_held: int = 0
    """The most GPU pods the gang held at once."""
    pods_held_at_end: int = 0
    """GPU pods it held at the horizon (0 once it completed)."""
    last_started_seconds: float | None = None
    """When its last run began (after a preemption it restarts from the beginning)."""
    starts: int = 0
    """How many times it started running."""


@dataclass
class Sample:
    seconds: float
    pending_by_priority_class: dict[str, int]
    allocated_gpus: dict[tuple[str, str], float]
    """GPUs held by pods, by (zone, GPU model)."""
    allocatable_gpus: dict[tuple[str, str, str], float]
    """GPUs of Ready nodes, by (zone, instance type, GPU model): ``gang_node_allocatable_gpus``."""


@dataclass
class SimulationResult:
    mode: Mode
    horizon_seconds: float
    jobs: list[JobOutcome]
    samples: list[Sample]
    allocation_failures: dict[str, int]
    """Failed placement attempts by requested DeviceClass, one per waiting gang per attempt."""
    busy_gpu_seconds: float
    """GPU time of pods of running gangs."""
    idle_held_gpu_seconds: float
    """GPU time held by pods of gangs that had not (or no longer) all their pods running."""
    preempted_gpu_seconds: float
    """GPU time of runs cut short by preemption or a Capacity Block's end (restarted from the beginning)."""
    nodes_added: int


@dataclass(frozen=True)
class Window:
    pool: str
    start_seconds: float
    end_seconds: float


@dataclass
class _Bucket:
    heap: list[tuple[int, float, int, int]] = field(default_factory=list)
    pool_zones: tuple[int, ...] = ()
    failed_at: tuple[int, ...] | None = None
    device_class: str = ""
    waiting: int = 0


Progress = Callable[[float], None]


class Simulation:
    """One run of a job list on a cluster model, in one scheduling mode."""

    def __init__(
        self,
        cluster: ClusterModel,
        jobs: Sequence[JobRequest],
        *,
        mode: Mode = Mode.GANG,
        horizon_seconds: float,
        sample_seconds: float = 600.0,
        windows: Sequence[Window] = (),
        progress: Progress | None = None,
    ) -> None:
        self.cluster, self.mode, self.horizon = cluster, mode, horizon_seconds
        self.sample_seconds, self.progress = sample_seconds, progress
        self.now = 0.0
        self.events: list[tuple[float, int, int, int, int]] = []
        self.event_seq = 0
        self.nodes: list[Node] = []
        self.live: list[list[Node]] = [[] for _ in cluster.pool_zones]
        self.pool_live: dict[str, int] = dict.fromkeys(cluster.pool_limits, 0)
        self.versions = [0] * len(cluster.pool_zones)
        self.active = [True] * len(cluster.pool_zones)
        self.windows = list(windows)
        self.buckets: dict[tuple[object, ...], _Bucket] = {}
        self.units: list[Unit] = []
        self.jobs = [Job(i, r) for i, r in enumerate(jobs)]
        self.failures: dict[str, int] = {}
        self.busy_gpus = 0.0
        self.idle_gpus = 0.0
        self.busy_area = 0.0
        self.idle_area = 0.0
        self.preempted_area = 0.0
        self.nodes_added = 0
        self.allocated: dict[tuple[str, str], float] = {}
        self.samples: list[Sample] = []
        self.pending: dict[str, int] = {}
        self.freed = False
        for job in self.jobs:
            self._make_units(job)
        if mode is Mode.POD:  # pods of gangs created together alternate in the queue
            for unit in self.units:
                unit.sequence = unit.position * len(self.jobs) + unit.job.index

    # --- setup ----------------------------------------------------------------------------------

    def _make_units(self, job: Job) -> None:
        request = job.request
        if self.mode is Mode.GANG:
            shapes = [(request.required, request.optional, request.topology_zone)]
            job.needed_units = 1
        else:
            shapes = [((pod,), (), False) for pod in request.required + request.optional]
            job.needed_units = len(request.required)
        for position, (required, optional, zone) in enumerate(shapes):
            signature = (request.priority, request.device_class.value, required, optional, zone)
            unit = Unit(len(self.units), job, required, optional, zone, signature, len(self.units), position=position)
            self.units.append(unit)
            job.units.append(unit)
            if signature not in self.buckets:
                self.buckets[signature] = _Bucket(
                    pool_zones=serving(self.cluster, request.device_class, required + optional),
                    device_class=DEVICE_CLASSES[request.device_class].name,
                )

    def _push(self, seconds: float, kind: _Kind, a: int = 0, b: int = 0) -> None:
        self.event_seq += 1
        heapq.heappush(self.events, (seconds, int(kind), self.event_seq, a, b))

    def _add_node(self, pool_zone: PoolZone, *, ready: bool, static: bool) -> Node:
        node = Node(len(self.nodes), pool_zone, list(pool_zone.empty), static=static, ready=ready)
        self.nodes.append(node)
        self.live[pool_zone.index].append(node)
        self.pool_live[pool_zone.pool.name] += 1
        return node

    # --- the loop -------------------------------------------------------------------------------

    def run(self) -> SimulationResult:
        windowed = {w.pool for w in self.windows}
        for pz in self.cluster.pool_zones:
            if pz.pool.name in windowed:
                self.active[pz.index] = False
            else:
                for _ in range(pz.static):
                    self._add_node(pz, ready=True, static=True)
        for w_index, window in enumerate(self.windows):
            self._push(window.start_seconds, _Kind.WINDOW_START, w_index)
            self._push(window.end_seconds, _Kind.WINDOW_END, w_index)
        for job in self.jobs:
            self._push(job.request.arrival_seconds, _Kind.ARRIVAL, job.index)
        samples = int(self.horizon // self.sample_seconds)
        for i in range(samples + 1):
            self._push(i * self.sample_seconds, _Kind.SAMPLE)
        while self.events and self.events[0][0] <= self.horizon:
            time = self.events[0][0]
            self._advance(time)
            sample = False
            while self.events and self.events[0][0] == time:
                _, kind, _, a, b = heapq.heappop(self.events)
                if kind == _Kind.SAMPLE:
                    sample = True
                else:
                    self._handle(_Kind(kind), a, b)
            self._schedule()
            if sample:
                self._sample()
                if self.progress is not None:
                    self.progress(time)
        self._advance(self.horizon)
        return self._result()

    def _advance(self, time: float) -> None:
        dt = time - self.now
        if dt > 0:
            self.busy_area += self.busy_gpus * dt
            self.idle_area += self.idle_gpus * dt
        self.now = max(self.now, time)

    def _handle(self, kind: _Kind, a: int, b: int) -> None:
        if kind is _Kind.ARRIVAL:
            job = self.jobs[a]
            pc = job.request.priority_class
            self.pending[pc] = self.pending.get(pc, 0) + 1
            for unit in job.units:
                self._enqueue(unit)
        elif kind is _Kind.COMPLETE:
            job = self.jobs[a]
            if job.running and job.epoch == b:
                self._complete(job)
        elif kind is _Kind.NODE_READY:
            node = self.nodes[a]
            if node.removed:
                return
            node.ready = True
            self.versions[node.pool_zone.index] += 1
            waiting_unit = self.units[b]
            waiting_unit.inflight = max(0, waiting_unit.inflight - 1)
            self._maybe_idle(node)
        elif kind is _Kind.IDLE:
            node = self.nodes[a]
            if not node.removed and not node.holders and node.idle_epoch == b and node.ready:
                if self._someone_waits_for(node.pool_zone):
                    self._maybe_idle(node)  # autoscalers keep nodes pending pods could use
                else:
                    self._remove_node(node)
        elif kind is _Kind.WINDOW_START:
            for pz in self._window_zones(a):
                self.active[pz.index] = True
                for _ in range(pz.reachable - len(self.live[pz.index])):
                    self._add_node(pz, ready=True, static=True)
                self.versions[pz.index] += 1
        elif kind is _Kind.WINDOW_END:
            for pz in self._window_zones(a):
                self.active[pz.index] = False
                victims = {self.units[k].job.index for n in self.live[pz.index] for k in n.holders}
                for index in sorted(victims):
                    self._evict(self.jobs[index], interrupted=True)
                for node in list(self.live[pz.index]):
                    self._remove_node(node)

    def _window_zones(self, w_index: int) -> list[PoolZone]:
        pool = self.windows[w_index].pool
        return [pz for pz in self.cluster.pool_zones if pz.pool.name == pool]

    def _remove_node(self, node: Node) -> None:
        node.removed = True
        self.live[node.pool_zone.index].remove(node)
        self.pool_live[node.pool_zone.pool.name] -= 1
        self.versions[node.pool_zone.index] += 1  # headroom for a scale-up is back

    def _someone_waits_for(self, pool_zone: PoolZone) -> bool:
        served = {DEVICE_CLASSES[shape].name for shape in pool_zone.serves}
        return any(b.waiting for b in self.buckets.values() if b.device_class in served)

    def _maybe_idle(self, node: Node) -> None:
        if not node.holders and not node.static and node.ready and not node.removed:
            node.idle_epoch += 1
            self._push(self.now + node.pool_zone.idle_seconds, _Kind.IDLE, node.index, node.idle_epoch)

    # --- queue ----------------------------------------------------------------------------------

    def _enqueue(self, unit: Unit) -> None:
        unit.waiting = True
        bucket = self.buckets[unit.signature]
        bucket.waiting += 1
        created = unit.job.request.arrival_seconds
        heapq.heappush(
            bucket.heap,
            (*queue_key(priority=unit.job.request.priority, created_seconds=created, sequence=unit.sequence), unit.key),
        )

    def _snapshot(self, bucket: _Bucket) -> tuple[int, ...]:
        return tuple(self.versions[i] for i in bucket.pool_zones)

    def _head(self, bucket: _Bucket) -> Unit | None:
        while bucket.heap:
            unit = self.units[bucket.heap[0][-1]]
            if unit.waiting:
                return unit
            heapq.heappop(bucket.heap)
        return None

    def _schedule(self) -> None:
        """Scheduling passes at this instant until one frees no capacity (see the module docstring)."""
        self.freed = True
        while self.freed:
            self.freed = False
            self._schedule_pass()

    def _schedule_pass(self) -> None:
        heads: list[tuple[int, float, int, tuple[object, ...]]] = []
        for signature, bucket in self.buckets.items():
            unit = self._head(bucket)
            if unit is None:
                continue
            if bucket.failed_at == self._snapshot(bucket):
                continue
            entry = bucket.heap[0]
            heads.append((entry[0], entry[1], entry[2], signature))
        heapq.heapify(heads)
        deferred: list[tuple[_Bucket, tuple[int, float, int, int]]] = []
        while heads:
            *_, signature = heapq.heappop(heads)
            bucket = self.buckets[signature]
            unit = self._head(bucket)
            if unit is None:
                continue
            entry = heapq.heappop(bucket.heap)
            if unit.inflight:
                deferred.append((bucket, entry))  # waits for the nodes it asked for
            elif not (self._try_place(unit) or self._try_preempt(unit) or self._try_scale_up(unit)):
                heapq.heappush(bucket.heap, entry)
                bucket.failed_at = self._snapshot(bucket)
                self.failures[bucket.device_class] = self.failures.get(bucket.device_class, 0) + bucket.waiting
                continue
            elif unit.inflight:
                deferred.append((bucket, entry))
            following = self._head(bucket)
            if following is not None:
                head = bucket.heap[0]
                heapq.heappush(heads, (head[0], head[1], head[2], signature))
        for bucket, entry in deferred:
            heapq.heappush(bucket.heap, entry)

    # --- placement ------------------------------------------------------------------------------

    def _domains(self, unit: Unit, *, ready_only: bool = True) -> list[tuple[str, list[Node]]]:
        indices = self.buckets[unit.signature].pool_zones  # serving its class, within any pools its pods are pinned to
        nodes = [n for i in indices if self.active[i] for n in self.live[i] if n.ready or not ready_only]
        if not unit.topology_zone:
            return [("", nodes)]
        return [(zone, [n for n in nodes if n.pool_zone.zone == zone]) for zone in self.cluster.zones]

    def _try_place(self, unit: Unit) -> bool:
        needed = sum(p.devices for p in unit.required)
        for _, nodes in self._domains(unit):
            if sum(n.free[0] for n in nodes) < needed:
                continue
            found = place_gang([[_free(n) for n in nodes]], unit.required, unit.optional)
            if found is not None:
                self._bind(unit, nodes, found[1])
                return True
        return False

    def _bind(self, unit: Unit, nodes: list[Node], placement: list[int]) -> None:
        pods = list(unit.required) + list(unit.optional)
        was_running = unit.job.running
        idle_before = self.idle_gpus
        for pod, index in zip(pods, placement, strict=False):
            node = nodes[index]
            node.free[0] -= pod.devices
            node.free[1] -= pod.cpu
            node.free[2] -= pod.memory_gib
            node.holders.setdefault(unit.key, []).append(pod)
            unit.placed.append((node, pod))
            gpus = node.pool_zone.gpus_per_device * pod.devices
            key = (
                node.pool_zone.zone,
                node.pool_zone.instance.gpu_model.value if node.pool_zone.instance.gpu_model else "",
            )
            self.allocated[key] = self.allocated.get(key, 0.0) + gpus
            self.idle_gpus += gpus
        unit.waiting = False
        self.buckets[unit.signature].waiting -= 1
        job = unit.job
        if was_running:  # an extra pod of a job that already runs works from the start
            self.busy_gpus += self.idle_gpus - idle_before
            self.idle_gpus = idle_before
        job.placed_units += 1
        job.pods_held += len(unit.placed)
        job.most_pods_held = max(job.most_pods_held, job.pods_held)
        if not job.running and job.placed_units >= job.needed_units:
            self._start(job)

    def _start(self, job: Job) -> None:
        gpus = job.placed_gpus
        self.idle_gpus -= gpus
        self.busy_gpus += gpus
        job.running = True
        job.started_seconds = self.now
        job.starts += 1
        job.epoch += 1
        if job.scheduled_seconds is None:
            job.scheduled_seconds = self.now
            pc = job.request.priority_class
            self.pending[pc] -= 1
        if job.request.duration_seconds is not None:
            self._push(self.now + job.request.duration_seconds, _Kind.COMPLETE, job.index, job.epoch)

    def _stop(self, job: Job) -> None:
        if job.running:
            gpus = job.placed_gpus
            self.busy_gpus -= gpus
            self.idle_gpus += gpus
            self.preempted_area += gpus * (self.now - job.started_seconds)
            job.running = False
            job.epoch += 1

    def _release(self, unit: Unit) -> None:
        for node, pod in unit.placed:
            node.free[0] += pod.devices
            node.free[1] += pod.cpu
            node.free[2] += pod.memory_gib
            node.holders.pop(unit.key, None)
            gpus = node.pool_zone.gpus_per_device * pod.devices
            key = (
                node.pool_zone.zone,
                node.pool_zone.instance.gpu_model.value if node.pool_zone.instance.gpu_model else "",
            )
            self.allocated[key] -= gpus
            self.idle_gpus -= gpus
            self.versions[node.pool_zone.index] += 1
            self._maybe_idle(node)
        if unit.placed:
            unit.job.placed_units -= 1
            unit.job.pods_held -= len(unit.placed)
        unit.placed = []

    def _complete(self, job: Job) -> None:
        gpus = job.placed_gpus
        self.busy_gpus -= gpus
        self.idle_gpus += gpus  # released below
        job.running = False
        job.completed_seconds = self.now
        for unit in job.units:
            self._release(unit)

    def _evict(self, job: Job, *, interrupted: bool = False, units: Sequence[Unit] | None = None) -> None:
        """Preempt (or, at a block's end, interrupt) a job: its pods go, it re-queues and restarts later."""
        self._stop(job)
        evicted = [u for u in (units if units is not None else job.units) if u.placed]
        if interrupted:
            job.interruptions += 1
        else:
            last = job.last_preempted_seconds
            if last is None or self.now - last > PREEMPTION_EPISODE_SECONDS:
                job.preemptions += 1  # one per episode, as the gang exporter counts
            job.last_preempted_seconds = self.now
            job.preempted_pods += sum(len(u.placed) for u in evicted)
            self.freed = True
        for unit in evicted:
            self._release(unit)
            self._enqueue(unit)

    def _try_preempt(self, unit: Unit) -> bool:
        request = unit.job.request
        if not can_preempt(preempts=request.preempts, topology_zone=unit.topology_zone):
            return False
        ((_, nodes),) = self._domains(unit)
        position = {n.index: i for i, n in enumerate(nodes)}
        holders: dict[int, list[tuple[int, PodShape]]] = {}
        for node in nodes:
            for key, pods in node.holders.items():
                holders.setdefault(key, []).extend((position[node.index], p) for p in pods)
        running = []
        for key in sorted(holders):
            victim = self.units[key]
            group = victim.job.units if self.mode is Mode.GANG else [victim]
            if victim.job.request.priority >= request.priority or (
                self.mode is Mode.GANG and victim.key != group[0].key
            ):
                continue
            all_pods = tuple(pp for u in group for pp in holders.get(u.key, []))
            running.append(Running(key, victim.job.request.priority, victim.job.started_seconds, all_pods))
        if not running:
            return False
        victims = choose_victims([_free(n) for n in nodes], running, priority=request.priority, pods=unit.required)
        if not victims:
            return False
        for key in victims:
            victim = self.units[key]
            self._evict(victim.job, units=None if self.mode is Mode.GANG else [victim])
        return self._try_place(unit)

    def _try_scale_up(self, unit: Unit) -> bool:
        for zone, nodes in self._domains(unit, ready_only=True):
            candidates = []
            remaining = dict(self.pool_live)
            for i in self.buckets[unit.signature].pool_zones:
                pz = self.cluster.pool_zones[i]
                if not self.active[i] or (zone and pz.zone != zone):
                    continue
                preempting = unit.job.request.preempts
                room = min(
                    pz.reachable_for(preempting=preempting) - len(self.live[i]),
                    self.cluster.limit_for(pz.pool.name, preempting=preempting) - remaining[pz.pool.name],
                )
                if room > 0:
                    remaining[pz.pool.name] += room
                    candidates.append((str(i), pz.empty, room))
            if not candidates:
                continue
            added = nodes_to_add([_free(n) for n in nodes], candidates, unit.required)
            if not added:
                continue
            for key, count in added.items():
                pz = self.cluster.pool_zones[int(key)]
                for _ in range(count):
                    node = self._add_node(pz, ready=False, static=False)
                    self.nodes_added += 1
                    unit.inflight += 1
                    self._push(self.now + pz.delay_seconds, _Kind.NODE_READY, node.index, unit.key)
            return True
        return False

    # --- measurements ---------------------------------------------------------------------------

    def _sample(self) -> None:
        allocatable: dict[tuple[str, str, str], float] = {}
        for pz in self.cluster.pool_zones:
            ready = sum(1 for n in self.live[pz.index] if n.ready)
            if ready:
                model = pz.instance.gpu_model.value if pz.instance.gpu_model else ""
                key = (pz.zone, pz.instance.name, model)
                allocatable[key] = allocatable.get(key, 0.0) + ready * pz.instance.gpus
        self.samples.append(
            Sample(
                self.now,
                dict(sorted(self.pending.items())),
                {k: round(v, 6) for k, v in sorted(self.allocated.items())},
                dict(sorted(allocatable.items())),
            )
        )

    def _never_started(self, job: Job) -> NeverStarted | None:
        if job.scheduled_seconds is not None or job.request.arrival_seconds > self.horizon:
            return None
        indices = self.cluster.serving.get(job.request.device_class, [])
        if not indices:
            return NeverStarted.NO_POOL
        if not fits_when_empty(self.cluster, job.request):
            return NeverStarted.EXCEEDS_CAPACITY
        if self.mode is Mode.POD and any(u.placed for u in job.units):
            return NeverStarted.PARTIAL
        return NeverStarted.CAPACITY_BUSY

    def _result(self) -> SimulationResult:
        outcomes = [
            JobOutcome(
                j.request,
                j.scheduled_seconds,
                j.completed_seconds,
                j.preemptions,
                j.interruptions,
                self._never_started(j),
                preempted_pods=j.preempted_pods,
                most_pods_held=j.most_pods_held,
                pods_held_at_end=j.pods_held,
                last_started_seconds=j.started_seconds if j.starts else None,
                starts=j.starts,
            )
            for j in self.jobs
            if j.request.arrival_seconds <= self.horizon
        ]
        return SimulationResult(
            self.mode,
            self.horizon,
            outcomes,
            self.samples,
            dict(sorted(self.failures.items())),
            self.busy_area,
            self.idle_area,
            self.preempted_area,
            self.nodes_added,
        )


def _free(node: Node) -> Free:
    return (int(node.free[0]), int(node.free[1]), node.free[2])


def serving(cluster: ClusterModel, device_class: DeviceShape, pods: tuple[PodShape, ...]) -> tuple[int, ...]:
    """Pool-zones serving the class, within the pools the pods are pinned to (their EFA placement), if any."""
    pinned = {pool for pod in pods for pool in pod.pools}
    return tuple(
        i for i in cluster.serving.get(device_class, ()) if not pinned or cluster.pool_zones[i].pool.name in pinned
    )


def fits_when_empty(cluster: ClusterModel, request: JobRequest) -> bool:
    """Whether the gang minimum fits one of its domains with every reachable node there and empty."""
    indices = serving(cluster, request.device_class, request.required + request.optional)
    zones = cluster.zones if request.topology_zone else ("",)
    for zone in zones:
        remaining = dict.fromkeys(cluster.pool_limits, 0)
        candidates = []
        for i in indices:
            pz = cluster.pool_zones[i]
            if zone and pz.zone != zone:
                continue
            preempting = request.preempts
            room = min(
                pz.reachable_for(preempting=preempting),
                cluster.limit_for(pz.pool.name, preempting=preempting) - remaining[pz.pool.name],
            )
            if room > 0:
                remaining[pz.pool.name] += room
                candidates.append((str(i), pz.empty, room))
        if nodes_to_add([], candidates, request.required) is not None:
            return True
    return False
