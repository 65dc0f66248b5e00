"""dev costs what a development cluster costs, and SUMMARY.md says what runs around the clock."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.prices import ON_DEMAND_USD_PER_HOUR
from charts.summary import always_on_cost
from config.errors import ConfigError
from policy.environment.load import load_environment
from policy.environment.teams import load_team_runs
from tests.conftest import EXAMPLE_ENVIRONMENTS, env_from


def test_dev_keeps_a_few_gpu_nodes_up() -> None:
    nodes, price, unpriced = always_on_cost(load_environment(name="dev"))
    assert (nodes, unpriced) == (3, ())
    assert price == pytest.approx(2 * ON_DEMAND_USD_PER_HOUR["p5.48xlarge"] + ON_DEMAND_USD_PER_HOUR["g6.12xlarge"])


def test_prod_example_is_sized_for_the_big_runs() -> None:
    env = load_environment(name="prod-example")
    nodes, _, _ = always_on_cost(env)
    assert nodes > 32
    assert "pretrain-70b" in {r.name for r in load_team_runs(env)}


def test_dev_renders_only_the_runs_sized_for_it() -> None:
    runs = {f"{r.team}/{r.name}" for r in load_team_runs(load_environment(name="dev"))}
    assert "llm-research/pretrain-70b" not in runs
    assert "llm-research/finetune-8b" in runs


@pytest.mark.parametrize("env", EXAMPLE_ENVIRONMENTS)
def test_every_shipped_gpu_type_has_a_price(env: str) -> None:
    assert always_on_cost(load_environment(name=env))[2] == ()


def test_fails_selecting_a_run_that_does_not_exist(dev_data: dict[str, Any]) -> None:
    dev_data["platform"]["teams"]["vision"]["runs"] = ["detector-sweep", "no-such-run"]
    env = env_from(dev_data)
    with pytest.raises(ConfigError) as caught:
        load_team_runs(env)
    assert caught.value.line() == (
        "platform.teams.vision.runs[1]: there is no run file teams/vision/no-such-run.yaml (got 'no-such-run'); "
        "fix: list runs that exist (here: detector-sweep, embedding-service), or add the run file"
    )
