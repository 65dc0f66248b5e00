"""An add-on is one folder: a new one under ``addons/`` is found, and its pins reach the central tables.

In a copy of the packages, ``addons/fake_addon/`` gets a pin, settings, a plan and a construct (five
files); nothing outside that folder is edited. Its image, chart and chart API groups then appear in
``catalog.images`` and ``catalog.versions`` (discovery: no registration line), and every import contract
still holds.

What is not discovered, said plainly: an add-on is named outside its folder where it is wired in, and
the last tests hold the tree to that list (``CONSTRUCTED_IN``, ``RULES_CALLED_IN``): its settings field
on ``config.model.EnvironmentConfig`` (the environment file's section is typed), the creation of its
construct (``stacks.cluster_stack``, or ``stacks.observability`` for kube-prometheus-stack: each add-on
takes its own inputs, in an order the templates keep), and the call of its cross-field rules
(``policy.environment.validate``, where the order of the refusals is kept).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.architecture.test_import_contracts import LINT_IMPORTS, PACKAGES, REPO

FAKE = {
    "__init__.py": '"""A fake add-on: one image and one chart, with settings, a plan and a construct."""\n',
    "pin.py": '''"""The fake add-on's pins."""

from catalog.pins import REFERENCE, ChartPin, ImagePin, chart_source

FAKE_CHART = ChartPin("fake-addon", "https://charts.example.com", "1.2.3", "fake-addon", "kube-system")
IMAGES = (ImagePin("Fake add-on", "registry.example.com/fake-addon:v1.2.3", "fake 1.2.3", REFERENCE, verified=True),)
CHARTS = (chart_source(FAKE_CHART, f"{REFERENCE}/fake-addon-1.2.3/Chart.yaml"),)
CHART_API_GROUPS: dict[str, tuple[str, ...]] = {"fake-addon": ("fake.example.com",)}
''',
    "settings.py": '''"""The fake add-on's section of an environment file."""

from config.model_base import Model


class FakeAddonConfig(Model):
    replicas: int = 1
''',
    "plan.py": '''"""The fake add-on's chart values."""

from typing import Any

from addons.fake_addon.settings import FakeAddonConfig
from policy.results import Status


def fake_addon_values(config: FakeAddonConfig) -> dict[str, Any]:
    return {"replicas": config.replicas, "status": Status.OK.value}
''',
    "construct.py": '''"""The fake add-on's Helm release."""

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from addons.fake_addon.pin import FAKE_CHART
from addons.fake_addon.plan import fake_addon_values
from addons.fake_addon.settings import FakeAddonConfig
from stacks.helm import pinned_chart


class FakeAddon(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.Cluster, config: FakeAddonConfig) -> None:
        super().__init__(scope, construct_id)
        self.chart = pinned_chart(self, "Chart", cluster=cluster, pin=FAKE_CHART, values=fake_addon_values(config))
''',
}

CONSTRUCTED_IN = ("stacks/cluster_stack.py", "stacks/observability.py")
"""The modules outside ``addons/`` that create an add-on's construct (one per add-on)."""
RULES_CALLED_IN = ("policy/environment/validate.py",)
"""The module outside ``addons/`` that calls the add-ons' cross-field rules."""


@pytest.fixture(scope="module")
def copy_with_fake_addon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    for package in PACKAGES:
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    folder = root / "addons" / "fake_addon"
    folder.mkdir()
    for name, text in FAKE.items():
        (folder / name).write_text(text)
    return root


def test_the_new_addon_is_discovered_into_the_central_tables(copy_with_fake_addon: Path) -> None:
    script = """
import json
import addons
from catalog import images, versions
from addons.fake_addon.plan import fake_addon_values
from addons.fake_addon.settings import FakeAddonConfig
print(json.dumps({
    "names": list(addons.names()),
    "image": "registry.example.com/fake-addon:v1.2.3" in images.IMAGES_BY_REFERENCE,
    "chart": any(c.pin.chart == "fake-addon" for c in images.CHARTS),
    "groups": list(versions.CHART_API_GROUPS.get("fake-addon", ())),
    "values": fake_addon_values(FakeAddonConfig()),
}))
"""
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=copy_with_fake_addon, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert "fake_addon" in found["names"]
    assert found["image"] and found["chart"]
    assert found["groups"] == ["fake.example.com"]
    assert found["values"] == {"replicas": 1, "status": "ok"}


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason=f"{LINT_IMPORTS} is not installed")
def test_the_new_addon_keeps_every_contract_without_naming_it(copy_with_fake_addon: Path) -> None:
    assert "fake_addon" not in (copy_with_fake_addon / "pyproject.toml").read_text()
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", "pyproject.toml"],
        cwd=copy_with_fake_addon,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _outside_addons_naming(pattern: str) -> list[str]:
    naming = re.compile(pattern)
    return sorted(
        path.relative_to(REPO).as_posix()
        for package in PACKAGES
        if package != "addons"
        for path in (REPO / package).rglob("*.py")
        if "node_modules" not in path.parts and naming.search(path.read_text())
    )


def test_two_stack_modules_alone_create_addon_constructs() -> None:
    # The cluster stack creates every add-on but kube-prometheus-stack, which the gang observability
    # deployment creates (its objects wait for the chart's CRDs): one creation site per add-on either way.
    assert _outside_addons_naming(r"\baddons\.\w+\.construct\b") == sorted(CONSTRUCTED_IN)


def test_one_module_alone_calls_the_addons_rules() -> None:
    assert _outside_addons_naming(r"\baddons\.\w+\.rules\b") == sorted(RULES_CALLED_IN)


def test_the_model_registers_every_addons_settings() -> None:
    # Other modules may read an add-on's settings (Karpenter's pool block is read by the node pools, the
    # summary and preflight); registering the section in the environment file is config/model.py's line.
    model = (REPO / "config" / "model.py").read_text()
    with_settings = sorted(p.parent.name for p in (REPO / "addons").glob("*/settings.py"))
    assert with_settings
    for name in with_settings:
        assert f"from addons.{name}.settings import" in model, name


def test_every_folder_under_addons_is_discovered() -> None:
    import addons

    folders = sorted(p.name for p in (REPO / "addons").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert list(addons.names()) == folders, "an add-on folder needs an __init__.py to be found"
    assert [pin.__name__ for pin in addons.pins()] == [f"addons.{name}.pin" for name in folders]
