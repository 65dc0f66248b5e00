"""A loopback container registry and chart repository for the preflight image checks.

One ``ThreadingHTTPServer`` on 127.0.0.1 plays every registry: a request for registry ``R`` arrives
as ``/R/v2/<repository>/manifests/<tag>`` (``base_url`` maps ``R`` there), and a chart repository
``https://host/path`` as ``/host/path/index.yaml``. Each registry answers the way its kind does:

- ``bearer``: 401 with a ``Bearer`` challenge whose realm is this server's ``/token``; the token
  it hands out opens the manifests (registry.k8s.io, public.ecr.aws, nvcr.io, quay.io, ghcr.io);
- ``basic``: 401 with a ``Basic`` challenge, opened by ``Basic <ecr token>`` (private ECR);
- ``open``: no authentication; ``no-head``: as open, but ``HEAD`` is 405.

Every request is recorded (method, path, headers) for the tests to read.
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import yaml

TOKEN = "anonymous-pull-token"
INDEX_TYPE = "application/vnd.oci.image.index.v1+json"
ECR_TOKEN = "QVdTOnNlY3JldA=="  # base64("AWS:secret")


def digest(registry: str, repository: str, tag: str) -> str:
    """The digest the fake serves for a manifest: stable, so tests can name it."""
    return "sha256:" + hashlib.sha256(f"{registry}/{repository}:{tag}".encode()).hexdigest()


@dataclass
class FakeRegistries:
    kinds: dict[str, str] = field(default_factory=dict)
    """Registry host -> ``bearer`` | ``basic`` | ``open`` | ``no-head``; unknown hosts are ``bearer``."""
    manifests: set[tuple[str, str, str]] = field(default_factory=set)
    """(registry, repository, tag) that exist."""
    indexes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """Chart repository URL -> chart -> versions listed in its ``index.yaml``."""
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    port: int = 0

    def base_url(self, where: str) -> str:
        if where.startswith(("http://", "https://")):
            parsed = urllib.parse.urlsplit(where)
            return f"http://127.0.0.1:{self.port}/{parsed.netloc}{parsed.path}".rstrip("/")
        return f"http://127.0.0.1:{self.port}/{where}"


def _handler(state: FakeRegistries) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _serve(self) -> None:
            state.requests.append((self.command, self.path, dict(self.headers.items())))
            path = urllib.parse.urlsplit(self.path).path
            if path == "/token":
                self._reply(200, {"Content-Type": "application/json"}, json.dumps({"token": TOKEN}).encode())
                return
            if path.endswith("/index.yaml"):
                self._index(path.removesuffix("/index.yaml"))
                return
            registry, _, rest = path.lstrip("/").partition("/")
            if not rest.startswith("v2/") or "/manifests/" not in rest:
                self._reply(404)
                return
            repository, _, tag = rest.removeprefix("v2/").partition("/manifests/")
            kind = state.kinds.get(registry, "bearer")
            if kind == "no-head" and self.command == "HEAD":
                self._reply(405)
                return
            authorization = self.headers.get("Authorization", "")
            if kind == "bearer" and authorization != f"Bearer {TOKEN}":
                realm = f"http://127.0.0.1:{state.port}/token"
                challenge = f'Bearer realm="{realm}",service="{registry}",scope="repository:{repository}:pull"'
                self._reply(401, {"WWW-Authenticate": challenge})
                return
            if kind == "basic" and authorization != f"Basic {ECR_TOKEN}":
                self._reply(401, {"WWW-Authenticate": 'Basic realm="https://ecr.example/"'})
                return
            if (registry, repository, tag) in state.manifests:
                self._reply(
                    200, {"Docker-Content-Digest": digest(registry, repository, tag), "Content-Type": INDEX_TYPE}
                )
                return
            self._reply(404)

        def _index(self, prefix: str) -> None:
            for url, charts in state.indexes.items():
                if state.base_url(url).split(str(state.port), 1)[1] == prefix:
                    entries = {chart: [{"version": v} for v in versions] for chart, versions in charts.items()}
                    body = yaml.safe_dump({"apiVersion": "v1", "entries": entries}).encode()
                    self._reply(200, {"Content-Type": "application/x-yaml"}, body)
                    return
            self._reply(404)

        do_GET = _serve
        do_HEAD = _serve

    return Handler


@contextmanager
def serving(state: FakeRegistries) -> Iterator[FakeRegistries]:
    """Run the fake on a free loopback port for the ``with`` block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
