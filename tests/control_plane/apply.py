"""Apply a set of rendered objects for real and read each one back."""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from charts.ordering import sort_key
from tests.control_plane.cluster import ApiError, Cluster, NotServed, Obj, missing_fields, wait_until
from tests.helpers import yaml_files

CRD_KINDS = {
    ("karpenter.sh/v1", "NodePool"): "karpenter-v1.14.1/karpenter.sh_nodepools.yaml",
    ("karpenter.k8s.aws/v1", "EC2NodeClass"): "karpenter-v1.14.1/karpenter.k8s.aws_ec2nodeclasses.yaml",
    ("monitoring.coreos.com/v1", "PrometheusRule"): "kube-prometheus-stack-88.5.3/crd-prometheusrules.yaml",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): "kube-prometheus-stack-88.5.3/crd-servicemonitors.yaml",
}
"""Kinds Kubernetes does not serve, and the reference copy of the CRD that serves them."""


def dist_objects(directory: Path) -> list[Obj]:
    objects: list[Obj] = []
    for path in sorted(directory.rglob("*.yaml")):
        objects += [d for d in yaml_files.load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]
    return objects


def needs_crd(obj: Obj) -> bool:
    return (obj["apiVersion"], obj["kind"]) in CRD_KINDS


def apply_order(objects: Iterable[Obj]) -> list[Obj]:
    """Namespaces, then the kit's sync waves (PriorityClass, Workload, ..., Pods)."""
    return sorted(objects, key=lambda o: (o["kind"] != "Namespace", *sort_key(o)))


def dropped_fields(sent: Obj, back: Obj) -> list[str]:
    """Fields of ``sent`` that ``back`` lacks or changed (quantities compared by amount)."""
    return missing_fields(sent, back)


@dataclass
class Applied:
    objects: list[Obj] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, list[str]] = field(default_factory=dict)


def subject(obj: Obj) -> str:
    meta = obj["metadata"]
    return "/".join(p for p in (obj["kind"], meta.get("namespace", ""), meta["name"]) if p)


def apply_all(cluster: Cluster, objects: Iterable[Obj]) -> Applied:
    """Server-side apply each object (strict field validation), then read every one back."""
    result = Applied()
    ordered = apply_order(objects)
    last_binding = max(
        (i for i, o in enumerate(ordered) if o["kind"] == "ValidatingAdmissionPolicyBinding"), default=-1
    )
    for index, obj in enumerate(ordered):
        if index == last_binding + 1 and last_binding >= 0:
            policies_in_force(cluster, [o for o in ordered if o["kind"] == "ValidatingAdmissionPolicy"])
        sent = copy.deepcopy(obj)
        try:
            cluster.apply(sent)
        except (ApiError, NotServed) as error:
            result.refused[subject(obj)] = str(error)
            continue
        result.objects.append(obj)
    for obj in result.objects:
        back = cluster.get(obj)
        if back is None:
            result.dropped[subject(obj)] = ["(object gone)"]
            continue
        dropped = dropped_fields(obj, back)
        if dropped:
            result.dropped[subject(obj)] = dropped
    return result


POLICY_PROPAGATION_S = 2.0
"""How long the API server's admission plugin takes to load a new policy and binding after the status
controller has type-checked it (about 0.5 s measured here): objects applied sooner slip past the policy."""


def policies_in_force(cluster: Cluster, policies: list[Obj]) -> None:
    """Wait until each policy is type-checked (status.observedGeneration), then for the admission plugin."""

    def checked() -> bool:
        for policy in policies:
            got = cluster.get(policy) or {}
            if got.get("status", {}).get("observedGeneration") != got.get("metadata", {}).get("generation"):
                return False
        return True

    assert wait_until(checked, timeout_s=30), "admission policies not type-checked within 30 s"
    time.sleep(POLICY_PROPAGATION_S)


def delete_all(cluster: Cluster, objects: Iterable[Obj], *, timeout_s: float = 60.0) -> None:
    """Delete what was applied (namespaces last) and wait until its namespaces are gone."""
    ordered = apply_order(objects)
    for obj in reversed(ordered):
        with contextlib.suppress(ApiError, NotServed):
            cluster.delete(obj)
    namespaces = [o for o in ordered if o["kind"] == "Namespace"]
    gone = wait_until(lambda: all(cluster.get(n) is None for n in namespaces), timeout_s=timeout_s)
    assert gone, f"namespaces not deleted within {timeout_s} s: {[n['metadata']['name'] for n in namespaces]}"


def install_crds(cluster: Cluster, reference: Path, kinds: Iterable[tuple[str, str]]) -> None:
    """The CRDs serving ``kinds`` from the reference copies, applied and established."""
    for key in sorted(set(kinds)):
        for crd in yaml_files.load_all((reference / CRD_KINDS[key]).read_text(encoding="utf-8")):
            if not isinstance(crd, dict):
                continue
            cluster.apply(crd)
            name = crd["metadata"]["name"]

            def established(name: str = name) -> bool:
                got = cluster.get_path(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}") or {}
                return any(
                    c["type"] == "Established" and c["status"] == "True"
                    for c in (got.get("status") or {}).get("conditions") or []
                )

            assert wait_until(established, timeout_s=30), f"CRD {name} not established"
    cluster._resources.clear()  # discovery changed


def check_applied(cluster: Cluster, objects: list[Obj], *, reference: Path | None = None) -> None:
    """Apply ``objects`` (after the reference CRDs they need, with ``reference``): none refused, none
    with a field dropped; then delete them again."""
    if reference is not None:
        install_crds(cluster, reference, {(o["apiVersion"], o["kind"]) for o in objects if needs_crd(o)})
    applied = apply_all(cluster, objects)
    try:
        assert applied.refused == {}, applied.refused
        assert applied.dropped == {}, applied.dropped
        assert len(applied.objects) == len(objects)
    finally:
        delete_all(cluster, applied.objects)
