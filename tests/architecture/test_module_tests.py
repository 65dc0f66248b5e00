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
    "catalog.pins": (
        "the shapes every pin row has (ChartPin, ImagePin); tests/catalog/test_images.py checks every row "
        "built from them"
    ),
    "charts.admission_policies": (
        "renders policy.gangs.admission's data as cdk8s objects; tests/policy/gangs/test_admission.py "
        "evaluates the rendered policies and the control-plane tier applies them"
    ),
    "charts.cluster_objects": (
        "cdk8s constructs of namespaces, PriorityClasses and DeviceClasses; the golden dist/ "
        "(tests/charts/test_render.py) and the control-plane tier read what they render"
    ),
    "charts.deployed": (
        "the hand-off type of rendered objects between charts and stacks; tests/charts/test_render.py "
        "compares what passes through it byte for byte"
    ),
    "charts.gangs": (
        "the GangRun construct; every rendered gang in tests/charts/test_render.py, "
        "tests/policy/gangs/test_launch.py and tests/launchers/ comes from it through charts.render"
    ),
    "cli.environment_args": (
        "the --env/--config/--run-id options every command shares; the command tests (tests/cli/) run each "
        "command with them"
    ),
    "cli.synth_args": ("make synth's options; tests/cli/test_synth.py runs the command with them"),
    "config.ephemeral": (
        "the ephemeral section's model; tests/policy/environment/test_runs.py and "
        "tests/stacks/test_stack_ttl.py exercise each field"
    ),
    "config.validate_observability": (
        "the observability section's rules; tests/observability/test_observability_config.py asserts each "
        "refusal line through the loader"
    ),
    "policy.gangs.launch": (
        "the container description types and names the kinds share; tests/policy/gangs/test_launch.py and "
        "tests/launchers/ run what the kinds build with them"
    ),
    "simulation.report.plots": (
        "the report's figures; tests/simulation/report/test_report.py writes the whole report, plots included"
    ),
    "stacks.jsii_types": (
        "a typing shim: as_icluster is typing.cast for mypy and does nothing at run time; every construct "
        "test that passes a cluster to a chart or node group runs through it"
    ),
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
