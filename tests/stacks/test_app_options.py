"""How the App is built: the CloudFormation check of a synth is cfn-lint's, not aws-cdk-lib's built-in validator."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import CfnResource, Stack

from stacks.app_options import new_app


def _broken_queue(outdir: Path) -> Path:
    app = new_app(outdir=str(outdir))
    stack = Stack(app, "BrokenQueue")
    CfnResource(stack, "Queue", type="AWS::SQS::Queue", properties={"VisibilityTimeout": "not-a-number"})
    app.synth()
    return outdir / "BrokenQueue.template.json"


def test_builtin_validator_is_off_and_cfn_lint_fails_what_it_would_warn_about(tmp_path: Path) -> None:
    from tests.helpers.cfn_lint import lint_errors

    template = _broken_queue(tmp_path)
    # The built-in validator writes validation-report.json whenever it runs (here: a type error to warn about).
    assert not (tmp_path / "validation-report.json").exists()
    assert "E3012" in [error.split(" ", 1)[0] for error in lint_errors(template)]


@pytest.mark.synth
def test_make_synth_runs_cdk_nag_but_not_the_builtin_validator(synthesized: Callable[[str], dict[str, Any]]) -> None:
    report = json.loads((synthesized("dev")["__outdir__"] / "validation-report.json").read_text())
    assert [r["pluginName"] for r in report["pluginReports"]] == ["AwsSolutions"]


@pytest.mark.synth
def test_the_synthesis_builds_every_stack_without_loading_cdk8s() -> None:
    """``make synth`` renders in its renderer process and hands the objects over: the synthesizing
    process builds the stacks from them and never loads cdk8s (its jsii runtime stays smaller); its
    early kernel loaded every assembly the stacks load (``stacks.JSII_MODULES``)."""
    import dataclasses
    import subprocess
    import sys

    from charts.render import render_checked
    from config.load import REPO_ROOT
    from policy.environment.load import load_environment

    objects = dataclasses.asdict(render_checked(load_environment(name="dev")).deployed())
    script = (
        "import json, sys\n"
        "import stacks\n"
        "from accelerator.runtime import assembly_loads, start_command_runtime\n"
        "start_command_runtime(stacks.JSII_MODULES)\n"  # as cli.synth's synthesizing process
        "from jsii._kernel import Kernel\n"
        "loads, own_load = [], Kernel.load\n"
        "Kernel.load = lambda self, name, *rest: loads.append(name) or own_load(self, name, *rest)\n"
        "from aws_cdk import App\n"
        "from stacks.environment import add_environment_stacks\n"
        "from charts.deployed import DeployedObjects\n"
        "from policy.environment.load import load_environment\n"
        "app = App()\n"
        "add_environment_stacks(app, load_environment(name='dev'), DeployedObjects(**json.load(sys.stdin)))\n"
        "preloaded = [load['name'] for load in assembly_loads(stacks.JSII_MODULES)]\n"
        "print(len(app.node.find_all()), sorted(loads) == sorted(preloaded),"
        " sorted(m for m in sys.modules if m.startswith('cdk8s')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(objects),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    constructs, all_preloaded, loaded = result.stdout.split(" ", 2)
    assert int(constructs) > 100 and loaded.strip() == "[]"
    assert all_preloaded == "True"  # stacks.JSII_MODULES names every assembly the stacks load
