"""Code names a feature gate through ``catalog.feature_gates.Gate``, never a string literal.

A gate's name is written once, in the registry; everywhere else asks ``Gate.<NAME>``, so a renamed
or removed gate fails at import, not silently in a membership test. ``CompositePodGroup`` is also a
kind: as a kind (an object's ``kind``, a construct ID) the literal is fine; in a membership test
(``"X" in gates``) it is the gate's name and is refused.
"""

from __future__ import annotations

import ast
import subprocess
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


def test_no_gate_name_is_a_string_literal_outside_the_registry() -> None:
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True)
    offenders = [
        f"{name}:{line}: {gate!r}"
        for name in files.stdout.split()
        if name != REGISTRY and not name.startswith("tests/")
        for line, gate in _gate_literals((REPO / name).read_text())
    ]
    assert offenders == []


def test_the_check_finds_a_literal_in_a_membership_test() -> None:
    assert _gate_literals('ok = "WorkloadWithJob" in gates\n') == [(1, "WorkloadWithJob")]
    assert _gate_literals('ok = "CompositePodGroup" not in gates\n') == [(1, "CompositePodGroup")]
    assert _gate_literals('obj = {"kind": "CompositePodGroup"}\n') == []
