"""The API kinds Kubernetes 1.37 serves without a CRD, read from the ``kubernetes-validate`` 1.37 schemas."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import kubernetes_validate

SCHEMA_DIR = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.37.0-local-strict"


@cache
def built_in_kinds() -> frozenset[tuple[str, str]]:
    """``(apiVersion, kind)`` of every ``x-kubernetes-group-version-kind`` in the 1.37 definitions."""
    definitions = json.loads((SCHEMA_DIR / "_definitions.json").read_text())["$defs"]
    found = set()
    for definition in definitions.values():
        for gvk in definition.get("x-kubernetes-group-version-kind", ()):
            group, version = gvk["group"], gvk["version"]
            found.add((f"{group}/{version}" if group else version, gvk["kind"]))
    return frozenset(found)
