"""Only images that exist: every pin has a row with its release, source and date; the shipped
environments acknowledge no unverified release; ``make preflight`` looks each pin up in its registry.

Registry look-ups run against ``tests/helpers/fake_registry.py`` on 127.0.0.1; a guard refuses any
connection to another address while these tests run.
"""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml

from addons.cluster_autoscaler.pin import (
    CLUSTER_AUTOSCALER_CHART_VERSION,
    CLUSTER_AUTOSCALER_IMAGE,
    CLUSTER_AUTOSCALER_RELEASES,
    CLUSTER_AUTOSCALER_VERSION,
)
from addons.efa_device_plugin.pin import EFA_DEVICE_PLUGIN_IMAGE_TAG, regional_efa_pin
from addons.karpenter.pin import KARPENTER_CONTROLLER_IMAGE, KARPENTER_RELEASES, KARPENTER_VERSION
from addons.kube_prometheus_stack.pin import (
    GRAFANA_CHART_VERSION,
    KUBE_PROMETHEUS_STACK_CHART_VERSION,
    PROMETHEUS_OPERATOR_VERSION,
)
from addons.nvidia_dra_driver.pin import DRA_DRIVER_CHART, DRA_DRIVER_IMAGE
from catalog import versions
from catalog.images import CHARTS, CHECKED, IMAGES, IMAGES_BY_REFERENCE, ImagePin
from cli.live.registry import MANIFEST_TYPES, RegistryClient, look_up
from config.load import ENVIRONMENTS_DIR, REPO_ROOT, environment_names
from policy.environment.acknowledgements import UNVERIFIED_RELEASES, acknowledged_risks
from policy.environment.load import load_environment
from policy.infrastructure.images import Lookup, Outcome, chart_check, deployed_charts, deployed_images, image_check
from policy.results import Check, Status
from tests.conftest import REFERENCE, env_from
from tests.helpers import yaml_files
from tests.helpers.fake_registry import ECR_TOKEN, TOKEN, FakeRegistries, digest, serving

