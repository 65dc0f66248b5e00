"""Exposition format, HTTP endpoints and the thin Kubernetes layer (faked API)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from exporter.gang_exporter import kube
from exporter.gang_exporter.collector import GangCollector, InformerStatus
from exporter.gang_exporter.server import make_app
from exporter.gang_exporter.state import MODIFIED, GangState
from tests.exporter.gang_fixtures import NS, PRIORITY, claim, event, node, pod, podgroup, probe_job_podgroup

T0 = 1_750_000_000.0
GROUP = {"namespace": NS, "priority_class": PRIORITY, "template": "workers", "workload": "llama-pretrain"}


def scenario() -> GangState:
    state = GangState(started_at=T0)
    state.replace("Node", [node("n1", instance_type="p5.48xlarge", zone="us-east-1a", gpus=8)], T0)
    state.replace("ResourceClaim", [claim("llama-1-0-gpus")], T0)
    state.replace(
        "PodGroup",
        [
            podgroup("llama-0", created=T0 + 10),
            podgroup("llama-1", created=T0 + 20),
        ],
        T0,
    )
    state.replace(
        "Pod",
        [
            pod("llama-0-0", group="llama-0", created=T0 + 10, gpus=8, phase="Running"),
            pod(
                "llama-1-0", group="llama-1", created=T0 + 20, claim_template="gpu-8x", generated_claim="llama-1-0-gpus"
            ),
        ],
        T0,
    )
    state.apply(
        "PodGroup", MODIFIED, podgroup("llama-0", created=T0 + 10, condition=("True", "Scheduled", T0 + 40)), T0 + 40
    )
    state.apply(
        "Pod",
        MODIFIED,
        pod("llama-0-0", group="llama-0", created=T0 + 10, gpus=8, phase="Running", preempted_at=T0 + 50),
        T0 + 50,
    )
    state.apply(
        "Event",
        "ADDED",
        event(
            "fs",
            reason="FailedScheduling",
            involved_kind="Pod",
            involved_name="llama-1-0",
            message="cannot allocate all claims",
            last=T0 + 60,
            count=2,
        ),
        T0 + 60,
    )
    return state


def exposition(state: GangState, now: float) -> str:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(
        GangCollector(
            lambda: state.snapshot(now),
            lambda: [InformerStatus("Pod", True, 2)],
        )
    )
    return generate_latest(registry).decode()


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def key(name: str, **labels: str) -> tuple[str, frozenset[tuple[str, str]]]:
    return name, frozenset(labels.items())


def test_exposition_has_exact_series() -> None:
    got = samples(exposition(scenario(), T0 + 80))
    ttl = {"namespace": NS, "priority_class": PRIORITY}
    group0 = {**GROUP, "podgroup": "llama-0"}
    group1 = {**GROUP, "podgroup": "llama-1"}
    waiting1 = {**group1, "reason": "Pending"}
    expected = {
        key("gang_podgroup_time_to_scheduled_seconds_bucket", le="15.0", **ttl): 0.0,
        key("gang_podgroup_time_to_scheduled_seconds_bucket", le="30.0", **ttl): 1.0,
        key("gang_podgroup_time_to_scheduled_seconds_bucket", le="+Inf", **ttl): 1.0,
        key("gang_podgroup_time_to_scheduled_seconds_count", **ttl): 1.0,
        key("gang_podgroup_time_to_scheduled_seconds_sum", **ttl): 30.0,
        key("gang_podgroups_pending", **ttl): 1.0,
        key("gang_podgroup_waiting_seconds", **waiting1): 60.0,
        key("gang_podgroup_waiting_requested_gpus", **waiting1): 8.0,
        key("gang_podgroup_waiting_min_count", **waiting1): 4.0,
        key("gang_podgroup_waiting_pods", **waiting1): 1.0,
        key("gang_podgroup_preemptions_total", **group0): 1.0,
        key("gang_podgroup_preempted_pods_total", **group0): 1.0,
        key("gang_resourceclaim_allocation_failures_total", device_class="gpu.nvidia.com", **group1): 2.0,
        key("gang_node_allocatable_gpus", gpu_model="H100-80GB", instance_type="p5.48xlarge", zone="us-east-1a"): 8.0,
        key("gang_exporter_informer_synced", resource="Pod"): 1.0,
        key("gang_exporter_watch_restarts_total", resource="Pod"): 2.0,
    }
    assert {k: got.get(k) for k in expected} == expected
    # Only waiting groups appear on the waiting gauges.
    waiting_groups = {dict(labels)["podgroup"] for name, labels in got if name.startswith("gang_podgroup_waiting_")}
    assert waiting_groups == {"llama-1"}


def test_gate_probes_appear_in_no_series() -> None:
    state = scenario()
    probe = probe_job_podgroup(created=T0 - 3600)
    state.apply("PodGroup", MODIFIED, probe, T0 + 70)
    text = exposition(state, T0 + 80)
    assert text == exposition(scenario(), T0 + 80)
    assert probe["metadata"]["namespace"] not in {dict(labels).get("namespace") for _, labels in samples(text)}


def test_exposition_types() -> None:
    families = {f.name: f.type for f in text_string_to_metric_families(exposition(scenario(), T0 + 80))}
    assert families == {
        "gang_podgroup_time_to_scheduled_seconds": "histogram",
        "gang_podgroups_pending": "gauge",
        "gang_podgroup_waiting_seconds": "gauge",
        "gang_podgroup_waiting_min_count": "gauge",
        "gang_podgroup_waiting_pods": "gauge",
        "gang_podgroup_waiting_requested_gpus": "gauge",
        "gang_podgroup_preemptions": "counter",
        "gang_podgroup_preempted_pods": "counter",
        "gang_resourceclaim_allocation_failures": "counter",
        "gang_node_allocatable_gpus": "gauge",
        "gang_exporter_informer_synced": "gauge",
        "gang_exporter_watch_restarts": "counter",
    }


def call(app: Any, path: str) -> tuple[str, bytes]:
    status: list[str] = []

    def start_response(code: str, headers: list[tuple[str, str]], *_: Any) -> None:
        status.append(code)

    environ = {
        "PATH_INFO": path,
        "REQUEST_METHOD": "GET",
        "QUERY_STRING": "",
        "wsgi.input": io.BytesIO(),
        "SERVER_NAME": "x",
        "SERVER_PORT": "8080",
        "HTTP_ACCEPT": "text/plain",
    }
    body = b"".join(app(environ, start_response))
    return status[0], body


def test_health_readiness_and_metrics_endpoints() -> None:
    ready = {"value": False}
    registry = CollectorRegistry(auto_describe=False)
    registry.register(GangCollector(lambda: scenario().snapshot(T0 + 80)))
    app = make_app(registry, lambda: ready["value"])
    assert call(app, "/healthz")[0] == "200 OK"
    assert call(app, "/readyz")[0].startswith("503")
    ready["value"] = True
    assert call(app, "/readyz")[0] == "200 OK"
    code, body = call(app, "/metrics")
    assert code == "200 OK"
    assert b"gang_podgroups_pending" in body
    assert call(app, "/nope")[0].startswith("404")


# --------------------------------------------------------------- kube layer


class FakeResponse:
    def __init__(self, body: Mapping[str, Any]) -> None:
        self.data = json.dumps(body).encode()


class FakeLister:
    """Paged list endpoint like the generated client with _preload_content=False."""

    def __init__(self, pages: list[list[dict[str, Any]]]) -> None:
        self.pages = pages
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> FakeResponse:
        self.calls.append(kwargs)
        index = int(kwargs.get("_continue") or 0)
        metadata: dict[str, Any] = {"resourceVersion": f"rv-{index}"}
        if index + 1 < len(self.pages):
            metadata["continue"] = str(index + 1)
        return FakeResponse({"items": self.pages[index], "metadata": metadata})


def test_relist_pages_through_continue_tokens() -> None:
    gang = GangState(started_at=T0)
    shared = kube.SharedState(gang, clock=lambda: T0 + 5)
    lister = FakeLister([[podgroup("a", created=T0)], [podgroup("b", created=T0)]])
    informer = kube.Informer(kube.Resource("PodGroup", lister), shared)
    assert informer.relist() == "rv-1"
    assert informer.synced
    assert [c.get("_continue") for c in lister.calls] == [None, "1"]
    assert all(c["_preload_content"] is False for c in lister.calls)
    assert [w.labels.podgroup for w in shared.snapshot().waiting] == ["a", "b"]


def test_watch_loop_applies_events_and_relists_on_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes.client.rest import ApiException

    gang = GangState(started_at=T0)
    shared = kube.SharedState(gang, clock=lambda: T0 + 100)
    lister = FakeLister([[podgroup("a", created=T0)]])
    informer = kube.Informer(kube.Resource("PodGroup", lister), shared)
    seen_versions: list[str] = []
    streams = iter(
        [
            [
                {"type": "ADDED", "object": podgroup("b", created=T0)},
                {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "rv-9"}}},
            ],
            ApiException(status=410, reason="Expired"),
        ]
    )

    def fake_events(resource_version: str) -> Iterator[Mapping[str, Any]]:
        seen_versions.append(resource_version)
        step = next(streams, None)
        if step is None:
            informer.stop()
            return
        if isinstance(step, Exception):
            raise step
        yield from step

    monkeypatch.setattr(informer, "_events", fake_events)
    informer.run("rv-0")
    # Resumed from the bookmark, then from the relist's resourceVersion.
    assert seen_versions == ["rv-0", "rv-9", "rv-0"]
    assert informer.restarts == 1  # 410 -> relist
    # After the relist only "a" exists again ("b" was not in the list).
    assert [w.labels.podgroup for w in shared.snapshot().waiting] == ["a"]


def test_resources_cover_the_watched_apis() -> None:
    from kubernetes import client

    kinds = [r.kind for r in kube.resources(client.ApiClient())]
    assert kinds == ["Node", "ResourceClaim", "PodGroup", "Pod", "Event"]
    by_kind = {r.kind: r.list_func for r in kube.resources(client.ApiClient())}
    assert getattr(by_kind["PodGroup"], "args", None) == ("scheduling.k8s.io", "v1beta1", "podgroups")
    assert getattr(by_kind["ResourceClaim"], "args", None) == ("resource.k8s.io", "v1", "resourceclaims")
