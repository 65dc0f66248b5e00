"""Karpenter GPU capacity from config, as plain dicts: NodePools, EC2NodeClasses, chart values.

Pure functions with no CDK import. ``karpenter_objects(env)`` is the reviewable output
(``dist/<env>/karpenter.yaml``, written by ``charts.render``); ``addons.karpenter.construct`` deploys the
same dicts. Object names are a public contract: a NodePool is named after its pool (plus
the zone suffix when ``zone_pinned``), an EC2NodeClass after its pool.

Training defaults (https://karpenter.sh/docs/concepts/disruption/): ``consolidationPolicy:
WhenEmpty`` so a node with pods is never consolidated, ``expireAfter: Never`` so nodes are
not recycled under a job, and a budget that stops drift replacement (roll between runs).
Gang pods carry ``karpenter.sh/do-not-disrupt`` (``catalog.labels.DO_NOT_DISRUPT_ANNOTATION``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addons.karpenter.pin import (
    KARPENTER_GPU_NAMES,
    KARPENTER_NODECLASS_API_VERSION,
    KARPENTER_NODEPOOL_API_VERSION,
    KARPENTER_RELEASE,
    KARPENTER_RELEASES,
    KUBERNETES_ARCH,
    KarpenterRelease,
)
from addons.karpenter.settings import KarpenterCapacityType, KarpenterMode, KarpenterPoolConfig
from catalog.instances import INSTANCE_TYPES, InstanceType
from catalog.labels import POOL_LABEL, ROLE_LABEL, ZONE_LABEL
from config.model import CapacityProvider, EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.efa import karpenter_network_interfaces
from policy.infrastructure.node_pools import gpu_node_labels, max_nodes, max_nodes_in_zone, node_config_user_data

GPU_RESOURCE = "nvidia.com/gpu"
_NODECLASS_KIND = "EC2NodeClass"
_NODECLASS_GROUP = KARPENTER_NODECLASS_API_VERSION.split("/", 1)[0]
_MANAGED_BY = {"app.kubernetes.io/managed-by": "gpu-platform"}


def karpenter_pools(env: EnvironmentConfig) -> tuple[GpuPoolConfig, ...]:
    """The GPU pools Karpenter launches, in config order."""
    return tuple(p for p in env.gpu_pools if p.provider is CapacityProvider.KARPENTER)


def uses_karpenter(env: EnvironmentConfig) -> bool:
    return bool(karpenter_pools(env))


def pool_settings(pool: GpuPoolConfig) -> KarpenterPoolConfig:
    """The pool's ``karpenter:`` section, or its defaults."""
    return pool.karpenter if pool.karpenter is not None else KarpenterPoolConfig()


def karpenter_release(env: EnvironmentConfig) -> KarpenterRelease:
    return KARPENTER_RELEASES[env.karpenter.version]


def node_role_name(cluster_name: str) -> str:
    """IAM role of Karpenter nodes; the EC2NodeClasses name it, so it is fixed, not generated."""
    return f"{cluster_name}-karpenter-node"


def interruption_queue_name(cluster_name: str) -> str:
    """SQS queue Karpenter reads interruption events from (``settings.interruptionQueue``)."""
    return f"{cluster_name}-karpenter"


def allowed_instance_types(pool: GpuPoolConfig) -> tuple[InstanceType, ...]:
    """Catalog instance types the pool may launch: its families' sizes, or exactly ``instance_types``."""
    families = pool_settings(pool).instance_families
    if families:
        return tuple(t for t in INSTANCE_TYPES.values() if t.family in families)
    return tuple(INSTANCE_TYPES[name] for name in pool.instance_types)


@dataclass(frozen=True)
class NodePoolPlan:
    """One NodePool: a whole pool, or the pool's share in one zone."""

    name: str
    zones: tuple[str, ...]
    max_nodes: int
    """Nodes this NodePool may hold: its ``replicas`` (static) or what its limits are sized for (dynamic)."""


def node_pool_plans(pool: GpuPoolConfig) -> list[NodePoolPlan]:
    """A zone-pinned pool gets one NodePool per zone, like its node-group twin, each sized to
    ``max_nodes_in_zone``; otherwise one NodePool sized to the whole pool's ``max_nodes``. Either
    way the NodePools of a pool add up to ``policy.infrastructure.node_pools.max_nodes``."""
    if pool.zone_pinned:
        return [NodePoolPlan(f"{pool.name}-{zone[-2:]}", (zone,), max_nodes_in_zone(pool, zone)) for zone in pool.zones]
    return [NodePoolPlan(pool.name, tuple(pool.zones), max_nodes(pool))]


