"""The import contracts of ``pyproject.toml`` hold, and break on an upward import or a circle.

``make lint`` runs ``lint-imports`` over the tree; these tests run it over a copy with one import
added, so a contract that could never fail would fail here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONTRACTS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
PACKAGES = CONTRACTS["root_packages"]

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason=f"{LINT_IMPORTS} is not installed")


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", "pyproject.toml"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages and pyproject.toml: what lint-imports reads."""
    for package in PACKAGES:
        shutil.copytree(
            REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "node_modules")
        )
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(tree: Path, module: str, statement: str) -> None:
    path = tree / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + f"\n{statement}  # noqa\n")


def test_the_tree_keeps_every_contract() -> None:
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_layers(tree: Path) -> None:
    _add_import(tree, "config.errors", "import charts.render")
    result = _lint_imports(tree)
    assert result.returncode == 1
    assert "Layers point down: catalog -> config -> policy -> charts -> stacks -> cli BROKEN" in result.stdout
    assert "config.errors -> charts.render" in result.stdout


def test_policy_importing_a_construct_breaks_the_layers(tree: Path) -> None:
    _add_import(tree, "policy.gangs.plan", "import stacks.cluster_stack")
    result = _lint_imports(tree)
    assert result.returncode == 1
    assert "policy.gangs.plan -> stacks.cluster_stack" in result.stdout


def test_a_circle_between_sibling_packages_breaks_the_contract(tree: Path) -> None:
    # policy.checks reads policy.gangs; the way back closes a circle inside one layer.
    _add_import(tree, "policy.gangs.plan", "import policy.checks.suite")
    result = _lint_imports(tree)
    assert result.returncode == 1
    assert "No import circles between sibling modules or packages, at any depth BROKEN" in result.stdout


def test_the_exporter_stands_alone(tree: Path) -> None:
    _add_import(tree, "exporter.gang_exporter.state", "import catalog.labels")
    result = _lint_imports(tree)
    assert result.returncode == 1
    assert "The gang exporter (its own image) imports none of the platform's packages BROKEN" in result.stdout


def test_an_addon_pin_importing_a_construct_breaks_the_contracts(tree: Path) -> None:
    # A pin is catalog data: reaching up to its own construct breaks the add-on's layers and the pin's own rule.
    _add_import(tree, "addons.cluster_autoscaler.pin", "import addons.cluster_autoscaler.construct")
    result = _lint_imports(tree)
    assert result.returncode == 1
    assert "Inside an add-on: construct -> plan, rules -> settings -> pin BROKEN" in result.stdout
    assert "An add-on's pin imports catalog alone BROKEN" in result.stdout
    assert "addons.cluster_autoscaler.pin -> addons.cluster_autoscaler.construct" in result.stdout
