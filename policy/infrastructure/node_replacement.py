"""Which GPU node groups a change would replace node by node: compared template to template.

EKS replaces every node of a managed node group when its launch template version, AMI type,
release, instance types, capacity type, subnets or node role change (a rolling update, one node at
a time with ``MINIMAL``). On a static pool that means every running gang on it is evicted, so
``make synth`` says so, naming the pool, before anyone deploys it. Capacity Block pools must be at 0
nodes for such an update (EKS ``capacity-blocks-mng``: scale to 0 before upgrades).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from config.model import CapacityProvider, CapacityType, EnvironmentConfig, PoolScaling
from policy.infrastructure.node_pools import node_group_plans, pool_scaling

Json = Mapping[str, Any]

NODE_PROPERTIES = ("AmiType", "ReleaseVersion", "Version", "InstanceTypes", "CapacityType", "Subnets", "NodeRole")
"""``AWS::EKS::Nodegroup`` properties whose change replaces the group's nodes (plus its launch template's data)."""


def _launch_template_data(resources: Json, reference: Any) -> Any:
    """The ``LaunchTemplateData`` a node group's ``LaunchTemplate.Id`` refers to (``{"Ref": ...}``)."""
    if isinstance(reference, Mapping) and isinstance(reference.get("Ref"), str):
        resource = resources.get(reference["Ref"]) or {}
        return (resource.get("Properties") or {}).get("LaunchTemplateData")
    return reference


def node_fingerprints(template: Json) -> dict[str, dict[str, str]]:
    """Node group name -> property -> digest of what decides its nodes, for every named node group."""
    resources = template.get("Resources") or {}
    found: dict[str, dict[str, str]] = {}
    for resource in resources.values():
        if resource.get("Type") != "AWS::EKS::Nodegroup":
            continue
        properties = resource.get("Properties") or {}
        name = properties.get("NodegroupName")
        if not isinstance(name, str):
            continue
        parts = {key: properties.get(key) for key in NODE_PROPERTIES}
        launch = properties.get("LaunchTemplate") or {}
        parts["LaunchTemplate"] = _launch_template_data(resources, launch.get("Id") or launch.get("Name"))
        found[name] = {
            key: hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest() for key, value in parts.items()
        }
    return found


def replacement_warnings(env: EnvironmentConfig, *, before: Json, after: Json) -> list[str]:
    """One line per static GPU pool whose nodes the change from ``before`` to ``after`` replaces."""
    old, new = node_fingerprints(before), node_fingerprints(after)
    lines = []
    for index, pool in enumerate(env.gpu_pools):
        if pool.provider is not CapacityProvider.MANAGED_NODE_GROUP or pool_scaling(pool) is not PoolScaling.STATIC:
            continue
        changed = sorted(
            {
                key
                for plan in node_group_plans(pool, cluster_name=env.cluster.name)
                if plan.name in old and plan.name in new
                for key, digest in new[plan.name].items()
                if old[plan.name].get(key) != digest
            }
        )
        if not changed:
            continue
        block = pool.capacity.type is CapacityType.CAPACITY_BLOCK
        step = (
            f"scale it to 0 first (gpu_pools[{index}].min_size and max_size: 0), deploy, then scale back"
            if block
            else "deploy it when the pool's gangs can be stopped"
        )
        lines.append(
            f"gpu_pools[{index}] ({pool.name}): this change replaces every node of static pool {pool.name} "
            f"(changed: {', '.join(changed)}), evicting every gang on it; {step}"
        )
    return lines