def _requirement(key: str, values: list[str]) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": values}


def _requirements(pool: GpuPoolConfig, zones: tuple[str, ...]) -> list[dict[str, Any]]:
    settings = pool_settings(pool)
    types = allowed_instance_types(pool)
    selection = (
        _requirement("karpenter.k8s.aws/instance-family", sorted(settings.instance_families))
        if settings.instance_families
        else _requirement("node.kubernetes.io/instance-type", sorted(pool.instance_types))
    )
    gpu_names = sorted({KARPENTER_GPU_NAMES[t.gpu_model] for t in types if t.gpu_model is not None})
    requirements = [
        selection,
        _requirement("karpenter.k8s.aws/instance-gpu-name", gpu_names),
        _requirement("karpenter.sh/capacity-type", sorted({c.label_value for c in settings.capacity_types})),
        _requirement("kubernetes.io/arch", sorted({KUBERNETES_ARCH[t.architecture] for t in types})),
        _requirement("kubernetes.io/os", ["linux"]),
        _requirement(ZONE_LABEL, sorted(zones)),
    ]
    return sorted(requirements, key=lambda r: str(r["key"]))


def _limits(pool: GpuPoolConfig, nodes: int) -> dict[str, str]:
    """``nodes`` nodes of the largest allowed type, as cpu and GPU limits.

    Karpenter limits count resources, not nodes. ``cpu`` is what always counts (a DRA
    node reports no ``nvidia.com/gpu`` capacity); the GPU limit is the one people read.
    """
    types = allowed_instance_types(pool)
    return {
        "cpu": str(nodes * max(t.vcpus for t in types)),
        GPU_RESOURCE: str(nodes * max(t.gpus for t in types)),
    }


def _disruption(settings: KarpenterPoolConfig) -> dict[str, Any]:
    minutes = settings.consolidate_after_minutes
    return {
        "budgets": [
            {"nodes": "10%", "reasons": ["Empty"]},
            {"nodes": "0", "reasons": ["Drifted"]},
        ],
        "consolidateAfter": f"{minutes}m" if minutes else "0s",
        "consolidationPolicy": "WhenEmpty",
    }


def node_pools(pool: GpuPoolConfig) -> list[dict[str, Any]]:
    """The pool's NodePools (``karpenter.sh/v1``)."""
    settings = pool_settings(pool)
    objects = []
    for plan in node_pool_plans(pool):
        spec: dict[str, Any] = {
            "disruption": _disruption(settings),
            "template": {
                "metadata": {"labels": gpu_node_labels(pool)},
                "spec": {
                    "expireAfter": "Never",
                    "nodeClassRef": {"group": _NODECLASS_GROUP, "kind": _NODECLASS_KIND, "name": pool.name},
                    "requirements": _requirements(pool, plan.zones),
                    "taints": [
                        {"effect": t.effect.value, "key": t.key, **({"value": t.value} if t.value else {})}
                        for t in pool.taints
                    ],
                },
            },
        }
        if settings.mode is KarpenterMode.STATIC:
            spec["replicas"] = plan.max_nodes
        else:
            spec["limits"] = _limits(pool, plan.max_nodes)
        objects.append(
            {
                "apiVersion": KARPENTER_NODEPOOL_API_VERSION,
                "kind": "NodePool",
                "metadata": {"name": plan.name, "labels": {**_MANAGED_BY, POOL_LABEL: pool.name}},
                "spec": spec,
            }
        )
    return objects


def _subnet_terms(env: EnvironmentConfig, pool: GpuPoolConfig) -> list[dict[str, Any]]:
    existing = env.network.existing_vpc
    if existing is not None:
        return [{"id": existing.private_subnet_ids[zone]} for zone in sorted(pool.zones)]
    # The tags stacks/network.py puts on the private node subnets of a VPC it creates.
    return [{"tags": {f"kubernetes.io/cluster/{env.cluster.name}": "shared", "kubernetes.io/role/internal-elb": "1"}}]


def _reservation_terms(settings: KarpenterPoolConfig) -> list[dict[str, Any]]:
    terms: list[dict[str, Any]] = []
    for selector in settings.capacity_reservations:
        if selector.id is not None:
            terms.append({"id": selector.id})
        else:
            term: dict[str, Any] = {"tags": dict(selector.tags)}
            if selector.owner_account is not None:
                term["ownerID"] = selector.owner_account
            terms.append(term)
    return terms


