"""Which cluster a kubeconfig context reaches, and whether it is the environment's.

``aws eks update-kubeconfig --name <cluster> --region <region>`` writes a cluster entry, a user
and a context all named by the cluster's ARN (``arn:aws:eks:<region>:<account>:cluster/<name>``);
``--alias`` renames only the context. So a context is the environment's when its cluster entry is
named by that ARN (the account must match when the environment names one) or by the bare cluster
name, or, when the context was chosen explicitly (``CONTEXT=``), when the context's own name is.
Pure functions over the parsed kubeconfig: nothing here talks to a cluster.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from config.errors import ConfigError

EKS_CLUSTER_ARN = re.compile(
    r"^arn:aws[a-z-]*:eks:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):cluster/(?P<name>[A-Za-z0-9][A-Za-z0-9_-]*)$"
)


@dataclass(frozen=True)
class ClusterTarget:
    """What a live command is about to talk to: the context, its cluster entry and server."""

    context: str
    cluster: str
    server: str

    def line(self, command: str) -> str:
        """The first line a live command prints: the cluster it acts on."""
        return f"{command}: acting on cluster {self.cluster} (context {self.context}, server {self.server})"


def names_cluster(text: str, *, cluster_name: str, region: str, account: str | None) -> bool:
    """``text`` is the cluster's name or its EKS ARN (same region; same account when one is set)."""
    if text == cluster_name:
        return True
    found = EKS_CLUSTER_ARN.match(text)
    if found is None:
        return False
    same_account = account is None or found["account"] == account
    return found["name"] == cluster_name and found["region"] == region and same_account


def _section(entries: Any, name: str, key: str) -> Mapping[str, Any]:
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name and isinstance(entry.get(key), dict):
            found: Mapping[str, Any] = entry[key]
            return found
    return {}


def _context_names(kubeconfig: Mapping[str, Any]) -> list[str]:
    contexts = kubeconfig.get("contexts")
    if not isinstance(contexts, list):
        return []
    return sorted(str(c["name"]) for c in contexts if isinstance(c, dict) and "name" in c)


def cluster_target(
    kubeconfig: Mapping[str, Any],
    *,
    explicit_context: str | None,
    cluster_name: str,
    region: str,
    account: str | None,
    environment: str,
) -> ClusterTarget:
    """The context a live command will use, once it is known to reach the environment's cluster;
    else one ``ConfigError`` (field ``context``) that names what it would have reached and the fix."""
    context = explicit_context or str(kubeconfig.get("current-context") or "")
    fix_update = f"run 'aws eks update-kubeconfig --name {cluster_name} --region {region}'"
    if not context:
        raise ConfigError(
            "context", None, "the kubeconfig has no current context", f"{fix_update}, or pass CONTEXT=<context>"
        )
    if context not in _context_names(kubeconfig):
        raise ConfigError(
            "context",
            context,
            "no such context in the kubeconfig",
            f"use one of {', '.join(_context_names(kubeconfig)) or 'none (it has no contexts)'}, or {fix_update}",
        )
    cluster = str(_section(kubeconfig.get("contexts"), context, "context").get("cluster") or "")
    server = str(_section(kubeconfig.get("clusters"), cluster, "cluster").get("server") or "")

    def names_it(text: str) -> bool:
        return names_cluster(text, cluster_name=cluster_name, region=region, account=account)

    if names_it(cluster) or (explicit_context is not None and names_it(context)):
        return ClusterTarget(context=context, cluster=cluster, server=server)
    raise ConfigError(
        "context",
        context,
        f"reaches cluster {cluster or '(none)'} at {server or '(no server)'}, not {cluster_name}, "
        f"the cluster of environment {environment}; nothing was sent to it",
        f"{fix_update}, or pass CONTEXT=<the context of {cluster_name}>",
    )
