"""A small client for the local control plane's tests: server-side apply, reads, fake nodes, slices.

Paths come from API discovery, so an object of a kind the server does not serve fails with
``NotServed`` instead of a 404 that reads like a missing object.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Obj = dict[str, Any]
FIELD_MANAGER = "gpu-platform-tests"


class ApiError(Exception):
    def __init__(self, status: int, body: Obj, what: str) -> None:
        self.status = status
        self.body = body
        self.message = str(body.get("message", body))
        super().__init__(f"{what}: HTTP {status}: {self.message}")


class NotServed(Exception):
    pass


@dataclass(frozen=True)
class Resource:
    plural: str
    namespaced: bool


class Cluster:
    """One control plane reached through an explicit kubeconfig (never ``~/.kube/config``)."""

    def __init__(self, kubeconfig: Path) -> None:
        from kubernetes import config

        self.kubeconfig = kubeconfig
        self._client = config.new_client_from_config(config_file=str(kubeconfig))
        self._resources: dict[tuple[str, str], Resource | None] = {}

    # --- raw ---------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Obj | None = None,
        query: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Obj:
        from kubernetes.client.exceptions import ApiException

        try:
            response = self._client.call_api(
                path,
                method,
                query_params=list((query or {}).items()),
                header_params={"Accept": "application/json", "Content-Type": content_type},
                body=body,
                auth_settings=["BearerToken"],
                _preload_content=False,
                _return_http_data_only=True,
                _request_timeout=30,
            )
        except ApiException as error:
            try:
                parsed = json.loads(error.body or "{}")
            except ValueError:
                parsed = {"message": str(error.body)}
            raise ApiError(error.status, parsed, f"{method} {path}") from None
        data = response.data
        result: Obj = json.loads(data) if data else {}
        return result

    def get_path(self, path: str, **query: str) -> Obj | None:
        try:
            return self.request("GET", path, query=query)
        except ApiError as error:
            if error.status == 404:
                return None
            raise

    # --- discovery ---------------------------------------------------------------------------------

    def resource(self, api_version: str, kind: str) -> Resource:
        key = (api_version, kind)
        if key not in self._resources:
            base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
            listing = self.get_path(base) or {"resources": []}
            for r in listing["resources"]:
                if "/" not in r["name"]:
                    self._resources[(api_version, r["kind"])] = Resource(r["name"], r["namespaced"])
            self._resources.setdefault(key, None)
        found = self._resources[key]
        if found is None:
            raise NotServed(f"{kind} {api_version} is not served")
        return found

    def serves(self, api_version: str, kind: str) -> bool:
        try:
            self.resource(api_version, kind)
        except NotServed:
            return False
        return True

    def path(self, obj: Obj, *, name: bool = True) -> str:
        api_version, kind = obj["apiVersion"], obj["kind"]
        r = self.resource(api_version, kind)
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        meta = obj.get("metadata", {})
        if r.namespaced:
            base += f"/namespaces/{meta.get('namespace', 'default')}"
        base += f"/{r.plural}"
        return f"{base}/{meta['name']}" if name else base

    # --- objects -----------------------------------------------------------------------------------

    def apply(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        """Server-side apply with strict field validation (an unknown or duplicate field is an error)."""
        query = {"fieldManager": FIELD_MANAGER, "fieldValidation": "Strict", "force": "true"}
        if dry_run:
            query["dryRun"] = "All"
        return self.request("PATCH", self.path(obj), body=obj, query=query, content_type="application/apply-patch+yaml")

    def create(self, obj: Obj) -> Obj:
        return self.request("POST", self.path(obj, name=False), body=obj, query={"fieldValidation": "Strict"})

    def get(self, obj: Obj) -> Obj | None:
        return self.get_path(self.path(obj))

    def delete(self, obj: Obj) -> None:
        try:
            body = {
                "apiVersion": "v1",
                "kind": "DeleteOptions",
                "gracePeriodSeconds": 0,
                "propagationPolicy": "Background",
            }
            self.request("DELETE", self.path(obj), body=body)
        except ApiError as error:
            if error.status != 404:
                raise

    def patch_status(self, obj: Obj, status: Obj) -> Obj:
        return self.request(
            "PATCH", self.path(obj) + "/status", body={"status": status}, content_type="application/merge-patch+json"
        )

    def list(self, api_version: str, kind: str, namespace: str | None = None, **query: str) -> list[Obj]:
        r = self.resource(api_version, kind)
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        if namespace is not None and r.namespaced:
            base += f"/namespaces/{namespace}"
        items: list[Obj] = (self.get_path(f"{base}/{r.plural}", **query) or {}).get("items", [])
        return items


def wait_until(check: Callable[[], Any], *, timeout_s: float, interval_s: float = 0.25) -> Any:
    """``check()``'s first truthy value within ``timeout_s``; the last (falsy) value otherwise."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval_s)


