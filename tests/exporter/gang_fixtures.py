"""Realistic Kubernetes 1.37 objects (API JSON) for the exporter tests.

Every builder returns an object that passes ``kubernetes_validate`` in strict
mode (checked in test_gang_fixtures.py), so the state machine is exercised
with shapes the API server really serves.
"""

from __future__ import annotations

import datetime
from typing import Any

NS = "team-a"
PRIORITY = "training-high"
GPU_CLASS = "gpu.nvidia.com"

Obj = dict[str, Any]


def ts(seconds: float) -> str:
    """Epoch seconds -> RFC 3339 (the API server's metav1.Time format)."""
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def podgroup(
    name: str,
    *,
    created: float,
    min_count: int = 4,
    uid: str | None = None,
    priority_class: str = PRIORITY,
    workload: str = "llama-pretrain",
    template: str = "workers",
    condition: tuple[str, str, float] | None = None,  # (status, reason, time)
    claims: list[tuple[str, str]] | None = None,  # (name, resourceClaimName)
    namespace: str = NS,
    labels: dict[str, str] | None = None,
    owners: list[tuple[str, str, str]] | None = None,  # (apiVersion, kind, name); the first is the controller
) -> Obj:
    obj: Obj = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "creationTimestamp": ts(created),
            "name": name,
            "namespace": namespace,
            "resourceVersion": "1",
            "uid": uid or f"uid-pg-{name}",
        },
        "spec": {
            "priorityClassName": priority_class,
            "schedulingPolicy": {"gang": {"minCount": min_count}},
            "workloadRef": {"templateName": template, "workloadName": workload},
        },
    }
    if not priority_class:
        del obj["spec"]["priorityClassName"]
    if labels:
        obj["metadata"]["labels"] = dict(labels)
    if owners:
        obj["metadata"]["ownerReferences"] = [
            {"apiVersion": api, "controller": i == 0, "kind": kind, "name": owner, "uid": f"uid-{owner}"}
            for i, (api, kind, owner) in enumerate(owners)
        ]
    if claims:
        obj["spec"]["resourceClaims"] = [{"name": n, "resourceClaimName": rc} for n, rc in claims]
    if condition is not None:
        status, reason, when = condition
        obj["status"] = {
            "conditions": [
                {
                    "lastTransitionTime": ts(when),
                    "message": "" if status == "True" else "0/16 nodes are available",
                    "reason": reason,
                    "status": status,
                    "type": "PodGroupInitiallyScheduled",
                }
            ]
        }
    return obj


PROBE_JOB = "gate-probe-workloadwithjob"
PROBE_WORKLOAD = f"{PROBE_JOB}-647cf7d9"
"""The Workload the Job controller compiles for the suspended ``WorkloadWithJob`` probe Job: ``<job>-<hash>``."""


def probe_job_podgroup(*, created: float, job: str = PROBE_JOB, workload: str = PROBE_WORKLOAD) -> Obj:
    """The PodGroup the Job controller compiles for a probe Job (no labels are known to be copied).

    ``<workload>-<template>-<hash>``, owned by the Job (controller) and the Workload, gang of 1 as
    the probe's ``spec.scheduling`` asks, no priority class; never gets Pods.
    """
    return podgroup(
        f"{workload}-job-5cbb944dc9",
        created=created,
        min_count=1,
        priority_class="",
        workload=workload,
        template="job",
        namespace="default",
        owners=[("batch/v1", "Job", job), ("scheduling.k8s.io/v1beta1", "Workload", workload)],
    )


def pod(
    name: str,
    *,
    group: str | None,
    created: float,
    gpus: int = 0,
    claim_template: str | None = None,
    generated_claim: str | None = None,
    preempted_at: float | None = None,
    phase: str = "Pending",
    namespace: str = NS,
) -> Obj:
    container: Obj = {"image": "nvcr.io/nvidia/pytorch:25.01-py3", "name": "trainer"}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    spec: Obj = {"containers": [container], "priorityClassName": PRIORITY}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    status: Obj = {"phase": phase}
    if claim_template:
        spec["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": claim_template}]
        container["resources"] = {"claims": [{"name": "gpus"}]}
        if generated_claim:
            status["resourceClaimStatuses"] = [{"name": "gpus", "resourceClaimName": generated_claim}]
    if preempted_at is not None:
        status["conditions"] = [
            {
                "lastTransitionTime": ts(preempted_at),
                "message": "preempted by workload team-b/serving",
                "reason": "PreemptionByScheduler",
                "status": "True",
                "type": "DisruptionTarget",
            }
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": ts(created),
            "name": name,
            "namespace": namespace,
            "uid": f"uid-pod-{name}",
        },
        "spec": spec,
        "status": status,
    }


def event(
    name: str,
    *,
    reason: str,
    involved_kind: str,
    involved_name: str,
    message: str,
    last: float,
    count: int = 1,
    event_type: str = "Warning",
    namespace: str = NS,
) -> Obj:
    prefix = "pod" if involved_kind == "Pod" else "pg"
    return {
        "apiVersion": "v1",
        "count": count,
        "firstTimestamp": ts(last),
        "involvedObject": {
            "apiVersion": "v1" if involved_kind == "Pod" else "scheduling.k8s.io/v1beta1",
            "kind": involved_kind,
            "name": involved_name,
            "namespace": namespace,
            "uid": f"uid-{prefix}-{involved_name}",
        },
        "kind": "Event",
        "lastTimestamp": ts(last),
        "message": message,
        "metadata": {
            "creationTimestamp": ts(last),
            "name": name,
            "namespace": namespace,
            "uid": f"uid-ev-{name}",
        },
        "reason": reason,
        "reportingComponent": "default-scheduler",
        "source": {"component": "default-scheduler"},
        "type": event_type,
    }


def claim(
    name: str,
    *,
    device_class: str = GPU_CLASS,
    count: int = 8,
    allocated: bool = False,
    namespace: str = NS,
) -> Obj:
    obj: Obj = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-rc-{name}"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "exactly": {
                            "allocationMode": "ExactCount",
                            "count": count,
                            "deviceClassName": device_class,
                        },
                        "name": "gpus",
                    }
                ]
            }
        },
    }
    if allocated:
        obj["status"] = {
            "allocation": {
                "devices": {
                    "results": [
                        {
                            "device": "gpu-0",
                            "driver": "gpu.nvidia.com",
                            "pool": "node-a",
                            "request": "gpus",
                        }
                    ]
                }
            }
        }
    return obj


def node(name: str, *, instance_type: str, zone: str, gpus: int | None) -> Obj:
    labels = {
        "node.kubernetes.io/instance-type": instance_type,
        "topology.kubernetes.io/zone": zone,
    }
    allocatable = {"cpu": "191450m", "memory": "2057652868Ki", "pods": "737"}
    if gpus is not None:
        labels["nvidia.com/gpu.present"] = "true"
        allocatable["nvidia.com/gpu"] = str(gpus)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"labels": labels, "name": name, "uid": f"uid-node-{name}"},
        "status": {"allocatable": allocatable},
    }
