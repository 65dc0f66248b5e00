"""Code names a feature gate through ``catalog.feature_gates.Gate``, never a string literal.

A gate's name is written once, in the registry; everywhere else asks ``Gate.<NAME>``, so a renamed
or removed gate fails at import, not silently in a membership test. ``CompositePodGroup`` is also a
kind: as a kind (an object's ``kind``, a construct ID) the literal is fine; in a membership test
(``"X" in gates``) it is the gate's name and is refused.
"""

from __future__ import annotations

import ast
from pathlib import Path

from catalog.feature_gates import FEATURE_GATES, Gate

REPO = Path(__file__).resolve().parents[2]
REGISTRY = "catalog/feature_gates.py"
KIND_NAMES = {"CompositePodGroup"}


def _gate_literals(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FEATURE_GATES):
            continue
        parent = parents.get(node)
        membership = isinstance(parent, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)
        if node.value not in KIND_NAMES or membership:
            found.append((node.lineno, node.value))
    return found


def test_every_registry_gate_has_a_name_constant_and_no_other() -> None:
    constants = {value for key, value in vars(Gate).items() if key.isupper()}
    assert constants == set(FEATURE_GATES)


def source_files() -> list[str]:
    """The project's Python sources outside tests: top-level scripts and every top-level package.

    Read from the tree, not from git, so the check runs the same in an exported copy.
    """
    packages = [d for d in sorted(REPO.iterdir()) if (d / "__init__.py").is_file() and d.name != "tests"]
    paths = sorted(REPO.glob("*.py")) + [
        p for d in packages for p in sorted(d.rglob("*.py")) if "node_modules" not in p.parts
    ]
    return [p.relative_to(REPO).as_posix() for p in paths]


def test_the_scan_covers_the_layers_and_skips_tests() -> None:
    files = source_files()
    for package in ("catalog", "config", "policy", "charts", "stacks", "cli", "addons"):
        assert any(name.startswith(f"{package}/") for name in files), package
    assert "app.py" in files and REGISTRY in files
    assert not any(name.startswith(("tests/", ".venv/")) for name in files)


def test_no_gate_name_is_a_string_literal_outside_the_registry() -> None:
    offenders = [
        f"{name}:{line}: {gate!r}"
        for name in source_files()
        if name != REGISTRY
        for line, gate in _gate_literals((REPO / name).read_text())
    ]
    assert offenders == []


def test_the_check_finds_a_literal_in_a_membership_test() -> None:
    assert _gate_literals('ok = "WorkloadWithJob" in gates\n') == [(1, "WorkloadWithJob")]
    assert _gate_literals('ok = "CompositePodGroup" not in gates\n') == [(1, "CompositePodGroup")]
    assert _gate_literals('obj = {"kind": "CompositePodGroup"}\n') == []
