"""The Kubernetes 1.37 scheduling rules the simulation applies, as pure functions.

Nodes are given as free resources ``(devices, cpu, memory_gib)`` in a fixed order; pods as
``policy.infrastructure.capacity.PodShape``. Placement is first fit, as the DRA allocator is: it can reject a
gang for which another assignment exists (kubernetes/kubernetes#138765, platform facts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from policy.infrastructure.capacity import PodShape

Free = tuple[int, int, float]
"""Free devices, vCPUs and memory (GiB) of one node."""


def fits(free: Free, pod: PodShape) -> bool:
    return free[0] >= pod.devices and free[1] >= pod.cpu and free[2] >= pod.memory_gib


def first_fit(nodes: Sequence[Free], pods: Sequence[PodShape]) -> list[int] | None:
    """The node index of each pod, each on the first node that still has room; ``None`` if one fits nowhere."""
    free = [list(n) for n in nodes]
    placed = []
    for pod in pods:
        for index, room in enumerate(free):
            if room[0] >= pod.devices and room[1] >= pod.cpu and room[2] >= pod.memory_gib:
                room[0] -= pod.devices
                room[1] -= pod.cpu
                room[2] -= pod.memory_gib
                placed.append(index)
                break
        else:
            return None
    return placed


def place_gang(
    domains: Sequence[Sequence[Free]], required: Sequence[PodShape], optional: Sequence[PodShape]
) -> tuple[int, list[int]] | None:
    """Bind a gang: every ``required`` pod at once inside one domain (the first in order where they
    fit), then as many ``optional`` (elastic) pods as still fit there. Returns the domain and the
    node of each placed pod, required first."""
    for domain_index, nodes in enumerate(domains):
        placed = first_fit(nodes, required)
        if placed is None:
            continue
        free = [list(n) for n in nodes]
        for pod, node in zip(required, placed, strict=True):
            free[node][0] -= pod.devices
            free[node][1] -= pod.cpu
            free[node][2] -= pod.memory_gib
        for pod in optional:
            extra = first_fit([(int(f[0]), int(f[1]), f[2]) for f in free], [pod])
            if extra is None:
                break
            node = extra[0]
            free[node][0] -= pod.devices
            free[node][1] -= pod.cpu
            free[node][2] -= pod.memory_gib
            placed.append(node)
        return domain_index, placed
    return None


def nodes_to_add(
    existing: Sequence[Free], new_nodes: Sequence[tuple[str, Free, int]], pods: Sequence[PodShape]
) -> dict[str, int] | None:
    """Nodes to add per pool so ``pods`` fit together: first fit over the existing nodes, then over
    empty nodes of each pool in order, at most ``headroom`` of each (``(pool, empty, headroom)``).
    ``None`` when even every reachable node would not hold them."""
    virtual = [(pool, empty) for pool, empty, headroom in new_nodes for _ in range(headroom)]
    placed = first_fit([*existing, *(empty for _, empty in virtual)], pods)
    if placed is None:
        return None
    added: dict[str, int] = {}
    for index in sorted({p for p in placed if p >= len(existing)}):
        pool = virtual[index - len(existing)][0]
        added[pool] = added.get(pool, 0) + 1
    return added


def can_preempt(*, preempts: bool, topology_zone: bool) -> bool:
    """Whether a waiting gang may evict others: its tier's policy is ``PreemptLowerPriority``, and it has
    no topology constraint (1.37's topology-aware workload scheduling does not trigger preemption)."""
    return preempts and not topology_zone


@dataclass(frozen=True)
class Running:
    """A running gang that could be evicted: its priority, start, and the pods it holds per node."""

    key: int
    priority: int
    started_seconds: float
    pods: tuple[tuple[int, PodShape], ...]


def choose_victims(
    nodes: Sequence[Free], running: Sequence[Running], *, priority: int, pods: Sequence[PodShape]
) -> list[int] | None:
    """Whole lower-priority gangs to evict (disruption mode ``all``) so ``pods`` fit, or ``None``.

    Candidates go lowest priority first, newest first within a priority; once the gang fits,
    victims are spared again from the highest priority down if it still fits without them.
    """
    candidates = sorted(
        (r for r in running if r.priority < priority), key=lambda r: (r.priority, -r.started_seconds, r.key)
    )
    needed = sum(p.devices for p in pods)
    free = [list(n) for n in nodes]

    def release(victim: Running, sign: int) -> None:
        for node, pod in victim.pods:
            free[node][0] += sign * pod.devices
            free[node][1] += sign * pod.cpu
            free[node][2] += sign * pod.memory_gib

    def fits_now() -> bool:
        return first_fit([(int(f[0]), int(f[1]), f[2]) for f in free], pods) is not None

    chosen: list[Running] = []
    if fits_now():
        return []
    available = sum(f[0] for f in free)
    for victim in candidates:
        release(victim, +1)
        chosen.append(victim)
        available += sum(p.devices for _, p in victim.pods)
        if available >= needed and fits_now():
            break
    else:
        return None
    for victim in sorted(chosen, key=lambda r: (-r.priority, r.started_seconds, r.key)):
        release(victim, -1)
        if fits_now():
            chosen.remove(victim)
        else:
            release(victim, +1)
    return sorted(v.key for v in chosen)


def queue_key(*, priority: int, created_seconds: float, sequence: int) -> tuple[int, float, int]:
    """Scheduling-queue order: higher priority first, then earlier creation (then submission order)."""
    return (-priority, created_seconds, sequence)


def percentile(values: Sequence[float], quantile: float) -> float | None:
    """Nearest-rank percentile: the smallest value with at least ``quantile`` of the values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(quantile * len(ordered) - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def censored_percentile(values: Sequence[tuple[float, bool]], quantile: float) -> tuple[float, bool] | None:
    """Nearest-rank percentile of ``(value, censored)`` pairs, where a censored value is a lower bound
    (a gang still waiting at the horizon has waited at least that long).

    Returns the value and whether it is a lower bound: exact when no censored value is among the
    ``rank`` smallest (the true values of the others can only move further up), else at least it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = min(max(1, math.ceil(quantile * len(ordered) - 1e-9)), len(ordered))
    return ordered[rank - 1][0], any(censored for _, censored in ordered[:rank])
