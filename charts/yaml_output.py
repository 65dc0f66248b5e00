"""Deterministic YAML for review: sorted keys, objects in creation order, stable text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from charts.ordering import sort_key


class _Dumper(yaml.CSafeDumper):
    """libyaml's emitter; multi-line strings as literal blocks so CEL and descriptions read naturally."""


def _str(dumper: yaml.CSafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_objects(objects: Iterable[Mapping[str, Any]], *, ordered: bool = True) -> str:
    """Multi-document YAML; ``ordered`` sorts objects by sync wave, kind, namespace and name."""
    items = [dict(o) for o in objects]
    if ordered:
        items.sort(key=sort_key)
    return yaml.dump_all(
        items, Dumper=_Dumper, sort_keys=True, default_flow_style=False, width=100, explicit_start=True
    )
