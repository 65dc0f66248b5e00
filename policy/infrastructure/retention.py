"""Which applied objects hold user data, so a stack update must never prune or delete them.

eks-v2 manifests are updated with ``kubectl apply --prune`` and deleted with ``kubectl delete``
when their custom resource goes away (aws-cdk-lib's kubectl handler ``apply/__init__.py``): a
Namespace dropped from a manifest, or a renamed manifest, would take every job in it along.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

PROTECTED_KINDS = frozenset({"Namespace", "PersistentVolumeClaim", "CustomResourceDefinition"})
"""Deleting one deletes what users put in it: a namespace's jobs, a claim's volume, a CRD's objects."""


def holds_user_data(objects: Iterable[Mapping[str, Any]]) -> bool:
    return any(obj.get("kind") in PROTECTED_KINDS for obj in objects)
