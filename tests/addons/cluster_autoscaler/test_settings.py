"""The ``cluster_autoscaler`` section of an environment file: defaults, bounds, unknown keys."""

from __future__ import annotations

from typing import Any

import pytest

from addons.cluster_autoscaler.pin import CLUSTER_AUTOSCALER_VERSION
from addons.cluster_autoscaler.settings import ClusterAutoscalerConfig
from tests.helpers import env_from, env_refusal


def test_defaults_run_the_pinned_release_unacknowledged() -> None:
    config = ClusterAutoscalerConfig()
    assert config.version == CLUSTER_AUTOSCALER_VERSION == "1.36.1"
    assert (config.acknowledge_unverified_release, config.acknowledge_version_skew) == (False, False)
    assert config.scale_down_unneeded_minutes == 10


@pytest.mark.parametrize("minutes", [1, 1440])
def test_scale_down_time_accepts_its_bounds(dev_data: dict[str, Any], minutes: int) -> None:
    dev_data["cluster_autoscaler"]["scale_down_unneeded_minutes"] = minutes
    assert env_from(dev_data).cluster_autoscaler.scale_down_unneeded_minutes == minutes


@pytest.mark.parametrize(
    ("minutes", "problem"),
    [(0, "less than 1 (got 0)"), (1441, "more than 1440 (got 1441)")],
)
def test_scale_down_time_outside_a_day_is_refused(dev_data: dict[str, Any], minutes: int, problem: str) -> None:
    dev_data["cluster_autoscaler"]["scale_down_unneeded_minutes"] = minutes
    assert env_refusal(dev_data) == (
        f"cluster_autoscaler.scale_down_unneeded_minutes: {problem}; fix: use a whole number from 1 to 1440"
    )


def test_unknown_key_is_refused_with_the_known_ones(dev_data: dict[str, Any]) -> None:
    dev_data["cluster_autoscaler"]["expander"] = "random"
    assert env_refusal(dev_data) == (
        "cluster_autoscaler.expander: unknown key (got 'random'); fix: remove it or use one of: "
        "acknowledge_unverified_release, acknowledge_version_skew, scale_down_unneeded_minutes, version"
    )
