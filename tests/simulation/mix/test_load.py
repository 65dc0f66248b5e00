"""Mixes and traces: the shipped ones load, sampling is deterministic, bad input is one exact line."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from config.errors import ConfigError
from policy.environment.load import load_environment
from simulation.mix.load import MIXES_DIR, load_mix, mix_names, parse_mix
from simulation.mix.sample import sample_jobs
from simulation.mix.trace import read_trace
from tests.conftest import EXAMPLE_ENVIRONMENTS

WEEK = 168 * 3600
BASE: dict[str, Any] = {
    "classes": [
        {
            "name": "train",
            "team": "llm-research",
            "replicas": 3,
            "device_class": "h100-80gb",
            "duration": {"distribution": "fixed", "minutes": 60},
            "arrival": {"process": "poisson", "per_hour": 1},
        }
    ]
}


def dev() -> Any:
    return load_environment(name="dev")


def mix_with(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data["classes"][0].update(changes)
    return data


def error_line(data: Any) -> str:
    with pytest.raises(ConfigError) as error:
        parse_mix(dev(), data)
    return error.value.line()


@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_every_example_environment_ships_a_mix_that_loads(name: str) -> None:
    assert name in mix_names()
    env = load_environment(name=name)
    mix = load_mix(env, name=name)
    jobs = sample_jobs(env, mix, seed=1, horizon_seconds=mix.hours * 3600, mix_dir=MIXES_DIR)
    assert jobs
    assert [j.arrival_seconds for j in jobs] == sorted(j.arrival_seconds for j in jobs)


def test_sampling_is_deterministic_per_seed_and_per_class() -> None:
    env = dev()
    mix = load_mix(env, name="dev")
    first = sample_jobs(env, mix, seed=7, horizon_seconds=WEEK, mix_dir=MIXES_DIR)
    assert first == sample_jobs(env, mix, seed=7, horizon_seconds=WEEK, mix_dir=MIXES_DIR)
    assert first != sample_jobs(env, mix, seed=8, horizon_seconds=WEEK, mix_dir=MIXES_DIR)
    # A class's draws do not depend on the other classes.
    alone = mix.model_copy(update={"classes": mix.classes[1:2], "team_runs": False})
    only = [j for j in first if j.job_class == mix.classes[1].name]
    assert sample_jobs(env, alone, seed=7, horizon_seconds=WEEK, mix_dir=MIXES_DIR) == only


def test_team_runs_are_standing_load_from_the_start() -> None:
    env = dev()
    mix = parse_mix(env, {**copy.deepcopy(BASE), "team_runs": True})
    standing = [
        j for j in sample_jobs(env, mix, seed=1, horizon_seconds=WEEK, mix_dir=MIXES_DIR) if j.duration_seconds is None
    ]
    assert {j.job_class for j in standing} == {"team-run/llm-research", "team-run/vision"}
    finetune = next(j for j in standing if j.name.startswith("finetune-8b-"))
    assert len(finetune.required) == 2 and finetune.tier.value == "standard"


def test_arrival_processes_and_choices() -> None:
    env = dev()
    data = {
        "team_runs": False,
        "classes": [
            {**BASE["classes"][0], "name": "burst", "arrival": {"process": "burst", "count": 3, "start_minutes": 5}},
            {
                **BASE["classes"][0],
                "name": "nightly",
                "arrival": {"process": "schedule", "every_minutes": 1440, "start_minutes": 60},
            },
            {**BASE["classes"][0], "name": "sizes", "replicas": {"choices": [1, 3], "weights": [1, 3]}},
        ],
    }
    jobs = sample_jobs(env, parse_mix(env, data), seed=1, horizon_seconds=WEEK, mix_dir=MIXES_DIR)
    assert [j.arrival_seconds for j in jobs if j.job_class == "burst"] == [300.0] * 3
    assert [j.arrival_seconds / 3600 for j in jobs if j.job_class == "nightly"] == [1 + 24 * d for d in range(7)]
    sizes = [len(j.required) for j in jobs if j.job_class == "sizes"]
    assert set(sizes) == {1, 3} and sizes.count(3) > sizes.count(1)  # replicas: the Pods of the gang


def test_fails_unknown_key() -> None:
    assert error_line(mix_with(gpus=8)).startswith(
        "classes[0].gpus: unknown key (got 8); fix: remove it or use one of: "
    )


def test_fails_duration_missing_its_parameter() -> None:
    line = error_line(mix_with(duration={"distribution": "lognormal", "median_minutes": 60}))
    assert line == "classes[0].duration.sigma: required for lognormal (got nothing); fix: add 'sigma'"


def test_fails_duration_parameter_of_another_distribution() -> None:
    line = error_line(mix_with(duration={"distribution": "fixed", "minutes": 60, "mean_minutes": 30}))
    assert (
        line == "classes[0].duration.mean_minutes: not used by fixed (got 30.0); fix: remove it (fixed takes minutes)"
    )


def test_fails_uniform_bounds_reversed() -> None:
    line = error_line(mix_with(duration={"distribution": "uniform", "min_minutes": 60, "max_minutes": 30}))
    assert (
        line
        == "classes[0].duration.max_minutes: not above min_minutes 60 (got 30.0); fix: set max_minutes > min_minutes"
    )


def test_fails_arrival_missing_its_parameter() -> None:
    line = error_line(mix_with(arrival={"process": "schedule"}))
    assert line == "classes[0].arrival.every_minutes: required for schedule (got nothing); fix: add 'every_minutes'"


def test_fails_weights_not_matching_choices() -> None:
    line = error_line(mix_with(replicas={"choices": [1, 2], "weights": [1]}))
    assert (
        line
        == "classes[0].replicas.weights: 1 weights for 2 choices (got [1.0]); fix: give one weight per choice, or none"
    )


def test_fails_unknown_team() -> None:
    line = error_line(mix_with(team="nobody"))
    assert line == (
        "classes[0].team: no such team in dev (teams: llm-research, vision) (got 'nobody'); "
        "fix: name a team of platform.teams, or drop team"
    )


def test_fails_tier_not_granted_to_the_team() -> None:
    line = error_line(mix_with(team="vision", tier="deadline"))
    assert line == (
        "classes[0].tier: tier is not granted to team vision (got 'deadline'); "
        "fix: use one of standard, opportunistic or grant it under platform.teams.vision.tiers"
    )


def test_fails_device_class_not_published() -> None:
    line = error_line(mix_with(device_class="b200"))
    assert line == (
        "classes[0].device_class: DeviceClass is not published in environment dev (got 'b200'); "
        "fix: use one of h100-80gb, l4, hopper-or-newer, mig-1g-10gb"
    )


def test_fails_elastic_minimum_above_a_drawn_size() -> None:
    line = error_line(mix_with(replicas={"choices": [2, 4]}, min_replicas=3, elastic=True))
    assert (
        line
        == "classes[0].min_replicas: min_replicas is larger than replicas 2 (got 3); fix: set min_replicas <= replicas"
    )


def test_fails_duplicate_class_names() -> None:
    data = copy.deepcopy(BASE)
    data["classes"].append(copy.deepcopy(data["classes"][0]))
    assert error_line(data) == "classes[1].name: class names must be unique (got 'train'); fix: rename one of them"


def test_fails_window_on_a_pool_that_is_not_a_capacity_block() -> None:
    data = {**BASE, "capacity_block_windows": [{"pool": "h100", "start_hours": 1, "end_hours": 2}]}
    line = error_line(data)
    assert line == (
        "capacity_block_windows[0].pool: pool is not a Capacity Block (capacity.type: capacity_block) (got 'h100'); "
        "fix: drop the window"
    )


def test_fails_window_on_an_unknown_pool() -> None:
    data = {**BASE, "capacity_block_windows": [{"pool": "tpu", "start_hours": 1, "end_hours": 2}]}
    assert (
        error_line(data)
        == "capacity_block_windows[0].pool: no such GPU pool in dev (got 'tpu'); fix: use one of h100, l4"
    )


def test_fails_window_ending_before_it_starts() -> None:
    env = load_environment(name="prod-example")
    data = {"capacity_block_windows": [{"pool": "h200-block", "start_hours": 5, "end_hours": 2}]}
    with pytest.raises(ConfigError) as error:
        parse_mix(env, data)
    assert error.value.line() == (
        "capacity_block_windows[0].end_hours: the block ends before it starts (start_hours 5) (got 2.0); "
        "fix: set end_hours > start_hours"
    )


def test_fails_mix_file_names_the_file(tmp_path: Path) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(yaml.safe_dump(mix_with(tier="urgent")))
    with pytest.raises(ConfigError) as error:
        load_mix(dev(), path=file)
    assert error.value.line().startswith(
        f"{file}: classes[0].tier: not an allowed value (got 'urgent'); fix: use one of "
    )


def test_fails_unknown_mix_name() -> None:
    with pytest.raises(ConfigError) as error:
        load_mix(dev(), name="nope")
    assert (
        error.value.line()
        == f"mix: no such mix (got 'nope'); fix: use one of {', '.join(mix_names())} or pass a path to a file"
    )


HEADER = "submit_time,duration_minutes,gpus,gpu_model,priority\n"


def trace(tmp_path: Path, *lines: str) -> Path:
    file = tmp_path / "trace.csv"
    file.write_text(HEADER + "".join(line + "\n" for line in lines))
    return file


def test_trace_rows_become_gangs_shifted_to_the_start(tmp_path: Path) -> None:
    rows = read_trace(
        dev(),
        trace(
            tmp_path,
            "2026-11-02T09:00:00Z,60,16,H100-80GB,gpu-deadline",
            "2026-11-02T08:00:00+00:00,30,4,L4,opportunistic",
        ),
    )
    assert [
        (r.submit_seconds, r.duration_seconds, r.pods, r.gpus_per_pod, r.device_class.value, r.tier.value) for r in rows
    ] == [
        (3600.0, 3600.0, 2, 8, "h100-80gb", "deadline"),
        (0.0, 1800.0, 1, 4, "l4", "opportunistic"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "yesterday,60,8,H100-80GB,standard",
            (
                "line 2.submit_time: not an ISO 8601 time with a zone (got 'yesterday'); "
                "fix: write e.g. 2026-11-02T08:00:00Z"
            ),
        ),
        (
            "2026-11-02T08:00:00Z,0,8,H100-80GB,standard",
            "line 2.duration_minutes: not a positive number of minutes (got '0'); fix: write e.g. 90",
        ),
        (
            "2026-11-02T08:00:00Z,60,12,H100-80GB,standard",
            "line 2.gpus: not 1-8 or a multiple of 8 (got '12'); fix: round to whole nodes",
        ),
        (
            "2026-11-02T08:00:00Z,60,8,B200,standard",
            (
                "line 2.gpu_model: its DeviceClass b200 is not published in dev (got 'B200'); "
                "fix: add it to platform.device_classes, or drop the line"
            ),
        ),
        (
            "2026-11-02T08:00:00Z,60,8,H100-80GB,urgent",
            (
                "line 2.priority: unknown priority (got 'urgent'); "
                "fix: use one of critical, deadline, gpu-critical, gpu-deadline, gpu-opportunistic, "
                "gpu-standard, opportunistic, standard"
            ),
        ),
        (
            "2026-11-02T08:00:00Z,60,8",
            (
                "line 2: 3 columns (got '2026-11-02T08:00:00Z,60,8'); "
                "fix: give 5: submit_time,duration_minutes,gpus,gpu_model,priority"
            ),
        ),
    ],
)
def test_fails_bad_trace_row(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        read_trace(dev(), trace(tmp_path, line))
    assert error.value.line() == message


def test_fails_trace_without_header(tmp_path: Path) -> None:
    file = tmp_path / "t.csv"
    file.write_text("a,b\n")
    with pytest.raises(ConfigError) as error:
        read_trace(dev(), file)
    assert error.value.line() == (
        "line 1: not the trace header (got 'a,b'); fix: start with submit_time,duration_minutes,gpus,gpu_model,priority"
    )