SHIPPED = environment_names()


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No connection leaves the machine: anything but 127.0.0.1 is refused before it is tried."""
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "localhost"):
            raise AssertionError(f"a test tried to reach {address!r}")
        connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


def _shipped_data(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml_files.load((ENVIRONMENTS_DIR / f"{name}.yaml").read_text())
    return data


def unverified_release_acknowledgements(data: dict[str, Any]) -> list[str]:
    """The settings of an environment file that acknowledge an unverified release, whether or not they
    take effect, plus the acknowledged risks of that kind it synthesizes with."""
    found = [
        f"{section}.acknowledge_unverified_release"
        for section in ("cluster_autoscaler", "karpenter")
        if (data.get(section) or {}).get("acknowledge_unverified_release")
    ]
    found += [r.field for r in acknowledged_risks(env_from(data)) if r.acknowledgement in UNVERIFIED_RELEASES]
    return found


# --- the table -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SHIPPED)
def test_every_image_and_chart_a_shipped_environment_deploys_has_a_row(name: str) -> None:
    env = load_environment(name=name)
    for pin in deployed_images(env):
        row = IMAGES_BY_REFERENCE.get(pin.image) or regional_efa_pin(pin.image)
        assert row == pin, f"{name}: {pin.image} has no row in catalog/images.py"
    for row in [*deployed_images(env), *deployed_charts(env)]:
        assert row.source and row.release and row.checked == CHECKED == "2026-12-03"
        assert row.verified or row.source.startswith("none"), row  # an unverified row says nothing confirms it


def test_every_row_names_its_release_source_and_date() -> None:
    assert len({pin.image for pin in IMAGES}) == len(IMAGES)
    for row in (*IMAGES, *CHARTS):
        assert row.release and row.source and row.checked == CHECKED, row
        assert row.verified == (not row.source.startswith("none")), row


def test_cluster_autoscaler_pins_the_newest_confirmed_release_and_keeps_1_37_0_unverified() -> None:
    pinned = IMAGES_BY_REFERENCE[f"{CLUSTER_AUTOSCALER_IMAGE}:v{CLUSTER_AUTOSCALER_VERSION}"]
    assert (pinned.tag, pinned.release, pinned.verified) == ("v1.36.1", "cluster-autoscaler-1.36.1", True)
    assert "releases/tag/cluster-autoscaler-1.36.1" in pinned.source
    later = IMAGES_BY_REFERENCE["registry.k8s.io/autoscaling/cluster-autoscaler:v1.37.0"]
    assert not later.verified and not CLUSTER_AUTOSCALER_RELEASES["1.37.0"].verified
    assert later.source.startswith("none: branch cluster-autoscaler-release-1.37 had no tag")


def test_karpenter_pins_the_confirmed_release_and_keeps_1_15_0_unverified() -> None:
    pinned = IMAGES_BY_REFERENCE[f"{KARPENTER_CONTROLLER_IMAGE}:{KARPENTER_VERSION}"]
    assert (pinned.tag, pinned.verified) == ("1.14.1", True)
    assert not IMAGES_BY_REFERENCE["public.ecr.aws/karpenter/controller:1.15.0"].verified
    assert not KARPENTER_RELEASES["1.15.0"].verified
    charts = {c.pin.chart: c for c in CHARTS}
    assert charts["karpenter"].pin.version == charts["karpenter-crd"].pin.version == "1.14.1"
    assert charts["karpenter"].verified and charts["karpenter-crd"].verified


def test_exporter_base_image_is_the_dockerfiles() -> None:
    (base,) = [
        line.split()[1]
        for line in (REPO_ROOT / "exporter" / "Dockerfile").read_text().splitlines()
        if line.startswith("FROM ")
    ]
    assert f"docker.io/library/{base}" == versions.EXPORTER_BASE_IMAGE
    assert IMAGES_BY_REFERENCE[versions.EXPORTER_BASE_IMAGE].verified is False


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


@pytest.mark.reference
def test_rows_from_reference_copies_match_them() -> None:
    """What a verified row says it read in ``shared/reference`` is what the copy says."""
    kps = _yaml(REFERENCE / "kube-prometheus-stack-88.5.3" / "values.yaml")
    kps_chart = _yaml(REFERENCE / "kube-prometheus-stack-88.5.3" / "Chart.yaml")
    assert kps_chart["version"] == KUBE_PROMETHEUS_STACK_CHART_VERSION
    assert kps_chart["appVersion"] == PROMETHEUS_OPERATOR_VERSION
    assert {d["name"]: d["version"] for d in kps_chart["dependencies"]}["grafana"] == GRAFANA_CHART_VERSION
    operator = kps["prometheusOperator"]
    for values, name in (
        (operator["image"], "prometheus-operator/prometheus-operator"),
        (operator["prometheusConfigReloader"]["image"], "prometheus-operator/prometheus-config-reloader"),
        (operator["admissionWebhooks"]["patch"]["image"], "jkroepke/kube-webhook-certgen"),
        (kps["prometheus"]["prometheusSpec"]["image"], "prometheus/prometheus"),
        (kps["alertmanager"]["alertmanagerSpec"]["image"], "prometheus/alertmanager"),
    ):
        assert values["repository"] == name
        reference = f"{values['registry']}/{name}:{values['tag'] or kps_chart['appVersion']}"
        assert IMAGES_BY_REFERENCE[reference].verified, reference
    efa = _yaml(REFERENCE / "aws-efa-k8s-device-plugin-v0.5.30" / "values.yaml")["image"]
    assert f"{efa['repository']}:{efa['tag']}" in IMAGES_BY_REFERENCE
    karpenter = _yaml(REFERENCE / "karpenter-v1.14.1" / "chart-values.yaml")["controller"]["image"]
    assert f"{karpenter['repository']}:{karpenter['tag']}" == f"{KARPENTER_CONTROLLER_IMAGE}:1.14.1"
    dra = _yaml(REFERENCE / "dra-driver-nvidia-gpu-v0.4.1" / "chart-values.yaml")["image"]
    assert (dra["repository"], dra["tag"]) == (DRA_DRIVER_IMAGE, "")
    ca = _yaml(REFERENCE / "cluster-autoscaler-chart-9.59.1" / "Chart.yaml")
    assert ca["version"] == CLUSTER_AUTOSCALER_CHART_VERSION


# --- shipped environments acknowledge no unverified release ----------------------------------------


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_environment_acknowledges_no_unverified_release(name: str) -> None:
    assert unverified_release_acknowledgements(_shipped_data(name)) == []
    env = load_environment(name=name)
    for risk in acknowledged_risks(env):
        assert risk.acknowledgement not in UNVERIFIED_RELEASES, risk.text


def test_the_check_finds_an_environment_that_acknowledges_an_unverified_release() -> None:
    dev = _shipped_data("dev")
    dev["cluster_autoscaler"] = {"version": "1.37.0", "acknowledge_unverified_release": True}
    assert unverified_release_acknowledgements(dev) == [
        "cluster_autoscaler.acknowledge_unverified_release",
        "cluster_autoscaler.version",
    ]
    karpenter = _shipped_data("karpenter-example")
    karpenter["karpenter"] = {"version": "1.15.0", "acknowledge_unverified_release": True}
    assert unverified_release_acknowledgements(karpenter) == [
        "karpenter.acknowledge_unverified_release",
        "karpenter.version",
    ]
    # An acknowledgement that takes no effect (no autoscaled pool) is still refused in a shipped file.
    ci = _shipped_data("ci")
    ci["cluster_autoscaler"] = {"acknowledge_unverified_release": True}
    assert unverified_release_acknowledgements(ci) == ["cluster_autoscaler.acknowledge_unverified_release"]


# --- decisions -------------------------------------------------------------------------------------

CA = IMAGES_BY_REFERENCE["registry.k8s.io/autoscaling/cluster-autoscaler:v1.36.1"]
LATER_CA = IMAGES_BY_REFERENCE["registry.k8s.io/autoscaling/cluster-autoscaler:v1.37.0"]


def test_found_verified_image_is_ok_with_its_release_and_date() -> None:
    assert image_check(CA, Lookup(Outcome.FOUND, "sha256:abc")) == Check(
        "image",
        "registry.k8s.io/autoscaling/cluster-autoscaler:v1.36.1",
        Status.OK,
        "resolves (sha256:abc); cluster-autoscaler-1.36.1, checked 2026-12-03",
    )


def test_found_unverified_image_is_a_warning() -> None:
    assert image_check(LATER_CA, Lookup(Outcome.FOUND, "sha256:def")) == Check(
        "image",
        "registry.k8s.io/autoscaling/cluster-autoscaler:v1.37.0",
        Status.WARN,
        "resolves (sha256:def), but no source confirms cluster-autoscaler-1.37.0 (catalog/images.py)",
        "record the source that confirms the release in catalog/images.py and set verified=True",
    )


def test_missing_image_fails() -> None:
    check = image_check(CA, Lookup(Outcome.MISSING, "no manifest for autoscaling/cluster-autoscaler:v1.36.1"))
    assert (check.status, check.detail, check.fix) == (
        Status.FAIL,
        "registry.k8s.io does not have it (no manifest for autoscaling/cluster-autoscaler:v1.36.1)",
        "pin a release that exists in catalog/versions.py and record its source in catalog/images.py",
    )


def test_image_without_a_pinned_tag_is_skipped_with_why() -> None:
    grafana = IMAGES_BY_REFERENCE["docker.io/grafana/grafana"]
    check = image_check(grafana, None)
    assert check.status is Status.SKIP
    assert check.detail.startswith("no tag pinned here: grafana chart 12.11.1 chooses it; none: ")


# --- the registry client, against the loopback fake ------------------------------------------------


@pytest.fixture
def registries() -> Iterator[FakeRegistries]:
    state = FakeRegistries(
        kinds={"602401143452.dkr.ecr.us-west-2.amazonaws.com": "basic", "ghcr.io": "no-head", "quay.io": "open"}
    )
    with serving(state):
        yield state


def _client(state: FakeRegistries, *, ecr: bool = False) -> RegistryClient:
    return RegistryClient(base_url=state.base_url, basic_auth=lambda registry: ECR_TOKEN if ecr else None)


def test_bearer_registry_answers_with_an_anonymous_token(registries: FakeRegistries) -> None:
    registries.manifests.add(("registry.k8s.io", "autoscaling/cluster-autoscaler", "v1.36.1"))
    found = _client(registries).manifest("registry.k8s.io", "autoscaling/cluster-autoscaler", "v1.36.1")
    assert found == Lookup(Outcome.FOUND, digest("registry.k8s.io", "autoscaling/cluster-autoscaler", "v1.36.1"))
    (first, token, second) = registries.requests
    assert (first[0], first[1]) == ("HEAD", "/registry.k8s.io/v2/autoscaling/cluster-autoscaler/manifests/v1.36.1")
    assert first[2]["Accept"] == MANIFEST_TYPES and "Authorization" not in first[2]
    assert token[1] == "/token?service=registry.k8s.io&scope=repository%3Aautoscaling%2Fcluster-autoscaler%3Apull"
    assert second[2]["Authorization"] == f"Bearer {TOKEN}"
    for media_type in ("oci.image.index.v1", "oci.image.manifest.v1", "docker.distribution.manifest.list.v2"):
        assert media_type in MANIFEST_TYPES


def test_missing_tag_is_missing(registries: FakeRegistries) -> None:
    lookup = _client(registries).manifest("registry.k8s.io", "autoscaling/cluster-autoscaler", "v1.37.0")
    assert lookup == Lookup(Outcome.MISSING, "no manifest for autoscaling/cluster-autoscaler:v1.37.0")


def test_private_ecr_needs_aws_credentials(registries: FakeRegistries) -> None:
    host, repository = "602401143452.dkr.ecr.us-west-2.amazonaws.com", "eks/aws-efa-k8s-device-plugin"
    registries.manifests.add((host, repository, "v0.5.20"))
    assert _client(registries).manifest(host, repository, "v0.5.20") == Lookup(
        Outcome.DENIED, "a private registry: needs AWS credentials"
    )
    assert _client(registries, ecr=True).manifest(host, repository, "v0.5.20").outcome is Outcome.FOUND
    assert registries.requests[-1][2]["Authorization"] == f"Basic {ECR_TOKEN}"


def test_registry_that_refuses_head_is_asked_with_get(registries: FakeRegistries) -> None:
    registries.manifests.add(("ghcr.io", "jkroepke/kube-webhook-certgen", "1.8.7"))
    assert _client(registries).manifest("ghcr.io", "jkroepke/kube-webhook-certgen", "1.8.7").outcome is Outcome.FOUND
    assert [r[0] for r in registries.requests] == ["HEAD", "GET"]


def test_http_chart_repository_is_read_from_its_index(registries: FakeRegistries) -> None:
    registries.indexes["https://kubernetes.github.io/autoscaler"] = {"cluster-autoscaler": ["9.59.0", "9.59.1"]}
    client = _client(registries)
    assert client.chart_index("https://kubernetes.github.io/autoscaler", "cluster-autoscaler", "9.59.1") == Lookup(
        Outcome.FOUND, "listed in https://kubernetes.github.io/autoscaler/index.yaml"
    )
    assert client.chart_index("https://kubernetes.github.io/autoscaler", "cluster-autoscaler", "9.60.0") == Lookup(
        Outcome.MISSING, "cluster-autoscaler 9.60.0 is not in https://kubernetes.github.io/autoscaler/index.yaml"
    )


def test_oci_chart_is_a_manifest(registries: FakeRegistries) -> None:
    (dra,) = [c for c in CHARTS if c.pin.chart == DRA_DRIVER_CHART]
    registries.manifests.add(("registry.k8s.io", "dra-driver-nvidia/charts/dra-driver-nvidia-gpu", "0.4.1"))
    lookup = _client(registries).chart(dra)
    assert lookup.outcome is Outcome.FOUND
    assert (
        chart_check(dra, lookup).detail
        == f"resolves ({lookup.detail}); dra-driver-nvidia-gpu 0.4.1, checked 2026-12-03"
    )


def _serve_everything(state: FakeRegistries, name: str) -> None:
    env = load_environment(name=name)
    for pin in deployed_images(env):
        state.manifests.add((pin.registry, pin.repository, pin.tag))
    for chart in deployed_charts(env):
        if chart.oci:
            registry, _, repository = chart.pin.repository.removeprefix("oci://").partition("/")
            state.manifests.add((registry, repository, chart.pin.version))
        else:
            state.indexes.setdefault(chart.pin.repository, {}).setdefault(chart.pin.chart, []).append(chart.pin.version)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_pin_of_a_shipped_environment_is_looked_up(registries: FakeRegistries, name: str) -> None:
    from cli.live.preflight import registry_report

    _serve_everything(registries, name)
    checks = registry_report(load_environment(name=name), _client(registries, ecr=True))
    env = load_environment(name=name)
    images = deployed_images(env)
    assert [c.subject for c in checks] == [p.image for p in images] + [
        f"{c.pin.repository} {c.pin.version}" for c in deployed_charts(env)
    ]
    expected = {pin.image: Status.SKIP if not pin.tag else Status.OK if pin.verified else Status.WARN for pin in images}
    assert {c.subject: c.status for c in checks if c.check == "image"} == expected
    assert all(
        c.status is (Status.OK if ch.verified else Status.WARN)
        for c, ch in zip(checks[len(images) :], deployed_charts(env), strict=True)
    )


# --- no network ------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_without_network_the_registry_checks_are_one_skipped_line() -> None:
    from cli.live.preflight import registry_report

    port = _closed_port()
    client = RegistryClient(base_url=lambda where: f"http://127.0.0.1:{port}", timeout_seconds=2)
    checks = registry_report(load_environment(name="dev"), client)
    (check,) = checks
    assert (check.check, check.subject, check.status) == ("images", "registries", Status.SKIP)
    assert check.detail.startswith("skipped: no network access to the registries (registry.k8s.io: ")
    assert "\n" not in check.detail and "Traceback" not in check.detail


def test_look_up_gives_up_after_two_unreachable_hosts_when_none_answered() -> None:
    port = _closed_port()
    asked: list[str] = []

    def base_url(where: str) -> str:
        asked.append(where)
        return f"http://127.0.0.1:{port}"

    images = [p for p in IMAGES if p.tag and p.registry in ("registry.k8s.io", "public.ecr.aws")]
    image_answers, chart_answers, offline = look_up(RegistryClient(base_url=base_url), images, CHARTS)
    assert (image_answers, chart_answers) == ({}, {})
    assert asked == ["registry.k8s.io", "public.ecr.aws"]  # each host once, then no more
    assert offline is not None and offline.startswith("registry.k8s.io: ") and "; public.ecr.aws: " in offline


def test_one_unreachable_registry_is_a_skip_of_its_own(registries: FakeRegistries) -> None:
    closed = _closed_port()
    registries.manifests.add(("public.ecr.aws", "karpenter/controller", "1.14.1"))

    def base_url(where: str) -> str:
        return f"http://127.0.0.1:{closed}" if where == "registry.k8s.io" else registries.base_url(where)

    images = [
        IMAGES_BY_REFERENCE[versions.SMOKE_TEST_IMAGE],
        IMAGES_BY_REFERENCE["public.ecr.aws/karpenter/controller:1.14.1"],
    ]
    image_answers, _, offline = look_up(RegistryClient(base_url=base_url), images, [])
    assert offline is None
    assert image_answers["public.ecr.aws/karpenter/controller:1.14.1"].outcome is Outcome.FOUND
    pause = image_check(images[0], image_answers[versions.SMOKE_TEST_IMAGE])
    assert (pause.status, pause.detail.split(" (")[0]) == (Status.SKIP, "skipped: registry.k8s.io unreachable")


def test_preflight_command_reports_registries_and_says_offline_in_one_line(
    monkeypatch: pytest.MonkeyPatch, registries: FakeRegistries
) -> None:
    """``main`` end to end, with AWS answered by a stub and the registries by the fake, then offline."""
    import cli.live.preflight

    monkeypatch.setattr(cli.live.preflight, "read_docker", lambda: ("27.3.1", None))  # not this machine's daemon
    monkeypatch.setattr(cli.live.preflight, "gather", lambda env, **kwargs: [])
    monkeypatch.setattr(boto3, "client", lambda service, region_name: object())  # gather, stubbed, asks nothing
    _serve_everything(registries, "ci")
    monkeypatch.setattr(cli.live.preflight, "registry_client", lambda: _client(registries))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.live.preflight.main(["--env", "ci", "--json"])
    assert (code, err.getvalue()) == (0, "")
    report = json.loads(out.getvalue())
    assert [(c["check"], c["subject"], c["status"]) for c in report["checks"]] == [
        ("docker", "gang exporter image (exporter/)", "ok"),
        ("image", "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1", "ok"),
        ("image", "registry.k8s.io/pause:3.10", "ok"),
        ("image", "docker.io/library/python:3.11-slim", "warn"),
        ("chart", "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu 0.4.1", "ok"),
    ]
    port = _closed_port()
    monkeypatch.setattr(
        cli.live.preflight, "registry_client", lambda: RegistryClient(base_url=lambda w: f"http://127.0.0.1:{port}")
    )
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert cli.live.preflight.main(["--env", "ci"]) == 0
    lines = out.getvalue().splitlines()
    (skipped,) = [line for line in lines if "registries" in line]
    assert skipped.split()[:3] == ["images", "registries", "SKIP"]
    assert "skipped: no network access to the registries (registry.k8s.io: " in skipped
    assert lines[-1] == "1 ok, 0 warn, 0 fail, 1 skip"  # Docker's row, then the registries skipped
    assert err.getvalue() == ""


def test_no_registries_leaves_the_look_ups_out(monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.live.preflight

    monkeypatch.setattr(cli.live.preflight, "read_docker", lambda: ("27.3.1", None))  # not this machine's daemon
    monkeypatch.setattr(cli.live.preflight, "gather", lambda env, **kwargs: [])
    monkeypatch.setattr(boto3, "client", lambda service, region_name: object())  # gather, stubbed, asks nothing

    def refuse() -> RegistryClient:
        raise AssertionError("no registry may be asked")

    monkeypatch.setattr(cli.live.preflight, "registry_client", refuse)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.live.preflight.main(["--env", "ci", "--no-registries"]) == 0
    assert out.getvalue().splitlines()[-1] == "1 ok, 0 warn, 0 fail, 0 skip"  # Docker's row only


def test_an_image_without_a_row_gets_an_unverified_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import policy.infrastructure.images

    monkeypatch.setattr(
        policy.infrastructure.images,
        "efa_device_plugin_values",
        lambda env: {"image": {"repository": "x.example/efa", "tag": "v9"}},
    )
    (efa,) = [p for p in deployed_images(load_environment(name="dev")) if "efa" in p.image]
    assert efa == ImagePin(
        "EFA device plugin", "x.example/efa:v9", "unknown", "none: no row in catalog/images.py", verified=False
    )


def test_the_image_pins_page_records_the_release_each_deployed_pin_was_checked_against() -> None:
    section = (REPO_ROOT / "docs" / "reference" / "image-pins.md").read_text()
    for name in SHIPPED:
        for pin in deployed_images(load_environment(name=name)):
            shown = pin.image.rsplit("/", 1)[-1] if pin.tag else pin.release  # untagged: the subchart that picks it
            assert shown in section, f"docs/reference/image-pins.md misses {pin.image}"
        for chart in deployed_charts(load_environment(name=name)):
            assert f"{chart.pin.chart} {chart.pin.version}" in section or chart.pin.chart in section


def test_efa_device_plugin_in_another_regions_eks_registry_keeps_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import policy.infrastructure.images

    east = "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-efa-k8s-device-plugin"
    values = {"image": {"repository": east, "tag": EFA_DEVICE_PLUGIN_IMAGE_TAG}}
    monkeypatch.setattr(policy.infrastructure.images, "efa_device_plugin_values", lambda env: values)
    (efa,) = [p for p in deployed_images(load_environment(name="dev")) if "efa" in p.image]
    assert (efa.image, efa.component, efa.release, efa.verified) == (
        f"{east}:v0.5.20",
        "EFA device plugin (us-east-1)",
        "aws-efa-k8s-device-plugin chart v0.5.30",
        True,
    )
    assert efa.source.endswith("the same release in the EKS registry of us-east-1")
    assert regional_efa_pin(f"{east}:v0.5.99") is None  # another release needs its own row


def test_registries_are_still_looked_up_when_aws_cannot_be_asked(
    monkeypatch: pytest.MonkeyPatch, registries: FakeRegistries
) -> None:
    from botocore.exceptions import NoCredentialsError

    import cli.live.preflight

    def no_credentials(env: Any, **kwargs: Any) -> list[Check]:
        raise NoCredentialsError()

    monkeypatch.setattr(cli.live.preflight, "read_docker", lambda: ("27.3.1", None))  # not this machine's daemon
    monkeypatch.setattr(cli.live.preflight, "gather", no_credentials)
    monkeypatch.setattr(boto3, "client", lambda service, region_name: object())
    _serve_everything(registries, "ci")
    monkeypatch.setattr(cli.live.preflight, "registry_client", lambda: _client(registries))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert cli.live.preflight.main(["--env", "ci"]) == 2
    lines = out.getvalue().splitlines()
    assert lines[0] == "preflight ci (us-east-2): registries only"
    assert lines[-1] == "4 ok, 1 warn, 0 fail, 0 skip"  # Docker's row and the registries
    assert err.getvalue() == "error: preflight of ci could not ask AWS: Unable to locate credentials\n"


def test_ecr_token_only_for_private_ecr_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.live.preflight import ecr_basic_auth

    asked: list[str] = []

    class Ecr:
        def get_authorization_token(self) -> dict[str, Any]:
            return {"authorizationData": [{"authorizationToken": ECR_TOKEN}]}

    def client(service: str, region_name: str) -> Ecr:
        asked.append(f"{service}/{region_name}")
        return Ecr()

    monkeypatch.setattr(boto3, "client", client)
    assert ecr_basic_auth("602401143452.dkr.ecr.eu-west-1.amazonaws.com") == ECR_TOKEN
    assert ecr_basic_auth("public.ecr.aws") is None
    assert ecr_basic_auth("registry.k8s.io") is None
    assert asked == ["ecr/eu-west-1"]


def test_challenge_parameters_and_realms_with_a_query(monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.live import registry

    assert registry._challenge_params(
        'Bearer realm="https://x/token?a=1",service="x",scope="repository:a/b:pull,push"'
    ) == {
        "realm": "https://x/token?a=1",
        "service": "x",
        "scope": "repository:a/b:pull,push",
    }
    opened: list[str] = []

    def fake_open(self: RegistryClient, request: Any) -> tuple[int, Any, bytes]:
        opened.append(request.full_url)
        return 200, {}, json.dumps({"access_token": "t"}).encode()

    monkeypatch.setattr(RegistryClient, "_open", fake_open)
    assert RegistryClient()._token('Bearer realm="https://x/token?a=1",service="x"', "a/b") == "t"
    assert opened == ["https://x/token?a=1&service=x&scope=repository%3Aa%2Fb%3Apull"]