def resource_tags(env: EnvironmentConfig) -> dict[str, str]:
    """The tags the stack puts on every resource, for instances CloudFormation does not create."""
    return {"environment": env.name, "cluster": env.cluster.name, "managed-by": "gpu-platform", **env.tags}


def ec2_node_class(env: EnvironmentConfig, pool: GpuPoolConfig) -> dict[str, Any]:
    """The pool's EC2NodeClass: pinned AL2023 alias, IMDSv2 only, encrypted gp3 root, nodeadm user data,
    and on EFA pools the network interfaces (``policy.infrastructure.efa.karpenter_network_interfaces``)."""
    settings = pool_settings(pool)
    spec: dict[str, Any] = {
        "amiSelectorTerms": [{"alias": f"al2023@{env.karpenter.ami_release}"}],
        "blockDeviceMappings": [
            {
                "deviceName": "/dev/xvda",
                "ebs": {
                    "deleteOnTermination": True,
                    "encrypted": True,
                    "volumeSize": f"{pool.root_volume_gib}Gi",
                    "volumeType": "gp3",
                },
                "rootVolume": True,
            }
        ],
        # Hop limit 2, as on the managed node groups' launch template: same pods, same behaviour.
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": 2,
            "httpTokens": "required",
        },
        "role": node_role_name(env.cluster.name),
        "securityGroupSelectorTerms": [{"tags": {"aws:eks:cluster-name": env.cluster.name}}],
        "subnetSelectorTerms": _subnet_terms(env, pool),
        "tags": {**resource_tags(env), POOL_LABEL: pool.name},
        "userData": node_config_user_data(env.feature_gates.kubelet),
    }
    reservations = _reservation_terms(settings)
    if reservations:
        spec["capacityReservationSelectorTerms"] = reservations
    # EFA pools: a fixed layout (primary ENA + one efa-only per card), so static NodePools get EFA too. The
    # cluster security group the selector picks allows all traffic to and from itself, as EFA needs.
    interfaces = karpenter_network_interfaces(pool)
    if interfaces:
        spec["networkInterfaces"] = interfaces
    return {
        "apiVersion": KARPENTER_NODECLASS_API_VERSION,
        "kind": _NODECLASS_KIND,
        "metadata": {"name": pool.name, "labels": {**_MANAGED_BY, POOL_LABEL: pool.name}},
        "spec": spec,
    }


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def karpenter_objects(env: EnvironmentConfig) -> list[dict[str, Any]]:
    """Every EC2NodeClass, then every NodePool, by name, with sorted keys; empty without Karpenter pools."""
    pools = karpenter_pools(env)
    classes = sorted((ec2_node_class(env, p) for p in pools), key=lambda o: str(o["metadata"]["name"]))
    pools_out = sorted((o for p in pools for o in node_pools(p)), key=lambda o: str(o["metadata"]["name"]))
    return [_sorted(o) for o in (*classes, *pools_out)]


def karpenter_chart_values(env: EnvironmentConfig) -> dict[str, Any]:
    """Values for the ``karpenter`` chart: on the CPU system nodes, interruption queue, gates in use.

    ``settings.enableDRA`` is set when a Karpenter pool uses DRA (validation guarantees the
    release has it); ``staticCapacity`` and ``reservedCapacity`` when a pool needs them.
    """
    pools = karpenter_pools(env)
    settings: dict[str, Any] = {
        "clusterName": env.cluster.name,
        "interruptionQueue": interruption_queue_name(env.cluster.name),
    }
    if any(p.dra for p in pools):
        settings["enableDRA"] = True
    gates = {}
    if any(pool_settings(p).mode is KarpenterMode.STATIC for p in pools):
        gates["staticCapacity"] = True
    if any(KarpenterCapacityType.RESERVED in pool_settings(p).capacity_types for p in pools):
        gates["reservedCapacity"] = True
    if gates:
        settings["featureGates"] = gates
    values: dict[str, Any] = _sorted(
        {
            "nodeSelector": {"kubernetes.io/os": "linux", ROLE_LABEL: "system"},
            # Two replicas need two system nodes (the chart's anti-affinity is per host).
            "replicas": 2 if env.system_nodes.min_size >= 2 else 1,
            "serviceAccount": {"name": KARPENTER_RELEASE},
            "settings": settings,
        }
    )
    return values
