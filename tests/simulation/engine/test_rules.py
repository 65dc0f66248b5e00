"""Each scheduling rule as a pure function, on nodes and pods small enough to check by hand."""

from __future__ import annotations

from policy.infrastructure.capacity import PodShape
from simulation.engine.rules import (
    Running,
    can_preempt,
    censored_percentile,
    choose_victims,
    first_fit,
    nodes_to_add,
    percentile,
    place_gang,
    queue_key,
)

GPU8 = PodShape(8, 10, 10)
GPU4 = PodShape(4, 10, 10)
NODE = (8, 100, 100.0)
HALF = (4, 100, 100.0)


def test_first_fit_places_each_pod_on_the_first_node_with_room() -> None:
    assert first_fit([HALF, NODE, NODE], [GPU4, GPU4, GPU8]) == [0, 1, 2]


def test_first_fit_can_miss_an_assignment_that_exists() -> None:
    # 4 then 8 on nodes of 8 and 4: first fit puts the 4 on the 8-GPU node and strands the 8.
    assert first_fit([NODE, HALF], [GPU4, GPU8]) is None
    assert first_fit([NODE, HALF], [GPU8, GPU4]) == [0, 1]


def test_first_fit_counts_cpu_and_memory_too() -> None:
    assert first_fit([(8, 15, 100.0)], [GPU4, GPU4]) is None
    assert first_fit([(8, 20, 20.0)], [GPU4, GPU4]) == [0, 0]


def test_gang_binds_only_inside_one_domain() -> None:
    zone_a, zone_b = [NODE], [NODE, NODE]
    assert place_gang([zone_a, zone_b], [GPU8, GPU8], []) == (1, [0, 1])
    assert place_gang([zone_a, [NODE]], [GPU8, GPU8], []) is None
    assert place_gang([[*zone_a, NODE]], [GPU8, GPU8], []) == (0, [0, 1])


def test_elastic_extras_fill_what_is_left_in_the_gangs_domain() -> None:
    assert place_gang([[NODE, NODE, NODE]], [GPU8], [GPU8, GPU8, GPU8]) == (0, [0, 1, 2])
    assert place_gang([[HALF]], [GPU8], [GPU4]) is None


def test_nodes_to_add_counts_new_nodes_per_pool_up_to_their_headroom() -> None:
    assert nodes_to_add([NODE], [("a", NODE, 2), ("b", NODE, 5)], [GPU8] * 4) == {"a": 2, "b": 1}
    assert nodes_to_add([NODE], [("a", NODE, 2)], [GPU8] * 4) is None
    assert nodes_to_add([NODE], [("a", NODE, 2)], [GPU8]) == {}


def test_only_preempt_lower_priority_tiers_without_topology_preempt() -> None:
    assert can_preempt(preempts=True, topology_zone=False)
    assert not can_preempt(preempts=True, topology_zone=True)
    assert not can_preempt(preempts=False, topology_zone=False)


def test_victims_are_whole_lower_priority_gangs_lowest_and_newest_first() -> None:
    nodes = [(0, 100, 100.0), (0, 100, 100.0)]
    old_low = Running(1, 100, 0.0, ((0, GPU8),))
    new_low = Running(2, 100, 50.0, ((1, GPU8),))
    higher = Running(3, 500, 10.0, ((1, GPU8),))
    assert choose_victims(nodes, [old_low, new_low], priority=200, pods=[GPU8]) == [2]
    assert choose_victims(nodes, [old_low, new_low], priority=200, pods=[GPU8, GPU8]) == [1, 2]
    assert choose_victims(nodes, [higher], priority=200, pods=[GPU8]) is None


def test_victims_that_are_not_needed_are_spared() -> None:
    nodes = [(0, 100, 100.0), (0, 100, 100.0)]
    big = Running(1, 100, 90.0, ((0, GPU8),))
    small = Running(2, 50, 10.0, ((1, GPU4),))
    # Lowest priority first takes `small` (freeing node 1), which is not enough; `big` frees node 0,
    # after which `small` is spared again because the 8-GPU pod fits on node 0 alone.
    assert choose_victims(nodes, [big, small], priority=200, pods=[GPU8]) == [1]


def test_queue_orders_by_priority_then_creation() -> None:
    keys = sorted(
        [
            queue_key(priority=100, created_seconds=0, sequence=0),
            queue_key(priority=200, created_seconds=50, sequence=1),
            queue_key(priority=200, created_seconds=10, sequence=2),
        ]
    )
    assert keys == [(-200, 10, 2), (-200, 50, 1), (-100, 0, 0)]


def test_percentiles_are_nearest_rank() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(values, 0.5) == 3.0
    assert percentile(values, 0.95) == 5.0
    assert percentile(values[:4], 0.5) == 2.0
    assert percentile([], 0.5) is None


def test_censored_percentile_is_a_lower_bound_once_a_censored_wait_is_within_its_rank() -> None:
    waits = [(0.0, False), (10.0, False), (5.0, True)]  # the last gang was still waiting after 5
    assert censored_percentile(waits, 0.3) == (0.0, False)  # rank 1: exact
    assert censored_percentile(waits, 0.5) == (5.0, True)  # rank 2 reaches the censored 5: at least 5
    assert censored_percentile(waits, 1.0) == (10.0, True)
    assert censored_percentile([(3.0, False), (9.0, True)], 0.5) == (3.0, False)
    assert censored_percentile([], 0.5) is None
