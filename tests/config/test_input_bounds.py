"""Service bounds, acknowledgements, unschedulable runs and run files outside teams/: exact refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from config.errors import ConfigError
from policy.environment.acknowledgements import Acknowledgement, endpoint_risks
from policy.environment.load import load_environment
from policy.environment.teams import load_team_runs, parse_run, unnamed_team_directories
from tests.conftest import env_from
from tests.helpers import env_refusal
from tests.helpers.environments import WORKLOAD_AWARE_GATES, workload_aware_data

RUN = {
    "template": "pytorch",
    "replicas": 2,
    "gpus_per_replica": 8,
    "image": "example/train:1",
    "command": ["train.py"],
}


def test_fails_managed_node_group_above_the_eks_node_limit(dev_data: dict[str, Any]) -> None:
    dev_data["gpu_pools"][0]["max_size"] = 451
    assert env_refusal(dev_data) == (
        "gpu_pools[0].max_size: more than the 450 nodes per managed node group AWS allows "
        "(https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html) (got 451); "
        "fix: split the capacity over more pools"
    )


def test_fails_too_many_public_access_cidrs(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["public_access_cidrs"] = [f"203.0.{i}.0/24" for i in range(41)]
    assert env_refusal(dev_data).startswith(
        "cluster.public_access_cidrs: more than the 40 public endpoint CIDR ranges per cluster AWS allows"
    )


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        ({"aws:owner": "me"}, "tags.aws:owner: the 'aws:' prefix is reserved for AWS (got 'aws:owner'); "),
        ({"AWS:owner": "me"}, "tags.AWS:owner: the 'aws:' prefix is reserved for AWS (got 'AWS:owner'); "),
        ({"k" * 129: "v"}, "tag keys have 1-128 characters"),
        ({"team": "v" * 257}, "tags.team: tag values have at most 256 characters"),
        ({"team": "a;b"}, "tags.team: character ';' is not allowed in tags (got 'a;b'); "),
        ({f"t{i}": "v" for i in range(47)}, "tags: more than 46 tags: AWS allows 50 per resource and the platform"),
    ],
)
def test_fails_tags_aws_would_refuse(dev_data: dict[str, Any], tags: dict[str, str], expected: str) -> None:
    dev_data["tags"] = tags
    assert expected in env_refusal(dev_data)


def test_fails_public_endpoint_open_to_every_address_without_acknowledgement(dev_data: dict[str, Any]) -> None:
    dev_data["cluster"]["public_access_cidrs"] = ["0.0.0.0/0"]
    assert env_refusal(dev_data) == (
        "cluster.public_access_cidrs: the API server endpoint would be open to every address on the internet "
        "(got '0.0.0.0/0'); fix: list the ranges that need access, "
        "or set cluster.acknowledge_public_endpoint_open_to_internet: true"
    )
    dev_data["cluster"]["acknowledge_public_endpoint_open_to_internet"] = True
    assert [(r.acknowledgement, r.text) for r in endpoint_risks(env_from(dev_data))] == [
        (
            Acknowledgement.PUBLIC_ENDPOINT_OPEN_TO_INTERNET,
            "cluster.public_access_cidrs: the API server endpoint of gpu-dev is open to every address on the "
            "internet (0.0.0.0/0); deploying it anyway because cluster.acknowledge_public_endpoint_open_to_internet "
            "is true",
        )
    ]
    assert endpoint_risks(load_environment(name="dev")) == []
    dev_data["cluster"]["endpoint_access"] = "private"  # the ranges would then open nothing: refused
    dev_data["cluster"]["public_access_cidrs"] = []
    dev_data["cluster"]["acknowledge_public_endpoint_open_to_internet"] = False
    assert endpoint_risks(env_from(dev_data)) == []


def test_fails_run_that_claims_no_gpu() -> None:
    env = load_environment(name="dev")
    with pytest.raises(ConfigError) as caught:
        parse_run(env, "vision", "idle", RUN | {"gpus_per_replica": 0})
    assert caught.value.line() == (
        "gpus_per_replica: a pytorch run on GPU capacity that claims no GPU (and no shared_devices) would wait on "
        "tainted GPU nodes it cannot use (got 0); fix: set gpus_per_replica to 1 or more, or add shared_devices"
    )


def _teams(tmp_path: Path) -> Path:
    teams = tmp_path / "teams"
    (teams / "vision").mkdir(parents=True)
    _selected_runs(teams)
    return teams


def _selected_runs(teams: Path) -> None:
    """The run dev selects for llm-research (``platform.teams.llm-research.runs``), so that team loads."""
    from policy.environment.teams import TEAMS_DIR

    (teams / "llm-research").mkdir(parents=True, exist_ok=True)
    (teams / "llm-research" / "finetune-8b.yaml").write_bytes(
        (TEAMS_DIR / "llm-research" / "finetune-8b.yaml").read_bytes()
    )


def test_fails_run_file_that_is_a_symlink(tmp_path: Path) -> None:
    teams = _teams(tmp_path)
    secret = tmp_path / "secret.yaml"
    secret.write_text("aws_secret_access_key: do-not-print\n")
    (teams / "vision" / "run.yaml").symlink_to(secret)
    with pytest.raises(ConfigError) as caught:
        load_team_runs(load_environment(name="dev"), teams_dir=teams)
    assert caught.value.line() == (
        f"{teams}/vision/run.yaml: <file>: run files and team directories may not be symlinks (got 'run.yaml'); "
        "fix: replace the link with the run file itself, under teams/<team>/"
    )
    assert "do-not-print" not in caught.value.line()


def test_fails_team_directory_that_is_a_symlink_outside_teams(tmp_path: Path) -> None:
    teams = tmp_path / "teams"
    teams.mkdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "run.yaml").write_text("template: [\n")
    (teams / "vision").symlink_to(outside)
    _selected_runs(teams)
    with pytest.raises(ConfigError) as caught:
        load_team_runs(load_environment(name="dev"), teams_dir=teams)
    assert caught.value.line() == (
        f"{teams}/vision/run.yaml: <file>: run files and team directories may not be symlinks (got 'vision'); "
        "fix: replace the link with the run file itself, under teams/<team>/"
    )


def test_warns_about_team_directories_no_environment_names(tmp_path: Path) -> None:
    teams = _teams(tmp_path)
    (teams / "visoin").mkdir()
    (teams / "visoin" / "run.yaml").write_text("template: pytorch\n")
    (teams / "empty").mkdir()
    assert unnamed_team_directories(load_environment(name="dev"), teams_dir=teams) == [
        f"{teams}/visoin/: no environment names team 'visoin' under platform.teams; its runs are never rendered"
    ]
    assert unnamed_team_directories(load_environment(name="dev")) == []


def _without_topology_gate(dev_data: dict[str, Any]) -> Any:
    """dev's workload-aware twin without TopologyAwareWorkloadScheduling: native gangs, no gang topology."""
    gates = [g for g in WORKLOAD_AWARE_GATES["dev"] if g != "TopologyAwareWorkloadScheduling"]
    return env_from(workload_aware_data(dev_data, control_plane=gates))


