"""``make synth`` shows the CDK's warnings as ``warning:`` lines; the ones the kit can act on are acted on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cli.cdk_messages import cdk_warnings

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
    Annotations.of(stack).add_warning_v2("gpu-platform:karpenter-unverified-release", "printed where it arises")
    assert cdk_warnings(app.synth()) == [
        "warning: /Probe: something the user should know [ack: @aws-cdk/example:thing]",
        "warning: /Probe: the kit's own [ack: gpu-platform:own]",
    ]


@pytest.mark.synth
def test_imported_subnets_give_one_actionable_warning_instead_of_six(synthesized: Synth) -> None:
    assembly = _assembly(synthesized, "prod-example")
    # Route tables are never read (acknowledged); six per-subnet lines become one that says what to tag.
    assert [w for w in cdk_warnings(assembly) if "ClusterAutoscaler" not in w] == [
        "warning: /gpu-cluster-prod-example/Cluster: network.existing_vpc: tag the private subnets "
        "subnet-0a1b2c3d4e5f60711, subnet-0a1b2c3d4e5f60722, subnet-0a1b2c3d4e5f60733 with "
        "kubernetes.io/role/internal-elb=1 for internal load balancers (the stack "
        "cannot tag imported subnets; Karpenter selects them by id and needs no tag; cluster gpu-prod) "
        "[ack: gpu-platform:tag-imported-subnets]"
    ]


@pytest.mark.synth
def test_created_vpcs_synthesize_without_network_warnings(synthesized: Synth) -> None:
    # Only the acknowledged Cluster Autoscaler release is left to say.
    assert [w.split(":", 2)[1] for w in cdk_warnings(_assembly(synthesized, "dev"))] == [
        " /gpu-cluster-dev/ClusterAutoscaler"
    ]


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
    assert [w.split(": ", 2)[1] for w in warnings] == [
        "/gpu-cluster-prod-example/Cluster",
        "/gpu-cluster-prod-example/ClusterAutoscaler",
    ]
    assert "kubernetes.io/role/internal-elb=1" in warnings[0]
    assert result.stdout.startswith("synthesized prod-example")
    written = {p.name: json.loads(p.read_text()) for p in sorted((tmp_path / "cdk.out").glob("*.template.json"))}
    in_process = synthesized("prod-example")
    assert written == {f"{name}.template.json": in_process[name] for name in in_process if name != "__outdir__"}
