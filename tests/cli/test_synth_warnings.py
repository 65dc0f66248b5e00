"""``make synth`` shows the CDK's warnings as ``warning:`` lines; the ones the kit can act on are acted on.

Acknowledged risks are printed once, from the configuration (``policy.environment.acknowledgements``), and left
out of the CDK's warnings, which carry them too for ``cdk synth``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cli.cdk_messages import cdk_warnings
from policy.environment.acknowledgements import Acknowledgement, acknowledged_risks
from policy.environment.load import load_environment
from tests.addons.karpenter.conftest import example_data
from tests.conftest import env_from

Synth = Callable[[str], dict[str, Any]]


def _assembly(synthesized: Synth, name: str) -> Any:
    from aws_cdk import cx_api

    return cx_api.CloudAssembly(str(synthesized(name)["__outdir__"]))


def test_a_cdk_warning_becomes_one_warning_line() -> None:
    from aws_cdk import Annotations, Stack

    from stacks.app_options import new_app

    app = new_app()
    stack = Stack(app, "Probe")
    Annotations.of(stack).add_warning_v2("@aws-cdk/example:thing", "something the user\nshould know")
    Annotations.of(stack).add_warning_v2("gpu-platform:own", "the kit's own")
    Annotations.of(stack).add_warning("added without an id")
    for acknowledgement in Acknowledgement:  # make synth printed these from the configuration already
        Annotations.of(stack).add_warning_v2(acknowledgement.value, "an acknowledged risk")
    # Dropped by id: a warning that only mentions an acknowledgement id in its text stays.
    mention = "unlike [ack: gpu-platform:karpenter.acknowledge_unverified_release]"
    Annotations.of(stack).add_warning_v2("gpu-platform:other", mention)
    assert cdk_warnings(app.synth()) == [
        "warning: /Probe: something the user should know [ack: @aws-cdk/example:thing]",
        "warning: /Probe: the kit's own [ack: gpu-platform:own]",
        "warning: /Probe: added without an id",
        "warning: /Probe: unlike [ack: gpu-platform:karpenter.acknowledge_unverified_release] "
        "[ack: gpu-platform:other]",
    ]


def _risky_data() -> dict[str, Any]:
    """The Karpenter example with a public endpoint open to every address and an autoscaled node group."""
    data = example_data()
    data["cluster"].update(public_access_cidrs=["0.0.0.0/0"], acknowledge_public_endpoint_open_to_internet=True)
    data["gpu_pools"][2].update(scaling="autoscaled", min_size=1)
    data["cluster_autoscaler"] = {"acknowledge_version_skew": True}
    return data


def test_every_acknowledged_risk_in_use_is_listed_in_order() -> None:
    assert [r.acknowledgement for r in acknowledged_risks(env_from(_risky_data()))] == [
        Acknowledgement.PUBLIC_ENDPOINT_OPEN_TO_INTERNET,
        Acknowledgement.KARPENTER_UNSUPPORTED_KUBERNETES,
        Acknowledgement.CLUSTER_AUTOSCALER_VERSION_SKEW,
    ]
    assert acknowledged_risks(load_environment(name="ci")) == []


def test_make_synth_prints_each_acknowledged_risk_as_one_warning_line(tmp_path: Any) -> None:
    from cli.synth import configuration_warnings

    env = env_from(_risky_data())
    assert configuration_warnings(env, tmp_path) == [  # no team directories: only the acknowledged risks
        f"warning: {r.text}" for r in acknowledged_risks(env)
    ]


@pytest.mark.synth
def test_each_acknowledged_risk_is_a_cdk_warning_on_its_construct_and_building_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from aws_cdk.assertions import Annotations, Match

    from charts.render import render_checked
    from stacks.app_options import new_app
    from stacks.cluster_stack import GpuClusterStack

    env = env_from(_risky_data())
    objects = render_checked(env).deployed()
    capfd.readouterr()
    stack = GpuClusterStack(new_app(), "gpu-cluster-risky", env=env, objects=objects)
    assert capfd.readouterr().err == ""  # make synth prints them, once
    found = Annotations.from_stack(stack).find_warning("*", Match.any_value())
    (endpoint, karpenter, autoscaler) = acknowledged_risks(env)
    assert [(w.id, w.entry.data) for w in found] == [
        (
            "/gpu-cluster-risky/Cluster",
            f"{endpoint.text} [ack: gpu-platform:cluster.acknowledge_public_endpoint_open_to_internet]",
        ),
        (
            "/gpu-cluster-risky/Karpenter",
            f"{karpenter.text} [ack: gpu-platform:karpenter.acknowledge_unsupported_kubernetes]",
        ),
        (
            "/gpu-cluster-risky/ClusterAutoscaler",
            f"{autoscaler.text} [ack: gpu-platform:cluster_autoscaler.acknowledge_version_skew]",
        ),
    ]


@pytest.mark.synth
def test_imported_subnets_give_one_actionable_warning_instead_of_six(synthesized: Synth) -> None:
    assembly = _assembly(synthesized, "prod-example")
    # Route tables are never read (acknowledged); six per-subnet lines become one that says what to tag.
    assert cdk_warnings(assembly) == [
        "warning: /gpu-cluster-prod-example/Cluster: network.existing_vpc: tag the private subnets "
        "subnet-0a1b2c3d4e5f60711, subnet-0a1b2c3d4e5f60722, subnet-0a1b2c3d4e5f60733 with "
        "kubernetes.io/role/internal-elb=1 for internal load balancers (the stack "
        "cannot tag imported subnets; Karpenter selects them by id and needs no tag; cluster gpu-prod) "
        "[ack: gpu-platform:tag-imported-subnets]"
    ]


@pytest.mark.synth
def test_created_vpcs_synthesize_without_network_warnings(synthesized: Synth) -> None:
    # dev's acknowledged Cluster Autoscaler version skew is a CDK warning, which make synth prints from the config.
    assert cdk_warnings(_assembly(synthesized, "dev")) == []


@pytest.mark.synth
def test_make_synth_prints_each_cdk_warning_as_one_line(tmp_path: Any, synthesized: Synth) -> None:
    """Also: the stacks built from what the renderer process sent are the stacks one process builds."""
    import json
    import os
    import subprocess
    import sys

    from config.load import REPO_ROOT

    outputs = ["--cdk-out", str(tmp_path / "cdk.out"), "--dist", str(tmp_path / "dist")]
    result = subprocess.run(
        [sys.executable, "-m", "cli.synth", "--env", "prod-example", *outputs],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    # The acknowledged risk once (from the configuration, by the renderer), the renderer's notes of what the
    # fallback form cannot honour (one per setting), then the CDK's own warning.
    (risk,) = acknowledged_risks(load_environment(name="prod-example"))
    assert risk.acknowledgement is Acknowledgement.CLUSTER_AUTOSCALER_VERSION_SKEW
    assert [w.split(": ", 2)[1] for w in warnings] == [
        risk.field,
        "teams/data-eng/feature-backfill.yaml",
        "teams/data-eng/feature-backfill.yaml",
        "teams/llm-research/pretrain-70b.yaml",
        "/gpu-cluster-prod-example/Cluster",
    ]
    assert warnings[0] == f"warning: {risk.text}"
    assert warnings[1] == (
        "warning: teams/data-eng/feature-backfill.yaml: min_replicas: 6 (written in the run) is not honoured: "
        "without GenericWorkload there is no gang minimum: the fallback form starts Pods one by one"
    )
    assert "kubernetes.io/role/internal-elb=1" in warnings[-1]
    assert result.stderr.count(risk.risk) == 1
    assert result.stdout.startswith("synthesized prod-example")
    written = {p.name: json.loads(p.read_text()) for p in sorted((tmp_path / "cdk.out").glob("*.template.json"))}
    in_process = synthesized("prod-example")
    assert written == {f"{name}.template.json": in_process[name] for name in in_process if name != "__outdir__"}


def test_each_acknowledgement_id_names_the_setting_that_accepts_it() -> None:
    """The CDK CLI's hint ("Acknowledge with 'Annotation::<id>'") names the environment file's key."""
    from config.model import EnvironmentConfig

    risks = {r.acknowledgement: r for r in acknowledged_risks(env_from(_risky_data()))}
    for acknowledgement in Acknowledgement:
        section, key = acknowledgement.setting.split(".")
        owner = EnvironmentConfig.model_fields[section].annotation
        assert key in owner.model_fields, acknowledgement  # type: ignore[union-attr]
        assert acknowledgement.value == f"gpu-platform:{section}.{key}"
        if acknowledgement in risks:
            assert f"because {acknowledgement.setting} is true" in risks[acknowledgement].text