def test_fails_topology_written_in_the_run_that_the_gates_cannot_honour(dev_data: dict[str, Any]) -> None:
    env = _without_topology_gate(dev_data)
    with pytest.raises(ConfigError) as caught:
        parse_run(env, "vision", "zonal", RUN | {"topology": "zone"})
    assert caught.value.line() == (
        "topology: dev cannot honour it: the TopologyAwareWorkloadScheduling gate is off (got 'zone'); "
        "fix: drop topology from the run, or add TopologyAwareWorkloadScheduling to feature_gates.control_plane"
    )


def test_fails_job_form_for_a_template_without_one() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_run(load_environment(name="dev"), "vision", "mpi", RUN | {"template": "mpi", "job": True})
    assert caught.value.line() == (
        "job: dev cannot honour it: the Job form is pytorch only, not mpi (got True); "
        "fix: drop job from the run, or use template: pytorch"
    )


def test_defaulted_and_fallback_settings_are_noted_in_the_summary_and_warned(dev_data: dict[str, Any]) -> None:
    from charts.render import output_files, render_environment
    from config.platform import TeamRun

    env = _without_topology_gate(dev_data)
    runs = [
        TeamRun("vision", "zonal", "teams/vision/zonal.yaml", parse_run(env, "vision", "zonal", RUN)),
        TeamRun(
            "vision", "tree", "teams/vision/tree.yaml", parse_run(env, "vision", "tree", RUN | {"hierarchical": True})
        ),
    ]
    rendered = render_environment(env, team_runs=runs)
    assert rendered.notes == [
        'teams/vision/zonal.yaml: topology: "zone" (default) is not honoured: '
        "the TopologyAwareWorkloadScheduling gate is off",
        'teams/vision/tree.yaml: topology: "zone" (default) is not honoured: '
        "the TopologyAwareWorkloadScheduling gate is off",
        "teams/vision/tree.yaml: hierarchical: true (written in the run) is not honoured: "
        "the CompositePodGroup gate is off",
    ]
    summary = output_files(env, rendered)["SUMMARY.md"]
    assert "## Settings not honoured" in summary
    assert all(f"- {note}" in summary for note in rendered.notes)


def test_fallback_honours_zone_topology_and_notes_what_it_cannot(dev_data: dict[str, Any]) -> None:
    """Without GenericWorkload zone topology is a Pod affinity (honoured, no note); a gang minimum is not."""
    from charts.render import output_files, render_environment
    from config.platform import TeamRun

    env = env_from(dev_data)
    elastic = RUN | {"topology": "zone", "min_replicas": 1, "elastic": True}
    runs = [TeamRun("vision", "zonal", "teams/vision/zonal.yaml", parse_run(env, "vision", "zonal", elastic))]
    rendered = render_environment(env, team_runs=runs)
    assert rendered.notes == [
        "teams/vision/zonal.yaml: min_replicas: 1 (written in the run) is not honoured: without GenericWorkload "
        "there is no gang minimum: the fallback form starts Pods one by one"
    ]
    summary = output_files(env, rendered)["SUMMARY.md"]
    assert f"- {rendered.notes[0]}" in summary
    assert (
        "- vision/zonal: fallback form (no PodGroup): loses the all-or-nothing start and whole-gang preemption; "
        "the zone Pod affinity keeps it in one zone"
    ) in summary
