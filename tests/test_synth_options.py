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
    from cfnlint.api import lint_file

    template = _broken_queue(tmp_path)
    # The built-in validator writes validation-report.json whenever it runs (here: a type error to warn about).
    assert not (tmp_path / "validation-report.json").exists()
    errors = [m.rule.id for m in lint_file(template) if m.rule.id.startswith("E")]
    assert "E3012" in errors


@pytest.mark.synth
def test_make_synth_runs_cdk_nag_but_not_the_builtin_validator(synthesized: Callable[[str], dict[str, Any]]) -> None:
    report = json.loads((synthesized("dev")["__outdir__"] / "validation-report.json").read_text())
    assert [r["pluginName"] for r in report["pluginReports"]] == ["AwsSolutions"]
