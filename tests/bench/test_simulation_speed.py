"""The simulation benchmark's scaled mix: one simulated week holds about the wanted number of arrivals."""

from __future__ import annotations

import pytest

from bench.simulation_speed import WEEK_SECONDS, scaled
from policy.environment.load import load_environment
from simulation.mix.load import MIXES_DIR, load_mix
from simulation.mix.model import ArrivalProcess, MixConfig
from simulation.mix.sample import sample_jobs


@pytest.fixture(scope="module")
def mix() -> MixConfig:
    return load_mix(load_environment(name="prod-example"), name="prod-example")


def _arrivals(mix: MixConfig) -> int:
    env = load_environment(name="prod-example")
    return len(sample_jobs(env, mix, seed=1, horizon_seconds=WEEK_SECONDS, mix_dir=MIXES_DIR))


@pytest.mark.parametrize("arrivals", [1000, 4000])
def test_a_week_of_the_scaled_mix_holds_about_the_wanted_arrivals(mix: MixConfig, arrivals: int) -> None:
    assert _arrivals(mix) == pytest.approx(1442, rel=0.1)  # the shipped mix, unscaled
    assert _arrivals(scaled(mix, arrivals=arrivals, seed=1)) == pytest.approx(arrivals, rel=0.1)


def test_only_poisson_rates_are_scaled_all_by_one_factor(mix: MixConfig) -> None:
    result = scaled(mix, arrivals=4000, seed=1)
    before = {c.name: c for c in mix.classes}
    factors = set()
    for after in result.classes:
        if after.arrival.process is ArrivalProcess.POISSON:
            factors.add(round((after.arrival.per_hour or 0) / (before[after.name].arrival.per_hour or 1), 9))
        else:
            assert after == before[after.name]
    (factor,) = factors
    assert factor > 1


def test_fewer_arrivals_than_the_fixed_classes_bring_leaves_no_poisson_arrival(mix: MixConfig) -> None:
    result = scaled(mix, arrivals=0, seed=1)
    assert {c.arrival.per_hour for c in result.classes if c.arrival.process is ArrivalProcess.POISSON} == {0.0}
