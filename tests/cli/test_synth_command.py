"""The synth command as users run it: bad input is one line, exit 2, and old output survives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from config.load import REPO_ROOT


def _run_synth(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.synth", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture
def last_good_output(tmp_path: Path) -> tuple[Path, Path]:
    cdk_out, dist = tmp_path / "cdk.out", tmp_path / "dist"
    for directory in (cdk_out, dist / "dev"):
        directory.mkdir(parents=True)
        (directory / "last-good.txt").write_text("keep me\n")
    return cdk_out, dist


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda t: t.replace("  scheduler_bin_packing: true", "  scheduler_binpacking: true"),
            "cluster.scheduler_binpacking: unknown key (got True)",
        ),
        (
            lambda t: t.replace("    min_size: 2\n", "    min_size: 3\n", 1),
            "gpu_pools[0].min_size: min_size is larger than max_size 2 (got 3)",
        ),
        (
            lambda t: t.replace("[p5.48xlarge]", "[m7i.large]"),
            "gpu_pools[0].instance_types[0]: not a GPU instance type (got 'm7i.large')",
        ),
        (
            lambda t: t.replace(
                "  scheduler_bin_packing: true", "  scheduler_bin_packing: true\n  auto_mode: {enabled: true}"
            ),
            "cluster.auto_mode: EKS Auto Mode brings its own GPU device management",
        ),
        (
            lambda t: t.replace("  control_plane: []", "  control_plane: [GangScheduling]"),
            "feature_gates.control_plane[0]: feature gate was removed in Kubernetes 1.37 (got 'GangScheduling')",
        ),
        (lambda t: t.replace("tags:\n", "tags: [\n"), "line "),
    ],
)
def test_bad_input_is_one_line_and_keeps_last_good_output(
    tmp_path: Path,
    last_good_output: tuple[Path, Path],
    edit: object,
    expected: str,
) -> None:
    cdk_out, dist = last_good_output
    config = tmp_path / "bad.yaml"
    assert callable(edit)
    config.write_text(edit((REPO_ROOT / "environments" / "dev.yaml").read_text()))
    result = _run_synth("--config", str(config), "--cdk-out", str(cdk_out), "--dist", str(dist))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {config}: {expected}") or (expected == "line " and "YAML" in lines[0])
    assert "; fix: " in lines[0]
    assert "Traceback" not in result.stderr
    assert (cdk_out / "last-good.txt").read_text() == "keep me\n"
    assert (dist / "dev" / "last-good.txt").read_text() == "keep me\n"


def test_unknown_environment_lists_the_known_ones() -> None:
    result = _run_synth("--env", "staging")
    assert result.returncode == 2
    from config.load import environment_names

    assert result.stderr == (
        f"error: env: no such environment (got 'staging'); fix: use one of {', '.join(environment_names())} "
        "or pass config=<path>\n"
    )


def test_settings_reference_is_fresh() -> None:
    from cli.settings import reference
    from config.settings_links import SETTINGS_REFERENCE

    committed = (REPO_ROOT / SETTINGS_REFERENCE).read_text(encoding="utf-8")
    assert committed == reference(), "run `make settings`"


def test_failed_deadlock_check_is_one_line_and_keeps_last_good_output(
    tmp_path: Path, last_good_output: tuple[Path, Path]
) -> None:
    cdk_out, dist = last_good_output
    config = tmp_path / "small.yaml"
    text = (REPO_ROOT / "environments" / "dev.yaml").read_text()
    small = text.replace("    min_size: 2\n    max_size: 2\n", "    min_size: 1\n    max_size: 1\n", 1)
    config.write_text(small)  # p5 pool: one node
    result = _run_synth("--config", str(config), "--cdk-out", str(cdk_out), "--dist", str(dist))
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    # Names the pool that shrank in the file given, the run whose gang no longer fits, and the report command.
    assert line.startswith(
        f"error: {config}: gpu_pools[0].max_size: the gang of teams/llm-research/finetune-8b.yaml "
        "(Pods/team-llm-research/finetune-8b-"
    )
    assert line.endswith(f"(full report: make check CONFIG={config})")
    assert (cdk_out / "last-good.txt").read_text() == "keep me\n"
    assert (dist / "dev" / "last-good.txt").read_text() == "keep me\n"
    assert sorted(p.name for p in dist.iterdir()) == ["dev"]  # no staging left behind


def test_render_command_writes_what_the_checked_in_process_render_gives(tmp_path: Path) -> None:
    # The command skips jsii's runtime argument checks and reads runs from --teams; this process keeps the checks.
    from bench.runs import fleet_environment, write_runs
    from charts.render import output_files, render_environment
    from policy.environment.load import load_environment
    from policy.environment.teams import load_team_runs

    teams = write_runs(tmp_path / "teams", count=8)
    config = fleet_environment(tmp_path / "dev-fleet.yaml")  # dev, taking every run of --teams
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.render",
            "--config",
            str(config),
            "--teams",
            str(teams),
            "--dist",
            str(tmp_path / "dist"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    env = load_environment(path=config)
    expected = output_files(env, render_environment(env, team_runs=load_team_runs(env, teams_dir=teams)))
    written = {
        str(p.relative_to(tmp_path / "dist" / "dev")): p.read_text()
        for p in (tmp_path / "dist" / "dev").rglob("*")
        if p.is_file()
    }
    assert written == expected
    assert sum(path.startswith("teams/") for path in written) == 8
