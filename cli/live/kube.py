"""A thin JSON-over-HTTP layer on the ``kubernetes`` client, for verify and the smoke test.

Paths and bodies are plain API paths and dicts (what ``kubectl get --raw`` shows), so the
decisions in ``policy/`` work on the same documents tests record.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from config.errors import ConfigError
from config.model import EnvironmentConfig
from policy.live.kube_context import ClusterTarget, cluster_target

Json = dict[str, Any]


def add_cluster_args(parser: argparse.ArgumentParser) -> None:
    """``--kubeconfig`` and ``--context``: which cluster a command talks to."""
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
    parser.add_argument(
        "--context", help="kubeconfig context (default: the current one); must reach the environment's cluster"
    )


def find_kubeconfig(explicit: str | None, environ: Mapping[str, str], home: Path) -> Path | None:
    """``--kubeconfig``, else the first existing file of ``$KUBECONFIG``, else ``~/.kube/config``."""
    if explicit:
        return Path(explicit)
    for candidate in environ.get("KUBECONFIG", "").split(os.pathsep):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    default = home / ".kube" / "config"
    return default if default.is_file() else None


def kubeconfig_or_skip(explicit: str | None, *, command: str) -> Path | None:
    """The kubeconfig a live-cluster command uses, or ``None`` after printing the one line that says the
    command skipped (exit 0: without a cluster there is nothing to test)."""
    kubeconfig = find_kubeconfig(explicit, os.environ, Path.home())
    if kubeconfig is None or not kubeconfig.is_file():
        where = kubeconfig or "--kubeconfig, $KUBECONFIG or ~/.kube/config"
        print(f"{command}: skipped: no kubeconfig at {where}, so there is no cluster to test")
        return None
    return kubeconfig


def read_kubeconfig(path: Path) -> dict[str, Any]:
    """The kubeconfig as data, or one ``ConfigError`` naming the file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        problem = " ".join(str(error).split())[:120]
        raise ConfigError(
            "<file>", str(path), f"unreadable kubeconfig ({problem})", "point KUBECONFIG at a kubeconfig"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("<file>", str(path), "a kubeconfig is a mapping", "point KUBECONFIG at a kubeconfig")
    return data


def target_cluster(kubeconfig: Path, *, context: str | None, env: EnvironmentConfig, command: str) -> ClusterTarget:
    """The context ``command`` may use: one whose cluster is ``env``'s (``policy.live.kube_context``).

    Decided from the kubeconfig file alone, before any connection: a refused command has sent
    nothing to any server. Prints the cluster it will act on, on stderr (stdout may be JSON),
    as the command's first line; raises ``ConfigError`` (source: the kubeconfig) to refuse.
    """
    try:
        target = cluster_target(
            read_kubeconfig(kubeconfig),
            explicit_context=context or None,
            cluster_name=env.cluster.name,
            region=env.region,
            account=env.account,
            environment=env.name,
        )
    except ConfigError as error:
        raise error.with_source(str(kubeconfig)) from None
    print(target.line(command), file=sys.stderr, flush=True)
    return target


class KubeApi:
    """GET/POST/DELETE raw API paths through a configured ``kubernetes.client.ApiClient``."""

    def __init__(self, api_client: Any) -> None:
        self._client = api_client

    def request(
        self, method: str, path: str, *, body: Json | None = None, query: Mapping[str, str] | None = None
    ) -> Json:
        response = self._client.call_api(
            path,
            method,
            query_params=list((query or {}).items()),
            header_params={"Accept": "application/json", "Content-Type": "application/json"},
            body=body,
            auth_settings=["BearerToken"],
            _preload_content=False,
            _return_http_data_only=True,
            _request_timeout=30,
        )
        data = response.data
        parsed: Json = json.loads(data) if data else {}
        return parsed

    def get(self, path: str, **query: str) -> Json | None:
        """The document at ``path``; ``None`` when the server answers 404 (absent, or API not served)."""
        from kubernetes.client.exceptions import ApiException

        try:
            return self.request("GET", path, query=query)
        except ApiException as error:
            if error.status == 404:
                return None
            raise

    def create(self, path: str, body: Json) -> Json:
        return self.request("POST", path, body=body)

    def delete(self, path: str) -> None:
        """Delete, foreground-propagated; absent objects are fine."""
        from kubernetes.client.exceptions import ApiException

        try:
            options = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground"}
            self.request("DELETE", path, body=options)
        except ApiException as error:
            if error.status != 404:
                raise


def connect(kubeconfig: Path, context: str | None = None) -> KubeApi:
    from kubernetes import config

    return KubeApi(config.new_client_from_config(config_file=str(kubeconfig), context=context))