def missing_fields(sent: Any, back: Any, path: str = "") -> list[str]:
    """Paths in ``sent`` that ``back`` lacks or holds with another value (defaults the server adds are fine).

    Scalars compare by value, quantities by amount (the server writes them in canonical form).
    """
    if isinstance(sent, dict):
        if not isinstance(back, dict):
            return [path or "."]
        out: list[str] = []
        for key, value in sent.items():
            if key not in back:
                if value is False or value == 0 or value == "" or value == []:
                    continue  # a zero value the server omits (omitempty) reads back as the same default
                out.append(f"{path}.{key}")
            else:
                out += missing_fields(value, back[key], f"{path}.{key}")
        return out
    if isinstance(sent, list):
        if not isinstance(back, list):
            return [f"{path}[] (read {back!r})"]
        if len(back) == len(sent):  # in order
            return [
                p for i, (a, b) in enumerate(zip(sent, back, strict=True)) for p in missing_fields(a, b, f"{path}[{i}]")
            ]
        # the server added items (DefaultTolerationSeconds' tolerations, say): every sent item must be there
        return [f"{path}[{i}] (not read back)" for i, a in enumerate(sent) if all(missing_fields(a, b) for b in back)]
    if sent != back and str(sent) != str(back) and not _same_quantity(sent, back):
        return [f"{path} (sent {sent!r}, read {back!r})"]
    return []


def _same_quantity(a: Any, b: Any) -> bool:
    """``1000m`` and ``1``: the server writes quantities in canonical form."""
    from kubernetes.utils import parse_quantity

    try:
        return bool(parse_quantity(a) == parse_quantity(b))
    except (ValueError, TypeError, ArithmeticError):
        return False


# --- fake nodes and NVIDIA-shaped ResourceSlices ------------------------------------------------------


def node(
    name: str, *, labels: dict[str, str] | None = None, cpu: str = "96", memory: str = "1024Gi", pods: str = "110"
) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {},
    }


def node_status(
    *,
    cpu: str = "96",
    memory: str = "1024Gi",
    pods: str = "110",
    address: str = "127.0.0.2",
    extra: dict[str, str] | None = None,
) -> Obj:
    resources = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {
        "capacity": resources,
        "allocatable": resources,
        "addresses": [{"type": "InternalIP", "address": address}],
        "conditions": [
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "fake node",
             "lastHeartbeatTime": now, "lastTransitionTime": now},
        ],
    }  # fmt: skip


def add_node(cluster: Cluster, name: str, *, labels: dict[str, str] | None = None, **status: Any) -> Obj:
    """A Ready fake node. The API server's TaintNodesByCondition admission gives every new Node the
    ``node.kubernetes.io/not-ready`` taint, which the node-lifecycle controller (off here: no kubelet)
    would lift once the node reports Ready; the test lifts it instead."""
    obj = node(name, labels=labels)
    try:
        cluster.create(obj)
    except ApiError as error:
        if error.status != 409:
            raise
    cluster.request(
        "PATCH", cluster.path(obj), body={"spec": {"taints": None}}, content_type="application/merge-patch+json"
    )
    return cluster.patch_status(obj, node_status(**status))


def resource_slice(node_name: str, devices: Iterable[Obj], *, driver: str = "gpu.nvidia.com") -> Obj:
    """A ResourceSlice as the NVIDIA DRA driver publishes it: one pool per node, named after the node."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-{driver}"},
        "spec": {
            "driver": driver,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": list(devices),
        },
    }


def cleanup(cluster: Cluster, objects: Iterable[Obj]) -> None:
    for obj in reversed(list(objects)):
        with contextlib.suppress(ApiError, NotServed):
            cluster.delete(obj)
