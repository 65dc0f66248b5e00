"""Which feature gates a rendered object needs, read from the registry's ``unlocks`` field lists.

No per-field if-statements: every ``FieldRef`` in ``catalog.feature_gates`` is looked up
in every object of its kind, and a present field whose gate the environment does not
provide is reported with the object, the field and the gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from catalog.feature_gates import FEATURE_GATES, FieldRef


@dataclass(frozen=True)
class MissingGate:
    subject: str
    field: str
    gate: str


def field_present(obj: Any, path: str) -> bool:
    """Whether ``path`` (dotted; ``name[]`` iterates a list) holds a value in ``obj``; empty lists count as unset."""
    head, _, rest = path.partition(".")
    key = head.removesuffix("[]")
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None or value == []:
        return False
    if not rest:
        return True
    items = value if head.endswith("[]") and isinstance(value, list) else [value]
    return any(field_present(item, rest) for item in items)


def _unlocks_by_kind() -> dict[str, list[tuple[FieldRef, str]]]:
    table: dict[str, list[tuple[FieldRef, str]]] = {}
    for gate in FEATURE_GATES.values():
        for ref in gate.unlocks:
            table.setdefault(ref.kind, []).append((ref, gate.name))
    return table


_UNLOCKS = _unlocks_by_kind()


def subject(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata", {})
    return "/".join(p for p in (obj.get("kind"), metadata.get("namespace"), metadata.get("name")) if p)


def missing_gates(objects: Iterable[dict[str, Any]], gates_on: frozenset[str]) -> Iterator[MissingGate]:
    """Every (object, field, gate) where the object uses a field whose gate is off."""
    for obj in objects:
        for ref, gate in _UNLOCKS.get(obj.get("kind", ""), []):
            if gate not in gates_on and field_present(obj, ref.path):
                yield MissingGate(subject(obj), ref.path, gate)
