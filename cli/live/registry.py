"""Ask container registries and chart repositories whether pinned references exist (read-only).

Images and OCI charts: the OCI distribution API, ``HEAD /v2/<repository>/manifests/<tag>`` with
the manifest media types in ``Accept`` (a registry that refuses ``HEAD`` is asked with ``GET``).
A ``401`` with a ``Bearer`` challenge is answered with an anonymous token from the challenge's
realm (registry.k8s.io, public.ecr.aws, nvcr.io, quay.io, ghcr.io, Docker Hub); a ``Basic``
challenge (private ECR, such as the EKS registry) is answered only when ``basic_auth`` gives
credentials (``cli.live.preflight`` passes an ECR authorization token when AWS answers). HTTP chart
repositories: the chart's version in the repository's ``index.yaml``.

``base_url`` maps a registry host or chart repository URL to the URL actually asked: identity
in production, a loopback server in tests. Nothing here raises for a network problem; it
becomes an ``UNREACHABLE`` look-up, which preflight reports as one skipped line.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from email.message import Message
from functools import partial

import yaml

from catalog.images import ChartSource, ImagePin
from policy.infrastructure.images import Lookup, Outcome, chart_key

MANIFEST_TYPES = ", ".join(
    (
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )
)
"""What a multi-architecture image, a single image or a Helm chart in an OCI registry is served as."""

REGISTRY_HOSTS = {"docker.io": "registry-1.docker.io"}
"""Registries whose API host differs from the name in image references."""

TIMEOUT_SECONDS = 10.0
USER_AGENT = "gpu-platform-preflight"

BaseUrl = Callable[[str], str]


def _identity(where: str) -> str:
    return where if where.startswith(("http://", "https://")) else f"https://{REGISTRY_HOSTS.get(where, where)}"


class _Unreachable(Exception):
    pass


class RegistryClient:
    """One client for a preflight run: anonymous tokens are kept per realm and scope."""

    def __init__(
        self,
        *,
        base_url: BaseUrl = _identity,
        basic_auth: Callable[[str], str | None] = lambda registry: None,
        timeout_seconds: float = TIMEOUT_SECONDS,
    ) -> None:
        self.base_url = base_url
        self.basic_auth = basic_auth
        self.timeout = timeout_seconds
        self._opener = urllib.request.build_opener(urllib.request.HTTPRedirectHandler())

    def _open(self, request: urllib.request.Request) -> tuple[int, Message, bytes]:
        request.add_header("User-Agent", USER_AGENT)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                body = response.read() if request.get_method() != "HEAD" else b""
                return int(response.status), response.headers, body
        except urllib.error.HTTPError as error:
            return int(error.code), error.headers, b""
        except (OSError, http.client.HTTPException) as error:  # URLError and timeouts are OSErrors
            reason = getattr(error, "reason", error)
            raise _Unreachable(str(reason) or type(error).__name__) from error

    def _token(self, challenge: str, repository: str) -> str | None:
        params = _challenge_params(challenge)
        realm = params.pop("realm", "")
        if not realm:
            return None
        query = {"service": params.get("service", ""), "scope": params.get("scope", f"repository:{repository}:pull")}
        joiner = "&" if "?" in realm else "?"
        url = f"{realm}{joiner}{urllib.parse.urlencode({k: v for k, v in query.items() if v})}"
        status, _, body = self._open(urllib.request.Request(url))
        if status != 200:
            return None
        try:
            answer = json.loads(body or b"{}")
        except ValueError:
            return None
        token = answer.get("token") or answer.get("access_token") if isinstance(answer, dict) else None
        return str(token) if token else None

    def manifest(self, registry: str, repository: str, reference: str) -> Lookup:
        """Whether ``registry`` serves a manifest for ``repository:reference``."""
        url = f"{self.base_url(registry)}/v2/{repository}/manifests/{reference}"
        try:
            return self._manifest(url, registry, repository, reference)
        except _Unreachable as error:
            return Lookup(Outcome.UNREACHABLE, str(error))

    def _manifest(self, url: str, registry: str, repository: str, reference: str) -> Lookup:
        authorization: str | None = None
        for _ in range(2):
            status, headers = self._ask(url, authorization)
            if status == 401 and authorization is None:
                challenge = headers.get("WWW-Authenticate", "")
                if challenge.lower().startswith("bearer"):
                    token = self._token(challenge, repository)
                    authorization = f"Bearer {token}" if token else None
                elif challenge.lower().startswith("basic"):
                    basic = self.basic_auth(registry)
                    if basic is None:
                        return Lookup(Outcome.DENIED, "a private registry: needs AWS credentials")
                    authorization = f"Basic {basic}"
                if authorization is None:
                    return Lookup(Outcome.DENIED, f"HTTP 401, no anonymous token ({challenge or 'no challenge'})")
                continue
            break
        if status == 200:
            return Lookup(Outcome.FOUND, headers.get("Docker-Content-Digest", ""))
        if status == 404:
            return Lookup(Outcome.MISSING, f"no manifest for {repository}:{reference}")
        if status in (401, 403):
            return Lookup(Outcome.DENIED, f"HTTP {status}")
        return Lookup(Outcome.UNREACHABLE, f"HTTP {status}")

    def _ask(self, url: str, authorization: str | None) -> tuple[int, Message]:
        headers = {"Accept": MANIFEST_TYPES}
        if authorization:
            headers["Authorization"] = authorization
        status, answer, _ = self._open(urllib.request.Request(url, headers=headers, method="HEAD"))
        if status in (405, 501):  # HEAD not allowed: ask again with GET
            status, answer, _ = self._open(urllib.request.Request(url, headers=headers, method="GET"))
        return status, answer

    def chart_index(self, repository: str, chart: str, version: str) -> Lookup:
        """Whether an HTTP chart repository's ``index.yaml`` lists ``chart`` at ``version``."""
        url = f"{self.base_url(repository.rstrip('/'))}/index.yaml"
        try:
            status, _, body = self._open(urllib.request.Request(url))
        except _Unreachable as error:
            return Lookup(Outcome.UNREACHABLE, str(error))
        if status != 200:
            outcome = Outcome.MISSING if status == 404 else Outcome.UNREACHABLE
            return Lookup(outcome, f"HTTP {status} for index.yaml")
        try:
            index = yaml.safe_load(body) or {}
        except yaml.YAMLError as error:
            return Lookup(Outcome.UNREACHABLE, f"unreadable index.yaml ({type(error).__name__})")
        listed = {str(entry.get("version")) for entry in (index.get("entries") or {}).get(chart) or []}
        if version in listed:
            return Lookup(Outcome.FOUND, f"listed in {repository}/index.yaml")
        return Lookup(Outcome.MISSING, f"{chart} {version} is not in {repository}/index.yaml")

    def chart(self, chart: ChartSource) -> Lookup:
        pin = chart.pin
        if not chart.oci:
            return self.chart_index(pin.repository, pin.chart, pin.version)
        registry, _, repository = pin.repository.removeprefix("oci://").partition("/")
        return self.manifest(registry, repository, pin.version)


