"""Creation order of platform objects, encoded as Argo CD sync waves and file order.

PriorityClass, Workload, CompositePodGroups top-down, PodGroup, then Pods: a Pod whose
PodGroup does not exist yet stays Pending, and a PodGroup is not checked against its
Workload by the API server, so the order is the platform's job.
"""

from __future__ import annotations

SYNC_WAVE = "argocd.argoproj.io/sync-wave"

_WAVES = {
    "Namespace": -20,
    "PriorityClass": -10,
    "DeviceClass": -10,
    "ValidatingAdmissionPolicy": -9,
    "ValidatingAdmissionPolicyBinding": -8,
    "ResourceClaimTemplate": 4,
    "Workload": 0,
    "CompositePodGroup": 1,  # plus depth in the tree
    "PodGroup": 5,
    "ConfigMap": 5,
    "Service": 5,
    "PodDisruptionBudget": 5,
    "Job": 10,
    "StatefulSet": 10,
    "Pod": 10,
}


def sync_wave(kind: str, *, depth: int = 0) -> int:
    return _WAVES.get(kind, 0) + depth


def sort_key(obj: dict) -> tuple[int, str, str, str]:
    metadata = obj.get("metadata", {})
    wave = int(metadata.get("annotations", {}).get(SYNC_WAVE, sync_wave(obj["kind"])))
    return (wave, obj["kind"], metadata.get("namespace", ""), metadata.get("name", ""))
