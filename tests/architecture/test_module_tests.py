"""Every module has a test that imports it directly, or is named below with the reason it has none.

"Directly" means a test module imports the module (``import x.y``, ``from x.y import ...``, ``from x
import y``) or starts it as a command (``python -m x.y`` written as the string ``"x.y"``). A module
covered only through another module's tests is not: when it breaks, its own test should say so.
Docstring-only package markers (``__init__.py`` with no code) are not modules for this purpose.
"""

from __future__ import annotations

import ast
from pathlib import Path

from config.load import REPO_ROOT

PACKAGES = (
    "catalog",
    "config",
    "policy",
    "observability",
    "charts",
    "stacks",
    "simulation",
    "cli",
    "bench",
    "control_plane",
    "exporter",
    "addons",
    "accelerator",
)

WITHOUT_DIRECT_TESTS: dict[str, str] = {
    "catalog.pins": "not yet tested directly",
    "catalog.quotas": "not yet tested directly",
    "catalog.service_limits": "not yet tested directly",
    "charts.admission_policies": "not yet tested directly",
    "charts.cluster_objects": "not yet tested directly",
    "charts.deployed": "not yet tested directly",
    "charts.gangs": "not yet tested directly",
    "charts.quantities": "not yet tested directly",
    "cli.environment_args": "not yet tested directly",
    "cli.freshness": "not yet tested directly",
    "cli.output": "not yet tested directly",
    "cli.report": "not yet tested directly",
    "cli.synth_args": "not yet tested directly",
    "config.ephemeral": "not yet tested directly",
    "config.reference": "not yet tested directly",
    "config.validate_labels": "not yet tested directly",
    "config.validate_launch": "not yet tested directly",
    "config.validate_limits": "not yet tested directly",
    "config.validate_network": "not yet tested directly",
    "config.validate_observability": "not yet tested directly",
    "control_plane.__main__": "not yet tested directly",
    "control_plane.errors": "not yet tested directly",
    "exporter.gang_exporter.__main__": "not yet tested directly",
    "policy.checks.api_order.check": "not yet tested directly",
    "policy.environment.ineffective": "not yet tested directly",
    "policy.gangs.kinds": "not yet tested directly",
    "policy.gangs.kinds.base": "not yet tested directly",
    "policy.gangs.kinds.mpi": "not yet tested directly",
    "policy.gangs.kinds.pytorch": "not yet tested directly",
    "policy.gangs.kinds.service": "not yet tested directly",
    "policy.gangs.kinds.spark": "not yet tested directly",
    "policy.gangs.launch": "not yet tested directly",
    "policy.gates.fields": "not yet tested directly",
    "policy.iam.pod_identity": "not yet tested directly",
    "simulation.report.plots": "not yet tested directly",
    "stacks.jsii_types": "a typing shim: as_icluster is typing.cast for mypy and does nothing at run time; "
    "every construct test that passes a cluster to a chart or node group runs through it",
}
"""Module -> why no test imports it directly."""


def _is_marker(path: Path) -> bool:
    tree = ast.parse(path.read_text())
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in tree.body)


def project_modules() -> set[str]:
    modules = set()
    for package in PACKAGES:
        for path in (REPO_ROOT / package).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            name = ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts)
            if name.endswith(".__init__"):
                if _is_marker(path):
                    continue
                name = name.removesuffix(".__init__")
            modules.add(name)
    return modules


def imported_by_tests(modules: set[str]) -> set[str]:
    found: set[str] = set()
    for path in (REPO_ROOT / "tests").rglob("*.py"):
        if path == Path(__file__).resolve():
            continue  # this list names modules; naming one is not testing it
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
                found.add(node.value)
    return found & modules


def test_every_module_is_tested_directly_or_says_why_not() -> None:
    modules = project_modules()
    untested = modules - imported_by_tests(modules)
    assert sorted(untested - set(WITHOUT_DIRECT_TESTS)) == []


def test_the_list_names_only_modules_that_exist_and_lack_tests() -> None:
    modules = project_modules()
    listed = set(WITHOUT_DIRECT_TESTS)
    assert sorted(listed - modules) == [], "listed modules that no longer exist"
    assert sorted(listed & imported_by_tests(modules)) == [], "listed modules that now have a direct test"