def _challenge_params(challenge: str) -> dict[str, str]:
    """``Bearer realm="https://x/token",service="x",scope="repository:a:pull"`` -> its parameters."""
    _, _, rest = challenge.partition(" ")
    params: dict[str, str] = {}
    for part in _split_params(rest):
        key, _, value = part.partition("=")
        params[key.strip().lower()] = value.strip().strip('"')
    return params


def _split_params(text: str) -> Iterable[str]:
    part, quoted = "", False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == "," and not quoted:
            yield part
            part = ""
            continue
        part += char
    if part.strip():
        yield part


def look_up(
    client: RegistryClient, images: Iterable[ImagePin], charts: Iterable[ChartSource]
) -> tuple[dict[str, Lookup], dict[str, Lookup], str | None]:
    """Every image with a tag, then every chart. Returns the answers, and the reason when there is no
    network at all: two different hosts unreachable before any answered. The rest is then not
    tried, so an offline preflight costs two failed connections, not one per image."""
    image_answers: dict[str, Lookup] = {}
    chart_answers: dict[str, Lookup] = {}
    jobs: list[tuple[dict[str, Lookup], str, str, Callable[[], Lookup]]] = [
        (image_answers, pin.image, pin.registry, partial(client.manifest, pin.registry, pin.repository, pin.tag))
        for pin in images
        if pin.tag
    ]
    jobs += [(chart_answers, chart_key(c), _host(c.pin.repository), partial(client.chart, c)) for c in charts]
    answered = False
    unreachable: dict[str, str] = {}
    for answers, key, host, ask in jobs:
        if not answered and host in unreachable:
            answers[key] = Lookup(Outcome.UNREACHABLE, unreachable[host])
            continue
        lookup = ask()
        answers[key] = lookup
        if lookup.outcome is not Outcome.UNREACHABLE:
            answered = True
            continue
        if not answered:
            unreachable[host] = lookup.detail
            if len(unreachable) == 2:
                return {}, {}, "; ".join(f"{where}: {why}" for where, why in unreachable.items())
    return image_answers, chart_answers, None


def _host(repository: str) -> str:
    return urllib.parse.urlsplit(repository if "://" in repository else f"https://{repository}").netloc
