"""Thin Kubernetes client layer: list + watch each resource into ``GangState``.

Every resource is read as raw API JSON (``_preload_content=False`` for lists,
``deserialize=False`` for watches) so the pure state machine sees exactly what
the API server sent:

* ``scheduling.k8s.io/v1beta1`` podgroups and ``resource.k8s.io/v1``
  resourceclaims through ``CustomObjectsApi`` (PodGroup is a built-in kind, but
  the generated client has no typed API for it);
* Pods, Events and Nodes through ``CoreV1Api``.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from .collector import InformerStatus
from .state import (
    KIND_EVENT,
    KIND_NODE,
    KIND_POD,
    KIND_PODGROUP,
    KIND_RESOURCECLAIM,
    GangState,
    Snapshot,
)

LOG = logging.getLogger(__name__)
LIST_PAGE_SIZE = 500
WATCH_TIMEOUT_SECONDS = 300
MIN_WATCH_SECONDS = 1.0
HTTP_GONE = 410


class SharedState:
    """``GangState`` behind a lock: watch threads write, scrapes read."""

    def __init__(self, state: GangState, clock: Callable[[], float] = time.time) -> None:
        self._state = state
        self._clock = clock
        self._lock = threading.Lock()

    def apply(self, kind: str, event_type: str, obj: Mapping[str, Any]) -> None:
        with self._lock:
            self._state.apply(kind, event_type, obj, self._clock())

    def replace(self, kind: str, objs: Sequence[Mapping[str, Any]]) -> None:
        with self._lock:
            self._state.replace(kind, objs, self._clock())

    def snapshot(self) -> Snapshot:
        with self._lock:
            now = self._clock()
            self._state.prune(now)
            return self._state.snapshot(now)


@dataclass(frozen=True)
class Resource:
    kind: str
    list_func: Callable[..., Any]


def resources(api: client.ApiClient) -> list[Resource]:
    """Watched resources, in the order their initial lists are applied."""
    core = client.CoreV1Api(api)
    custom = client.CustomObjectsApi(api)
    return [
        Resource(KIND_NODE, core.list_node),
        Resource(
            KIND_RESOURCECLAIM,
            functools.partial(custom.list_cluster_custom_object, "resource.k8s.io", "v1", "resourceclaims"),
        ),
        Resource(
            KIND_PODGROUP,
            functools.partial(custom.list_cluster_custom_object, "scheduling.k8s.io", "v1beta1", "podgroups"),
        ),
        Resource(KIND_POD, core.list_pod_for_all_namespaces),
        Resource(KIND_EVENT, core.list_event_for_all_namespaces),
    ]


class Informer:
    """List then watch one resource; relist when the watch expires (410)."""

    def __init__(self, resource: Resource, state: SharedState, clock: Callable[[], float] = time.monotonic) -> None:
        self.resource = resource
        self._clock = clock
        self.state = state
        self.synced = False
        self.restarts = 0
        self._stop = threading.Event()

    def status(self) -> InformerStatus:
        return InformerStatus(self.resource.kind, self.synced, self.restarts)

    def relist(self) -> str:
        items: list[Mapping[str, Any]] = []
        token: str | None = None
        resource_version = ""
        while True:
            kwargs: dict[str, Any] = {"limit": LIST_PAGE_SIZE, "_preload_content": False}
            if token:
                kwargs["_continue"] = token
            response = self.resource.list_func(**kwargs)
            body = json.loads(response.data)
            items.extend(body.get("items") or [])
            metadata = body.get("metadata") or {}
            resource_version = metadata.get("resourceVersion", "") or resource_version
            token = metadata.get("continue") or None
            if not token:
                break
        self.state.replace(self.resource.kind, items)
        self.synced = True
        LOG.info("listed %d %s objects at resourceVersion %s", len(items), self.resource.kind, resource_version)
        return resource_version

    def _events(self, resource_version: str) -> Iterator[Mapping[str, Any]]:
        stream = watch.Watch().stream(
            self.resource.list_func,
            resource_version=resource_version,
            timeout_seconds=WATCH_TIMEOUT_SECONDS,
            allow_watch_bookmarks=True,
            deserialize=False,
        )
        yield from stream

    def run(self, resource_version: str) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            try:
                opened = self._clock()
                received = 0
                for event in self._events(resource_version):
                    received += 1
                    event_type = event.get("type")
                    obj = event.get("object") or {}
                    new_version = (obj.get("metadata") or {}).get("resourceVersion")
                    if event_type in ("ADDED", "MODIFIED", "DELETED"):
                        self.state.apply(self.resource.kind, event_type, obj)
                    if new_version:
                        resource_version = new_version
                if received == 0 and self._clock() - opened < MIN_WATCH_SECONDS:
                    # The server closed the stream at once: do not spin.
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, 60.0)
                else:
                    backoff = 1.0
            except ApiException as exc:
                if exc.status != HTTP_GONE:
                    LOG.warning("watch %s failed: %s", self.resource.kind, exc)
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, 60.0)
                self.restarts += 1
                resource_version = self.relist_until_ok()
            except Exception:  # network errors, truncated streams
                LOG.exception("watch %s broke", self.resource.kind)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 60.0)
                self.restarts += 1
                resource_version = self.relist_until_ok()

    def relist_until_ok(self) -> str:
        delay = 1.0
        while not self._stop.is_set():
            try:
                return self.relist()
            except Exception:
                LOG.exception("relist %s failed", self.resource.kind)
                self._stop.wait(delay)
                delay = min(delay * 2, 60.0)
        return ""

    def stop(self) -> None:
        self._stop.set()


def informers_for(api: client.ApiClient, state: SharedState) -> list[Informer]:
    return [Informer(resource, state) for resource in resources(api)]


def start(informers: Sequence[Informer]) -> None:
    """Initial lists in dependency order, then one watch thread per resource."""
    versions = [informer.relist_until_ok() for informer in informers]
    for informer, version in zip(informers, versions, strict=True):
        threading.Thread(
            target=informer.run,
            args=(version,),
            name=f"watch-{informer.resource.kind}",
            daemon=True,
        ).start()
