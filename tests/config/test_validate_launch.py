"""The launch rules the run files share: flags the platform owns, and processes per Pod."""

from __future__ import annotations

from config.platform import RunConfig
from config.validate_launch import owned_flags, processes_per_pod


def _run(**fields: object) -> RunConfig:
    return RunConfig.model_validate(
        {"template": "pytorch", "replicas": 2, "gpus_per_replica": 4, "image": "example/train:1", **fields}
    )


def test_flags_the_platform_sets_are_found_in_either_form() -> None:
    command = ("torchrun", "--nnodes=4", "--rdzv-endpoint", "x:29400", "train.py", "--nnodesx")
    assert owned_flags(command, ("--nnodes", "--rdzv-endpoint")) == ["--nnodes=4", "--rdzv-endpoint"]
    assert owned_flags(("python", "train.py"), ("--nnodes",)) == []


def test_one_process_per_gpu_unless_the_team_says_otherwise() -> None:
    assert processes_per_pod(_run()) == 4
    assert processes_per_pod(_run(processes_per_pod=2)) == 2
