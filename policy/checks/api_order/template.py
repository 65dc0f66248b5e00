"""Read the Kubernetes side of a synthesized CloudFormation template: what each eks-v2 resource applies.

Resource types and property names are those of ``aws-cdk-lib``'s eks-v2 kubectl provider
(``KubernetesManifest``: ``Manifest``; ``HelmChart``: ``Chart``, ``SkipCrds``;
``KubernetesObjectValue``: ``ObjectType``; ``KubernetesPatch``: ``ResourceName``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

Template = Mapping[str, Any]


class KubeResourceType(StrEnum):
    MANIFEST = "Custom::AWSCDK-EKS-KubernetesResource"
    HELM_CHART = "Custom::AWSCDK-EKS-HelmChart"
    OBJECT_VALUE = "Custom::AWSCDK-EKS-KubernetesObjectValue"
    PATCH = "Custom::AWSCDK-EKS-KubernetesPatch"


TOKEN = "<token>"
"""Stands in for a CloudFormation intrinsic inside a manifest (an image URI, a role ARN)."""


@dataclass(frozen=True)
class ApiUse:
    """An API a resource needs: ``group`` ('' for core), ``version``, and ``kind`` when known."""

    group: str
    version: str
    kind: str | None
    subject: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


@dataclass(frozen=True)
class KubeResource:
    """One kubectl-provider resource: what it uses and what API groups (or ``group/Kind``) it installs."""

    logical_id: str
    type: KubeResourceType
    uses: tuple[ApiUse, ...]
    provides: frozenset[str]
    chart: str | None = None
    skip_crds: bool = False


def manifest_objects(manifest: Any) -> list[dict[str, Any]]:
    """The objects of a ``Manifest`` property: a JSON string, or an ``Fn::Join`` around intrinsics."""
    if isinstance(manifest, dict) and "Fn::Join" in manifest:
        separator, parts = manifest["Fn::Join"]
        manifest = separator.join(p if isinstance(p, str) else TOKEN for p in parts)
    objects = json.loads(manifest)
    return [o for o in objects if isinstance(o, dict)]


def _split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def _subject(obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata") or {}
    return "/".join(str(p) for p in (obj.get("kind"), metadata.get("namespace"), metadata.get("name")) if p)


def _crd_provides(obj: Mapping[str, Any]) -> set[str]:
    spec = obj.get("spec") or {}
    kind = (spec.get("names") or {}).get("kind")
    return {f"{spec.get('group')}/{kind}"} if spec.get("group") and kind else set()


def _object_type_use(object_type: str, name: str) -> ApiUse:
    """``deviceclasses.v1.resource.k8s.io`` (resource.version.group) or a bare core resource (``pods``)."""
    _, _, rest = object_type.partition(".")
    version, _, group = rest.partition(".")
    return ApiUse(group, version or "v1", None, f"{object_type}/{name}")


def _resource(logical_id: str, resource: Mapping[str, Any]) -> KubeResource | None:
    try:
        kind = KubeResourceType(str(resource.get("Type")))
    except ValueError:
        return None
    props = resource.get("Properties") or {}
    if kind is KubeResourceType.MANIFEST:
        objects = manifest_objects(props["Manifest"])
        uses = tuple(ApiUse(*_split_api_version(str(o["apiVersion"])), str(o["kind"]), _subject(o)) for o in objects)
        provides = {p for o in objects if o.get("kind") == "CustomResourceDefinition" for p in _crd_provides(o)}
        return KubeResource(logical_id, kind, uses, frozenset(provides))
    if kind is KubeResourceType.HELM_CHART:
        skip_crds = str(props.get("SkipCrds", False)).lower() == "true"
        return KubeResource(logical_id, kind, (), frozenset(), chart=str(props.get("Chart")), skip_crds=skip_crds)
    if kind is KubeResourceType.OBJECT_VALUE:
        use = _object_type_use(str(props["ObjectType"]), str(props.get("ObjectName")))
        return KubeResource(logical_id, kind, (use,), frozenset())
    # KubernetesPatch names ``<type>/<name>``; the type is resolved like an object read.
    object_type, _, name = str(props.get("ResourceName", "")).partition("/")
    return KubeResource(logical_id, kind, (_object_type_use(object_type, name),), frozenset())


def kube_resources(template: Template) -> Iterator[KubeResource]:
    for logical_id, resource in sorted((template.get("Resources") or {}).items()):
        found = _resource(logical_id, resource)
        if found is not None:
            yield found


def _references(value: Any) -> Iterator[str]:
    """Logical ids named by ``Ref`` / ``Fn::GetAtt`` anywhere in ``value``: CloudFormation orders on those too."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str):
                yield inner
            elif key == "Fn::GetAtt" and isinstance(inner, list) and inner:
                yield str(inner[0])
            else:
                yield from _references(inner)
    elif isinstance(value, list):
        for item in value:
            yield from _references(item)


def direct_dependencies(template: Template) -> dict[str, set[str]]:
    """Logical id -> the resources CloudFormation creates before it (``DependsOn``, ``Ref``, ``Fn::GetAtt``)."""
    resources = template.get("Resources") or {}
    graph: dict[str, set[str]] = {}
    for logical_id, resource in resources.items():
        depends = resource.get("DependsOn") or []
        edges = {depends} if isinstance(depends, str) else set(depends)
        edges |= {r for r in _references(resource.get("Properties") or {}) if r in resources}
        graph[logical_id] = edges
    return graph


def transitive_dependencies(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = list(graph.get(start, ()))
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(graph.get(current, ()))
    return seen
