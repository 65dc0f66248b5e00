"""The synth benchmark's baseline: one SQS queue, built with the App options every synthesis path uses."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

from stacks import app_options


def test_it_synthesizes_one_queue_with_the_projects_app_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Any] = []
    new_app = app_options.new_app

    def recording(*, outdir: str | None = None) -> Any:
        app = new_app(outdir=outdir or str(tmp_path))
        built.append(app)
        return app

    monkeypatch.setattr(app_options, "new_app", recording)
    runpy.run_module("bench.trivial_app", run_name="__main__")
    assert len(built) == 1
    template = json.loads((tmp_path / "trivial.template.json").read_text())
    assert [r["Type"] for r in template["Resources"].values()] == ["AWS::SQS::Queue"]
    assert built[0].node.try_get_context("aws:cdk:disable-stack-trace") is True
