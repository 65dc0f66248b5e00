"""Live commands act only on the environment's cluster: a kubeconfig whose context reaches another
cluster is refused in one line before anything is sent, and the first line names the cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from config.errors import ConfigError
from config.load import REPO_ROOT
from policy.environment.load import load_environment
from policy.live.kube_context import cluster_target, names_cluster

CI = load_environment(name="ci")
CI_ARN = "arn:aws:eks:us-east-2:123456789012:cluster/gpu-ci"


class RecordingServer:
    """A loopback HTTP server that records every request and answers 404 (a second, unrelated
    cluster's API server, as far as a client can tell)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        recorded = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                recorded.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404}).encode()
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def writes(self) -> list[tuple[str, str]]:
        return [r for r in self.requests if r[0] != "GET"]


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    recording = RecordingServer()
    recording.thread.start()
    try:
        yield recording
    finally:
        recording.server.shutdown()
        recording.server.server_close()


def kubeconfig(path: Path, *, current: str, clusters: dict[str, tuple[str, str]]) -> Path:
    """A kubeconfig with one context per entry: context name -> (cluster entry name, server)."""
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": current,
        "clusters": [{"name": c, "cluster": {"server": s}} for c, s in clusters.values()],
        "contexts": [{"name": n, "context": {"cluster": c, "user": "someone"}} for n, (c, _) in clusters.items()],
        "users": [{"name": "someone", "user": {"token": "not-a-secret"}}],
    }
    path.write_text(yaml.safe_dump(document))
    return path


def _run(module: str, *args: str, config: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"KUBECONFIG": str(config), "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", module, "--env", "ci", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


LIVE_COMMANDS = {
    "verify": ("cli.live.verify",),
    "smoke": ("cli.live.smoke",),
    "loadtest": ("cli.live.loadtest", "--mix", "ci", "--minutes", "1"),
}


@pytest.mark.parametrize("command", sorted(LIVE_COMMANDS))
def test_fails_live_command_on_a_context_of_another_cluster_and_sends_it_nothing(
    command: str, server: RecordingServer, tmp_path: Path
) -> None:
    config = kubeconfig(tmp_path / "kubeconfig", current="prod", clusters={"prod": ("kind-unrelated", server.url)})
    result = _run(*LIVE_COMMANDS[command], config=config, home=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line == (
        f"error: {config}: context: reaches cluster kind-unrelated at {server.url}, not gpu-ci, the cluster of "
        "environment ci; nothing was sent to it (got 'prod'); fix: run 'aws eks update-kubeconfig --name gpu-ci "
        "--region us-east-2', or pass CONTEXT=<the context of gpu-ci>"
    )
    assert server.writes == []
    assert server.requests == [], "a refused command sends no request at all"


def test_fails_an_explicit_context_of_another_cluster(server: RecordingServer, tmp_path: Path) -> None:
    config = kubeconfig(
        tmp_path / "kubeconfig",
        current="ci",
        clusters={"ci": (CI_ARN, "http://127.0.0.1:9"), "other": ("kind-unrelated", server.url)},
    )
    result = _run("cli.live.smoke", "--context", "other", config=config, home=tmp_path)
    assert result.returncode == 2
    assert "context: reaches cluster kind-unrelated" in result.stderr
    assert server.requests == []


def test_the_first_line_names_the_cluster_a_matching_context_reaches(server: RecordingServer, tmp_path: Path) -> None:
    config = kubeconfig(tmp_path / "kubeconfig", current=CI_ARN, clusters={CI_ARN: (CI_ARN, server.url)})
    result = _run("cli.live.verify", "--json", config=config, home=tmp_path)
    first = result.stderr.splitlines()[0]
    assert first == f"verify: acting on cluster {CI_ARN} (context {CI_ARN}, server {server.url})"
    assert ("GET", "/apis") in server.requests, "the intended cluster is read"
    json.loads(result.stdout)  # stdout stays machine-readable


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gpu-ci", True),
        (CI_ARN, True),
        ("arn:aws:eks:us-east-2:999999999999:cluster/gpu-ci", True),  # ci names no account
        ("arn:aws:eks:us-west-2:123456789012:cluster/gpu-ci", False),  # another region's namesake
        ("arn:aws:eks:us-east-2:123456789012:cluster/gpu-ci-gh1-1", False),
        ("gpu-ci-gh1-1", False),
        ("kind-gpu-ci", False),
    ],
)
def test_a_cluster_is_named_by_its_name_or_its_eks_arn(text: str, expected: bool) -> None:
    assert names_cluster(text, cluster_name="gpu-ci", region="us-east-2", account=None) is expected


def test_the_account_must_match_when_the_environment_names_one() -> None:
    arn = "arn:aws:eks:us-east-2:999999999999:cluster/gpu-ci"
    assert not names_cluster(arn, cluster_name="gpu-ci", region="us-east-2", account="123456789012")
    assert names_cluster(CI_ARN, cluster_name="gpu-ci", region="us-east-2", account="123456789012")


def _config(current: str, contexts: dict[str, str]) -> dict[str, Any]:
    return {
        "current-context": current,
        "contexts": [{"name": n, "context": {"cluster": c}} for n, c in contexts.items()],
        "clusters": [{"name": c, "cluster": {"server": f"https://{c}.example"}} for c in contexts.values()],
    }


def _target(config: dict[str, Any], context: str | None = None) -> str:
    target = cluster_target(
        config, explicit_context=context, cluster_name="gpu-ci", region="us-east-2", account=None, environment="ci"
    )
    return target.context


def test_an_aliased_context_of_the_cluster_is_accepted_and_an_explicit_context_named_for_it() -> None:
    # aws eks update-kubeconfig --alias ci: the context is renamed, the cluster entry keeps the ARN.
    assert _target(_config("ci", {"ci": CI_ARN})) == "ci"
    # A context named for the cluster (a proxy's cluster entry, say) counts only when chosen explicitly.
    proxied = _config("gpu-ci", {"gpu-ci": "local-proxy"})
    assert _target(proxied, "gpu-ci") == "gpu-ci"
    with pytest.raises(ConfigError, match="reaches cluster local-proxy"):
        _target(proxied)


def test_fails_a_missing_context_or_no_current_context() -> None:
    with pytest.raises(ConfigError) as missing:
        _target(_config("ci", {"ci": CI_ARN}), "typo")
    assert missing.value.line() == (
        "context: no such context in the kubeconfig (got 'typo'); fix: use one of ci, or run "
        "'aws eks update-kubeconfig --name gpu-ci --region us-east-2'"
    )
    with pytest.raises(ConfigError, match="the kubeconfig has no current context"):
        _target({"contexts": []})
