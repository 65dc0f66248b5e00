"""Shared fixtures: each example environment is synthesized once per test session."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from config import EnvironmentConfig, load_environment
from config.load import REPO_ROOT
from config.model import EnvironmentConfig as _Env

SHARED = REPO_ROOT.parent / "shared"
REFERENCE = SHARED / "reference"
EXAMPLE_ENVIRONMENTS = ("dev", "ci", "prod-example", "karpenter-example")


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """``synthesized(env_name)`` -> {stack name: template dict}, synthesized once per name."""
    cache: dict[str, dict[str, Any]] = {}

    def get(name: str) -> dict[str, Any]:
        if name not in cache:
            from cli.synth import synth_cloudformation

            outdir = tmp_path_factory.mktemp(f"cdk-{name}")
            synth_cloudformation(load_environment(name=name), outdir)
            cache[name] = {
                p.name.removesuffix(".template.json"): json.loads(p.read_text())
                for p in sorted(outdir.glob("*.template.json"))
            }
            cache[name]["__outdir__"] = outdir
        return cache[name]

    return get


@pytest.fixture
def dev_data() -> dict[str, Any]:
    """The dev environment as plain data, for tests that mutate one field."""
    import yaml

    return yaml.safe_load((REPO_ROOT / "environments" / "dev.yaml").read_text())


def env_from(data: dict[str, Any]) -> _Env:
    from config.load import parse_environment

    return parse_environment(data)


__all__ = ["EXAMPLE_ENVIRONMENTS", "REFERENCE", "EnvironmentConfig", "Path", "env_from"]
