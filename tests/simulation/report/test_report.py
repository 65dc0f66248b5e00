"""The report: exporter metric names and labels, same seed same bytes, and the command's exits."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from catalog.priority_tiers import Tier
from cli import simulate as simulate_cli
from config.load import REPO_ROOT
from observability.rules import ALLOCATION_FAILURES_TOTAL, GROUP_BY, PENDING_GROUPS, PREEMPTIONS_TOTAL
from policy.environment.load import load_environment
from simulation.engine.event_loop import PREEMPTION_EPISODE_SECONDS, Mode, Simulation
from simulation.mix.load import MIXES_DIR, load_mix
from simulation.report.markdown import report_markdown
from simulation.report.measure import ALLOCATABLE_GPUS, GROUP_LABELS, TIME_TO_SCHEDULED, measurements
from simulation.whatif import REPORT_JSON, REPORT_MD, what_if, write_report
from tests.simulation.scenario import cluster, environment, gang, h100_pool


def test_metric_names_and_labels_are_the_exporters() -> None:
    collector = pytest.importorskip("exporter.gang_exporter.collector")
    assert collector.TIME_TO_SCHEDULED == TIME_TO_SCHEDULED
    assert collector.PENDING_GROUPS == PENDING_GROUPS
    assert f"{collector.PREEMPTIONS}_total" == PREEMPTIONS_TOTAL
    assert f"{collector.ALLOCATION_FAILURES}_total" == ALLOCATION_FAILURES_TOTAL
    assert collector.ALLOCATABLE_GPUS == ALLOCATABLE_GPUS
    assert collector.GROUP_LABELS == GROUP_LABELS == tuple(GROUP_BY.split(", "))
    state = pytest.importorskip("exporter.gang_exporter.state")
    episode = inspect.signature(state.GangState).parameters["preemption_episode_seconds"].default
    assert episode == PREEMPTION_EPISODE_SECONDS  # one preemption per episode, counted alike


def report_for(seed: int, hours: float = 24) -> dict[str, object]:
    env = load_environment(name="dev")
    mix = load_mix(env, name="dev")
    return what_if(env, mix, mix_name="dev", mix_dir=MIXES_DIR, seed=seed, hours=hours)


def test_report_rows_carry_the_exporters_labels() -> None:
    report = report_for(1)
    gang = report["modes"]["gangs"]  # type: ignore[index]
    assert {r["priority_class"] for r in gang[TIME_TO_SCHEDULED]} <= {
        "gpu-deadline",
        "gpu-standard",
        "gpu-opportunistic",
    }
    for row in gang[PREEMPTIONS_TOTAL]["groups"]:
        assert set(row) == {*GROUP_LABELS, "value"}
    assert all(r["device_class"].endswith(".gpu-platform.io") for r in gang[ALLOCATION_FAILURES_TOTAL])
    assert {tuple(sorted(s)) for s in gang[ALLOCATABLE_GPUS]["series"]} == {
        ("gpu_model", "instance_type", "max", "values", "zone")
    }


def test_same_seed_same_report_bytes(tmp_path: Path) -> None:
    first = write_report(report_for(3), tmp_path / "a")
    second = write_report(report_for(3), tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert report_for(3) != report_for(4)


def test_report_embeds_its_plots(tmp_path: Path) -> None:
    written = write_report(report_for(1, hours=6), tmp_path)
    markdown = (tmp_path / REPORT_MD).read_text()
    assert "{'" not in markdown  # every cell a value, never a row's dict
    for png in (p for p in written if p.suffix == ".png"):
        assert f"]({png.name})" in markdown
        assert png.read_bytes().startswith(b"\x89PNG")
    assert json.loads((tmp_path / REPORT_JSON).read_text())["title"]["hours"] == 6


def test_simulate_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_cli.main(["--env", "ci", "--mix", "ci", "--hours", "2", "--out", str(tmp_path), "--quiet"]) == 0
    assert (tmp_path / REPORT_MD).is_file()
    assert capsys.readouterr().out.startswith("simulate ci/ci seed 1: ")


def test_fails_simulate_unknown_mix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_cli.main(["--env", "dev", "--mix", "nope", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: mix: no such mix (got 'nope'); fix: use one of ")
    assert not any(tmp_path.iterdir())


def test_fails_simulate_mix_of_another_environment(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_cli.main(["--env", "ci", "--mix", "dev", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "error: mixes/dev.yaml: classes[0].team: no such team in ci (teams: platform-smoke) (got 'llm-research'); "
        "fix: name a team of platform.teams, or drop team\n"
    )


def test_fails_simulate_hours_not_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_cli.main(["--env", "ci", "--hours", "0", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "error: --hours: not a positive number of hours (got 0.0); fix: pass e.g. HOURS=24\n"
    )


def test_committed_example_report_is_fresh(tmp_path: Path) -> None:
    """``docs/simulation/dev/`` is ``make simulate ENV=dev MIX=dev HOURS=48`` (regenerate with ``ARGS=--out ...``)."""
    committed = REPO_ROOT / "docs" / "simulation" / "dev"
    for path in write_report(report_for(1, hours=48), tmp_path):
        if path.suffix == ".png":
            continue  # pixels depend on the font rasteriser; the numbers behind them are in report.json
        assert path.read_bytes() == (committed / path.name).read_bytes(), f"regenerate {path.name}"


def scenario_report(hours: float = 48) -> dict[str, object]:
    """Four nodes held from the start by a standing 4-node gang; a second 4-node gang of the same tier
    created at one hour never starts; a 2-node deadline run at two hours evicts two opportunistic pods'
    worth only in the baseline."""
    env = environment([h100_pool(min_size=2, max_size=2)])
    jobs = [
        gang("holder", 4, zone=False, minutes=None),
        gang("late", 4, zone=False, at_minutes=60),
    ]
    modes = {
        mode.value: measurements(Simulation(cluster(env), jobs, mode=mode, horizon_seconds=hours * 3600).run())
        for mode in (Mode.GANG, Mode.POD)
    }
    title = {"environment": "scenario", "mix": "scenario", "seed": 1, "hours": hours, "command": "simulation"}
    return {"title": title, "modes": modes}


def test_waits_of_gangs_that_never_started_are_censored_at_the_horizon() -> None:
    report = scenario_report()
    (row,) = report["modes"]["gangs"][TIME_TO_SCHEDULED]  # type: ignore[index]
    assert row == {
        "priority_class": "gpu-standard",
        "groups": 2,
        "scheduled": 1,
        "never_started": 1,
        "p50": 0.0,
        "p50_at_least": False,
        "p95": 47 * 3600.0,
        "p95_at_least": True,
        "max": 47 * 3600.0,
        "max_at_least": True,
    }
    markdown = report_markdown(report)
    assert "| gpu-standard | gangs | 2 | 1 | 1 | 0.0 min | ≥ 47.0 h | ≥ 47.0 h |" in markdown
    assert "| gpu-standard | baseline | 2 | 1 | 1 | 0.0 min | ≥ 47.0 h | ≥ 47.0 h |" in markdown


def test_report_json_holds_each_gang() -> None:
    report = scenario_report()
    holder, late = report["modes"]["baseline"]["podgroups"]  # type: ignore[index]
    assert {k: holder[k] for k in ("podgroup", "arrival_seconds", "scheduled_seconds", "completed_seconds")} == {
        "podgroup": "holder",
        "arrival_seconds": 0.0,
        "scheduled_seconds": 0.0,
        "completed_seconds": None,
    }
    assert (holder["pods"], holder["most_pods_held"], holder["pods_held_at_end"], holder["preemptions"]) == (4, 4, 4, 0)
    assert (late["wait_seconds"], late["wait_at_least"], late["never_started"]) == (47 * 3600.0, True, "capacity-busy")
    assert (late["most_pods_held"], late["pods_held_at_end"]) == (0, 0)
    assert set(holder) >= {*GROUP_LABELS, "preempted_pods", "interruptions", "gpus", "last_started_seconds"}
    assert (holder["starts"], late["starts"], late["last_started_seconds"]) == (1, 0, None)


def test_one_name_per_run_in_json_tables_and_plots(tmp_path: Path) -> None:
    report = scenario_report(hours=4)
    assert {key: data["mode"] for key, data in report["modes"].items()} == {  # type: ignore[attr-defined]
        "gangs": "gangs",
        "baseline": "baseline",
    }
    markdown = report_markdown(report)
    rows = [line.split(" | ") for line in markdown.splitlines() if line.startswith("| gpu-standard | ")]
    schedulers = {row[1] for row in rows if len(row) == 8}  # the wait table's rows
    assert schedulers == {"gangs", "baseline"}
    assert "preemptions (baseline)" in markdown and "| baseline | 2 |" in markdown
    assert "| pod |" not in markdown and "(pod)" not in markdown and "per-pod baseline" not in markdown
    write_report(report, tmp_path)
    assert json.loads((tmp_path / REPORT_JSON).read_text())["modes"].keys() == {"gangs", "baseline"}


def test_baseline_preemptions_are_counted_per_episode_in_their_own_column() -> None:
    env = environment([h100_pool(min_size=2, max_size=2)])
    jobs = [
        gang("low", 4, tier=Tier.OPPORTUNISTIC, zone=False, minutes=120),
        gang("high", 2, tier=Tier.DEADLINE, zone=False, at_minutes=30),
    ]
    modes = {
        mode.value: measurements(Simulation(cluster(env), jobs, mode=mode, horizon_seconds=6 * 3600).run())
        for mode in (Mode.GANG, Mode.POD)
    }
    title = {"environment": "scenario", "mix": "scenario", "seed": 1, "hours": 6, "command": "simulation"}
    markdown = report_markdown({"title": title, "modes": modes})
    header = (
        "| priority_class | groups | preemptions (gangs) | preemptions (baseline) | preempted_pods (gangs) | "
        "preempted_pods (baseline) | groups_preempted (gangs) | groups_preempted (baseline) | "
        "max_per_group (gangs) | max_per_group (baseline) |"
    )
    assert header in markdown
    assert "| gpu-opportunistic | 1 | 1 | 1 | 4 | 2 | 1 | 1 | 1 | 1 |" in markdown


def test_a_labelled_report_uses_its_labels_everywhere(tmp_path: Path) -> None:
    """A load test's report names its runs ``live cluster`` and ``simulation``: tables and plots say so."""
    report = scenario_report(hours=4)
    modes = report["modes"]  # type: ignore[index]
    labelled = {**report, "labels": {"gang": "live cluster", "pod": "simulation"}}
    labelled["modes"] = {"gang": modes["gangs"], "pod": modes["baseline"]}
    markdown = report_markdown(labelled)
    assert "| gpu-standard | live cluster | 2 | 1 | 1 |" in markdown
    assert "| gpu-standard | simulation | 2 | 1 | 1 |" in markdown
    assert "preemptions (simulation)" in markdown and "| gangs |" not in markdown
    assert [p.suffix for p in write_report(labelled, tmp_path)].count(".png") == 3
