"""What the local control plane is built from, as data: module, version, where it was checked, when.

Bumping a pin rebuilds (the bin cache is keyed by every build input). The Go module proxy lists
the versions it serves at ``https://proxy.golang.org/<module>/@v/list``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModulePin:
    """One Go module the control plane is built from."""

    module: str
    version: str
    source: str
    checked: str


KUBERNETES = ModulePin(
    module="k8s.io/kubernetes",
    version="v1.37.2",
    source="https://proxy.golang.org/k8s.io/kubernetes/@v/list (newest v1.37 patch served)",
    checked="2026-12-03",
)
"""kube-apiserver, kube-scheduler and kube-controller-manager."""

ETCD = ModulePin(
    module="go.etcd.io/etcd/server/v3",
    version="v3.7.3",
    source=(
        "https://proxy.golang.org/go.etcd.io/etcd/server/v3/@v/list (newest v3.7 patch; k8s.io/kubernetes"
        " v1.37.2's go.mod requires the etcd v3.7.0 client; Kubernetes 1.31+ needs etcd >= 3.5.11)"
    ),
    checked="2026-12-03",
)
"""The etcd server (its module root is the ``etcd`` main package)."""

GO_MINIMUM = (1, 26)
"""Kubernetes 1.37 is built with Go 1.26 (its go.mod's ``go`` line)."""

PINS = (KUBERNETES, ETCD)
