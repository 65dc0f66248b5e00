"""make deploy's last step: the gates are checked once the cluster is up, and a missing one says so."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from config.files import read_yaml_file
from config.load import REPO_ROOT
from tests.helpers.environments import workload_aware_data
from tests.policy.live.test_kube_context import CI_ARN, kubeconfig
from tests.policy.live.test_verify import eks_cluster

GATES = ["GenericWorkload", "TopologyAwareWorkloadScheduling"]


def _config(tmp_path: Path, gates: list[str]) -> Path:
    data = workload_aware_data(read_yaml_file(REPO_ROOT / "environments" / "ci.yaml"), control_plane=gates, kubelet=())
    path = tmp_path / "ci-workload-aware.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _kubeconfig(tmp_path: Path, cluster: str = CI_ARN) -> Path:
    """A kubeconfig whose current context reaches ``cluster`` (an EKS ARN, as update-kubeconfig writes it)."""
    return kubeconfig(tmp_path / "kubeconfig", current="ci", clusters={"ci": (cluster, "https://127.0.0.1:1")})


def test_missing_acknowledged_gate_fails_the_step_and_says_the_cluster_is_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli.live.verify

    monkeypatch.setattr(cli.live.verify, "connect", lambda path, context: eks_cluster())
    config = _config(tmp_path, GATES)
    code = cli.live.verify.main(["--config", str(config), "--kubeconfig", str(_kubeconfig(tmp_path)), "--after-deploy"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "GenericWorkload" in out and "TopologyAwareWorkloadScheduling" in out
    assert err.strip().splitlines()[-1] == (
        "error: cluster gpu-ci and its capacity are up (nothing was rolled back), but it does not serve what ci "
        "relies on; fix: change what the failed rows say, then make verify ENV=ci"
    )


def test_shipped_environment_relies_on_nothing_the_cluster_lacks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli.live.verify

    kube = eks_cluster()
    monkeypatch.setattr(cli.live.verify, "connect", lambda path, context: kube)
    code = cli.live.verify.main(["--env", "ci", "--kubeconfig", str(_kubeconfig(tmp_path)), "--after-deploy"])
    out, err = capsys.readouterr()
    assert "scheduling.k8s.io/v1beta1" not in out
    assert ("/apis", {}) in kube.asked, "the cluster was read"
    assert not [asked for asked in kube.asked if asked[0].startswith("POST")], "no gate to probe"
    assert "nothing was rolled back" not in err
    assert code == 0, out


def test_a_kubeconfig_of_another_cluster_gets_the_same_line_and_no_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli.live.verify

    kube = eks_cluster()
    monkeypatch.setattr(cli.live.verify, "connect", lambda path, context: kube)
    other = _kubeconfig(tmp_path, "arn:aws:eks:us-east-2:123456789012:cluster/production")
    code = cli.live.verify.main(["--env", "ci", "--kubeconfig", str(other), "--after-deploy"])
    assert code == 0 and kube.asked == []
    assert capsys.readouterr().out.startswith("deployed ci; to check what cluster gpu-ci serves: aws eks")


def test_without_a_kubeconfig_it_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli.live.verify

    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    code = cli.live.verify.main(["--env", "dev", "--after-deploy"])
    assert code == 0
    assert capsys.readouterr().out == (
        "deployed dev; to check what cluster gpu-dev serves: aws eks update-kubeconfig --name gpu-dev "
        "--region us-west-2, then make verify ENV=dev\n"
    )
