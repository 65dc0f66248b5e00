"""The reference Karpenter CRDs as validators: strict JSON Schema plus their CEL rules.

``strict_schema`` turns a CRD ``openAPIV3Schema`` into a JSON Schema that rejects unknown
fields the way the API server prunes them: every object with ``properties`` and without
``x-kubernetes-preserve-unknown-fields`` gets ``additionalProperties: false``.
``cel_violations`` evaluates every ``x-kubernetes-validations`` rule with cel-python,
adding the two Kubernetes string-library functions the rules use (``find``, ``split``).
Transition rules (those reading ``oldSelf``) only run on updates and are skipped here.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import celpy
import jsonschema
import yaml
from celpy import celtypes
from celpy.adapter import json_to_cel

from tests.conftest import REFERENCE
from tests.helpers import yaml_files

KARPENTER_REFERENCE = REFERENCE / "karpenter-v1.14.1"
CRD_FILES = {
    "NodePool": "karpenter.sh_nodepools.yaml",
    "EC2NodeClass": "karpenter.k8s.aws_ec2nodeclasses.yaml",
    "NodeClaim": "karpenter.sh_nodeclaims.yaml",
}


@cache
def crd(kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml_files.load((KARPENTER_REFERENCE / CRD_FILES[kind]).read_text())
    return loaded


def api_version(kind: str) -> str:
    spec = crd(kind)["spec"]
    (served,) = [v["name"] for v in spec["versions"] if v.get("storage")]
    return f"{spec['group']}/{served}"


def openapi_schema(kind: str) -> dict[str, Any]:
    (version,) = [v for v in crd(kind)["spec"]["versions"] if v.get("storage")]
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in which unknown fields are errors (see the module docstring)."""
    out = dict(schema)
    if "properties" in out:
        out["properties"] = {k: strict_schema(v) for k, v in out["properties"].items()}
        if not out.get("x-kubernetes-preserve-unknown-fields") and "additionalProperties" not in out:
            out["additionalProperties"] = False
    if isinstance(out.get("items"), dict):
        out["items"] = strict_schema(out["items"])
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = strict_schema(out["additionalProperties"])
    for key in ("anyOf", "allOf", "oneOf"):
        if key in out:
            out[key] = [strict_schema(s) for s in out[key]]
    return out


@cache
def _validator(kind: str) -> jsonschema.protocols.Validator:
    schema = strict_schema(openapi_schema(kind))
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def schema_errors(obj: dict[str, Any]) -> list[str]:
    """Every JSON Schema error of ``obj`` against the strict CRD schema of its kind."""
    return [
        f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"
        for e in sorted(_validator(obj["kind"]).iter_errors(obj), key=lambda e: list(map(str, e.absolute_path)))
    ]


def _find(value: Any, pattern: Any) -> celtypes.StringType:
    match = re.search(str(pattern), str(value))
    return celtypes.StringType(match.group(0) if match else "")


def _split(value: Any, separator: Any) -> celtypes.ListType:
    return celtypes.ListType([celtypes.StringType(p) for p in str(value).split(str(separator))])


_FUNCTIONS: dict[str, Any] = {"find": _find, "split": _split}


@cache
def _cel() -> celpy.Environment:
    """One CEL environment (building its parser takes ~0.3 s: not at import, where every test worker pays it)."""
    return celpy.Environment()


@cache
def _program(rule: str) -> Any:
    return _cel().program(_cel().compile(rule), functions=_FUNCTIONS)


def cel_rules(schema: dict[str, Any]) -> list[str]:
    """Every CEL rule in ``schema`` (to count what is checked and what is skipped)."""
    rules = [v["rule"] for v in schema.get("x-kubernetes-validations", [])]
    for child in (
        *schema.get("properties", {}).values(),
        *([schema["items"]] if isinstance(schema.get("items"), dict) else []),
        *([schema["additionalProperties"]] if isinstance(schema.get("additionalProperties"), dict) else []),
    ):
        rules += cel_rules(child)
    return rules


def cel_violations(obj: dict[str, Any]) -> list[str]:
    """Messages of the CEL rules ``obj`` breaks (transition rules skipped)."""
    return _walk(obj, openapi_schema(obj["kind"]), "")


def _walk(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    broken = []
    for validation in schema.get("x-kubernetes-validations", []):
        rule = validation["rule"]
        if "oldSelf" in rule:
            continue
        result = _program(rule).evaluate({"self": json_to_cel(value)})
        if not isinstance(result, celtypes.BoolType) or not result:
            broken.append(f"{path or '/'}: {validation.get('message', rule)} ({result!r})")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            child = properties.get(key, extra if isinstance(extra, dict) else None)
            if child is not None:
                broken += _walk(item, child, f"{path}/{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            broken += _walk(item, schema["items"], f"{path}/{index}")
    return broken


_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def metadata_errors(obj: dict[str, Any]) -> list[str]:
    """``metadata`` is open in the CRD schema; the API server still wants a DNS-subdomain name."""
    name = obj["metadata"].get("name", "")
    return [] if len(name) <= 253 and _DNS_SUBDOMAIN.match(name) else [f"metadata.name: {name!r}"]


def nodeclaim_from(node_pool: dict[str, Any]) -> dict[str, Any]:
    """The NodeClaim Karpenter stamps out of a NodePool's template (labels and spec copied over)."""
    template = node_pool["spec"]["template"]
    return {
        "apiVersion": api_version("NodeClaim"),
        "kind": "NodeClaim",
        "metadata": {"name": f"{node_pool['metadata']['name']}-abcde", "labels": template["metadata"]["labels"]},
        "spec": template["spec"],
    }


class CfnLoader(yaml.SafeLoader):
    """A YAML loader that reads CloudFormation short-form tags (``!Sub``, ``!GetAtt``...) as plain data."""


def _cfn_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {f"!{suffix}": value}


CfnLoader.add_multi_constructor("!", _cfn_tag)  # type: ignore[no-untyped-call]


@cache
def reference_cloudformation() -> dict[str, Any]:
    text = (KARPENTER_REFERENCE / "getting-started-cloudformation.yaml").read_text()
    loaded: dict[str, Any] = yaml.load(text, Loader=CfnLoader)
    return loaded


def reference_chart_values() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml_files.load((KARPENTER_REFERENCE / "chart-values.yaml").read_text())
    return loaded
