"""The thin JSON layer on the kubernetes client, and where a kubeconfig is found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.live.kube import KubeApi, find_kubeconfig


def _api_exception() -> Any:
    """The client's ``ApiException``, imported when a test needs it: the client package takes about
    1 s to import, which every test worker would otherwise pay at collection."""
    from kubernetes.client.exceptions import ApiException

    return ApiException


class _Response:
    def __init__(self, document: dict[str, Any] | None) -> None:
        self.data = json.dumps(document).encode() if document is not None else b""


class FakeApiClient:
    """Records ``call_api`` and answers from a path -> (status, document) table."""

    def __init__(self, answers: dict[str, tuple[int, dict[str, Any] | None]]) -> None:
        self.answers = answers
        self.calls: list[dict[str, Any]] = []

    def call_api(self, path: str, method: str, **kwargs: Any) -> _Response:
        self.calls.append({"path": path, "method": method, **kwargs})
        status, document = self.answers.get(path, (404, None))
        if status >= 400:
            raise _api_exception()(status=status, reason="Not Found" if status == 404 else "Error")
        return _Response(document)


def test_get_returns_the_document_and_none_for_404() -> None:
    fake = FakeApiClient({"/apis": (200, {"kind": "APIGroupList", "groups": []})})
    kube = KubeApi(fake)
    assert kube.get("/apis") == {"kind": "APIGroupList", "groups": []}
    assert kube.get("/apis/scheduling.k8s.io/v1beta1/namespaces/x/podgroups/y") is None
    nodes = kube.get("/api/v1/nodes", labelSelector="gpu-platform.io/device-management=dra")
    assert nodes is None
    call = fake.calls[-1]
    assert call["query_params"] == [("labelSelector", "gpu-platform.io/device-management=dra")]
    assert call["auth_settings"] == ["BearerToken"] and call["_preload_content"] is False


def test_delete_tolerates_absent_objects_but_not_other_errors() -> None:
    fake = FakeApiClient({"/api/v1/namespaces/gone": (404, None), "/api/v1/namespaces/locked": (403, None)})
    kube = KubeApi(fake)
    kube.delete("/api/v1/namespaces/gone")
    assert fake.calls[0]["body"]["propagationPolicy"] == "Foreground"
    with pytest.raises(_api_exception()):
        kube.delete("/api/v1/namespaces/locked")


def test_kubeconfig_lookup_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    assert find_kubeconfig(None, {}, home) is None
    (home / ".kube" / "config").write_text("apiVersion: v1\n")
    assert find_kubeconfig(None, {}, home) == home / ".kube" / "config"
    exported = tmp_path / "ci-cluster"
    exported.write_text("apiVersion: v1\n")
    assert find_kubeconfig(None, {"KUBECONFIG": f"{tmp_path / 'missing'}:{exported}"}, home) == exported
    assert find_kubeconfig("explicit", {"KUBECONFIG": str(exported)}, home) == Path("explicit")
