"""``make control-plane``'s command line: the two configurations and nothing else."""

from __future__ import annotations

import pytest

from control_plane.__main__ import parse_args


def test_the_configuration_defaults_to_eks_and_takes_workload_aware() -> None:
    assert parse_args([]).config == "eks"
    assert parse_args(["--config", "workload-aware"]).config == "workload-aware"
    assert parse_args(["--build-only"]).build_only


def test_another_configuration_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args(["--config", "kind"])
    assert exited.value.code == 2
    assert "invalid choice: 'kind'" in capsys.readouterr().err
