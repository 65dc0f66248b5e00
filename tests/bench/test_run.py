"""The benchmark report: its lines, the fleet growth figures, the commands it times, its options."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import run
from bench.measure import Sample


def _sample(seconds: float, cpu: float = 1.0) -> Sample:
    return Sample(
        seconds=seconds,
        command_seconds=seconds - 0.5,
        cpu_seconds=cpu,
        main_rss_mib=300,
        helper_rss_mib=900,
        processes=3,
    )


def test_a_line_gives_the_median_range_cpu_exit_and_memory() -> None:
    line = run._line("synth dev", [_sample(3.0, 2.0), _sample(1.0, 1.0), _sample(2.0, 4.0)])
    assert line == (
        "synth dev                         2.00 s  [1.00-3.00]  (CPU 2.00 s; command exits at 1.50 s;"
        " peak RSS command 300 MiB, largest child 900 MiB)"
    )


def test_linear_fleet_growth_reads_one(capsys: pytest.CaptureFixture[str]) -> None:
    run._growth("render (wall)", {50: 1.0, 200: 4.0, 2000: 40.0})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "render (wall)    per run   50:  20.0 ms  200:  20.0 ms  2000:  20.0 ms"
    assert lines[1] == "render (wall)    marginal  50->200:  20.0 ms  200->2000:  20.0 ms"
    assert lines[2] == (
        "render (wall)    growth    per run 2000 / 200 = 1.00x; marginal 200->2000 / 50->200 = 1.00x"
        "  (1.00x = linear; target <= 1.1x)"
    )


def test_superlinear_growth_shows_in_both_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    run._growth("check (CPU)", {50: 1.0, 200: 4.0, 2000: 80.0})
    growth = capsys.readouterr().out.splitlines()[2]
    assert "per run 2000 / 200 = 2.00x; marginal 200->2000 / 50->200 = 2.11x" in growth


def test_without_the_200_run_size_no_growth_line_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    run._growth("render (wall)", {50: 1.0, 2000: 40.0})
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_every_review_and_synth_command_is_timed_with_its_output_in_the_run_directory(tmp_path: Path) -> None:
    commands = run._commands("/py", tmp_path)
    assert commands["synth dev"] == [
        "/py",
        "-m",
        "cli.synth",
        "--cdk-out",
        str(tmp_path / "cdk.out"),
        "--dist",
        str(tmp_path / "dist"),
    ]
    assert commands["cdk8s floor (one DeviceClass)"] == ["/py", "-m", "bench.one_object_chart", str(tmp_path / "floor")]
    assert commands["bare eks-v2 cluster"] == ["/py", "-m", "bench.bare_cluster"]
    assert commands[run.CDK_APP_NAME][1:] == [f"CDK_OUTDIR={tmp_path / 'cdk-app.out'}", "/py", str(run.ROOT / "app.py")]
    fleet = run._fleet_commands("/py", tmp_path, tmp_path / "teams", 200)
    assert fleet["check 200"] == [
        "/py",
        "-m",
        "cli.check",
        "--config",
        str(tmp_path / "dev-fleet.yaml"),
        "--teams",
        str(tmp_path / "teams"),
    ]


def test_the_js_peer_is_skipped_with_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "JS_PEER", tmp_path)
    assert run._js_peer_command() == {}
    assert "npm ci --prefix bench/js_peer" in capsys.readouterr().out
    (tmp_path / "node_modules").mkdir()
    monkeypatch.setattr(run.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert run._js_peer_command() == {run.JS_PEER_NAME: ["/usr/bin/node", str(tmp_path / "app.js")]}


def test_only_fleet_and_only_review_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run.main(["--only-fleet", "--only-review"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
