"""Rules that span fields. Each raises one ``ConfigError`` naming field, value and fix."""

from __future__ import annotations

from datetime import UTC, date

from addons.cluster_autoscaler.rules import check_cluster_autoscaler
from addons.karpenter.rules import check_karpenter, check_karpenter_pools_shape
from addons.nvidia_dra_driver.pin import DRA_DRIVER_NAMESPACE
from catalog.efa import EFA_SUPPORT
from catalog.instances import GPU_FAMILIES, INSTANCE_TYPES, MIG_PROFILES
from catalog.priority_tiers import TIERS
from config.errors import ConfigError
from config.model import (
    CapacityProvider,
    CapacityType,
    EndpointAccess,
    EnvironmentConfig,
    GpuPoolConfig,
    PoolScaling,
)
from config.validate_labels import check_pool_labels
from config.validate_limits import check_acknowledgements, check_service_limits
from config.validate_network import check_endpoint, check_network, check_region, check_zone
from config.validate_observability import check_observability
from policy.environment.ineffective import (
    check_ineffective_pool_settings,
    check_ineffective_settings,
    check_repeated_entries,
)
from policy.gates.rules import check_gates
from policy.infrastructure.node_pools import karpenter_efa_problem, node_group_plans, pool_scaling

_GPU_EXAMPLES = "p4d.24xlarge, p5.48xlarge, p5en.48xlarge, p6-b200.48xlarge, g5.*, g6.*, g6e.*"


def validate_environment(env: EnvironmentConfig, *, today: date) -> None:
    """Every cross-field rule; ``today`` (UTC) is what a Capacity Block's end is compared with."""
    check_region(env)
    _check_cluster(env)
    check_endpoint(env)
    check_service_limits(env)
    check_acknowledgements(env)
    check_network(env)
    _check_system_nodes(env)
    check_ephemeral(env)
    check_karpenter_pools_shape(env)
    names: set[str] = set()
    for index, pool in enumerate(env.gpu_pools):
        where = f"gpu_pools[{index}]"
        if pool.name in names:
            raise ConfigError(f"{where}.name", pool.name, "pool name used twice", "give every GPU pool its own name")
        names.add(pool.name)
        _check_pool(env, pool, where)
        check_pool_labels(pool, where)
        _check_scaling(pool, where)
        _check_efa(pool, where)
        check_capacity_block_end(pool, where, today=today)
        check_ineffective_pool_settings(pool, where)
    check_cluster_autoscaler(env)
    check_karpenter(env)
    check_observability(env)
    _check_platform(env)
    check_ineffective_settings(env)
    check_gates(
        control_plane=env.feature_gates.control_plane,
        kubelet=env.feature_gates.kubelet,
        served_beyond_eks=env.feature_gates.acknowledge_served_beyond_eks,
    )
    check_repeated_entries(env)


def _check_cluster(env: EnvironmentConfig) -> None:
    cluster = env.cluster
    if cluster.endpoint_access is EndpointAccess.PUBLIC_AND_PRIVATE and not cluster.public_access_cidrs:
        raise ConfigError(
            "cluster.public_access_cidrs",
            [],
            "a public endpoint needs an allow-list",
            "list the CIDRs that may reach the API server, or set endpoint_access: private",
        )
    if cluster.auto_mode.requested and env.dra_driver.enabled:
        raise ConfigError(
            "cluster.auto_mode",
            cluster.auto_mode.model_dump(mode="json"),
            "EKS Auto Mode brings its own GPU device management, which conflicts with the NVIDIA DRA driver",
            "remove cluster.auto_mode and use gpu_pools (managed node groups) for GPU capacity",
        )


NODEGROUP_NAME_LIMIT = 63
SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease", DRA_DRIVER_NAMESPACE})


def _check_sizes(where: str, min_size: int, max_size: int, desired_size: int | None) -> None:
    if min_size > max_size:
        raise ConfigError(
            f"{where}.min_size", min_size, f"min_size is larger than max_size {max_size}", "set min_size <= max_size"
        )
    if desired_size is not None and not min_size <= desired_size <= max_size:
        raise ConfigError(
            f"{where}.desired_size",
            desired_size,
            f"desired_size is outside [min_size, max_size] = [{min_size}, {max_size}]",
            "set desired_size between min_size and max_size, or leave it out",
        )


def _check_system_nodes(env: EnvironmentConfig) -> None:
    nodes = env.system_nodes
    _check_sizes("system_nodes", nodes.min_size, nodes.max_size, nodes.desired_size)
    if nodes.min_size == 0:
        raise ConfigError(
            "system_nodes.min_size",
            0,
            "the system node group holds CoreDNS and the platform's controllers (the DRA controller, Cluster "
            "Autoscaler, Karpenter), and nothing adds its first node: at 0 nodes none of them runs",
            "set min_size to 1 or more (2 keeps them running while a node is replaced)",
        )
    for index, name in enumerate(nodes.instance_types):
        known = INSTANCE_TYPES.get(name)
        if known is None or known.is_gpu:
            raise ConfigError(
                f"system_nodes.instance_types[{index}]",
                name,
                "not a known CPU instance type",
                "use a general-purpose type such as m7i.large or m7i.xlarge",
            )
        if known.architecture != "x86_64":
            raise ConfigError(
                f"system_nodes.instance_types[{index}]",
                name,
                "the system node group runs the AL2023 x86_64 AMI",
                "use an x86_64 type such as m7i.large",
            )


def _check_platform(env: EnvironmentConfig) -> None:
    platform = env.platform
    if platform.default_tier is not None and TIERS[platform.default_tier].scarce:
        raise ConfigError(
            "platform.default_tier",
            platform.default_tier.value,
            "a scarce tier as the global default would give every Pod without a class that tier, "
            "and admission refuses it in namespaces without the grant",
            "use standard or opportunistic, or leave default_tier unset",
        )
    owners: dict[str, str] = {}
    for team, config in sorted(platform.teams.items()):
        where = f"platform.teams.{team}.namespace"
        if config.namespace in SYSTEM_NAMESPACES:
            raise ConfigError(
                where,
                config.namespace,
                "a system namespace cannot be a team namespace",
                "give the team a namespace of its own",
            )
        if config.namespace in owners:
            raise ConfigError(
                where,
                config.namespace,
                f"namespace already belongs to team {owners[config.namespace]}",
                "give every team its own namespace (grants are namespace labels)",
            )
        if config.namespace in platform.platform_namespaces:
            raise ConfigError(
                where, config.namespace, "namespace is a platform namespace", "give the team a namespace of its own"
            )
        owners[config.namespace] = team
    for index, namespace in enumerate(platform.platform_namespaces):
        if namespace in SYSTEM_NAMESPACES:
            raise ConfigError(
                f"platform.platform_namespaces[{index}]",
                namespace,
                "the platform does not manage system namespaces",
                "use a namespace of its own",
            )


def _check_pool(env: EnvironmentConfig, pool: GpuPoolConfig, where: str) -> None:
    _check_sizes(where, pool.min_size, pool.max_size, pool.desired_size)
    architectures = set()
    for index, name in enumerate(pool.instance_types):
        known = INSTANCE_TYPES.get(name)
        if known is None or not known.is_gpu:
            problem = "not a GPU instance type" if known is not None else "unknown instance type"
            if known is None and name.split(".", 1)[0] in GPU_FAMILIES:
                problem = "unknown size in a GPU family"
            raise ConfigError(
                f"{where}.instance_types[{index}]", name, problem, f"use a GPU instance type such as {_GPU_EXAMPLES}"
            )
        architectures.add(known.architecture)
    if len(architectures) > 1:
        raise ConfigError(
            f"{where}.instance_types",
            list(pool.instance_types),
            "mixes CPU architectures in one pool",
            "split the pool by architecture",
        )
    if len(set(pool.zones)) != len(pool.zones):
        raise ConfigError(f"{where}.zones", list(pool.zones), "a zone is listed twice", "list each zone once")
    for plan in node_group_plans(pool, cluster_name=env.cluster.name):
        if pool.provider is CapacityProvider.MANAGED_NODE_GROUP and len(plan.name) > NODEGROUP_NAME_LIMIT:
            raise ConfigError(
                f"{where}.name",
                pool.name,
                f"node group name {plan.name!r} is longer than {NODEGROUP_NAME_LIMIT} characters",
                f"shorten the pool name to at most {NODEGROUP_NAME_LIMIT - len(plan.name) + len(pool.name)} "
                "characters, or the cluster name",
            )
    if pool.mig_profile is not None:
        for name in pool.instance_types:
            model = INSTANCE_TYPES[name].gpu_model
            offered = MIG_PROFILES.get(model, ()) if model is not None else ()
            if pool.mig_profile not in offered:
                raise ConfigError(
                    f"{where}.mig_profile",
                    pool.mig_profile,
                    f"{name} GPUs do not offer this MIG profile",
                    f"use one of {', '.join(offered)}" if offered else "drop mig_profile for this type",
                )
        if not pool.dra:
            raise ConfigError(
                f"{where}.mig_profile",
                pool.mig_profile,
                "MIG slices are allocated through DRA",
                "set dra: true on a MIG pool",
            )
    vpc_zones = env.network.zones
    for index, zone in enumerate(pool.zones):
        check_zone(env, f"{where}.zones[{index}]", zone)
        if zone not in vpc_zones:
            raise ConfigError(
                f"{where}.zones[{index}]",
                zone,
                f"zone is not in the VPC {list(vpc_zones)}",
                "use one of the VPC's zones or add the zone to network.availability_zones",
            )
    capacity = pool.capacity
    if capacity.type is CapacityType.CAPACITY_BLOCK:
        if capacity.reservation_id is None:
            raise ConfigError(
                f"{where}.capacity.reservation_id",
                None,
                "a capacity block needs its reservation id",
                "set capacity.reservation_id to the Capacity Block's cr-... id",
            )
        if len(pool.zones) != 1 or len(pool.instance_types) != 1:
            raise ConfigError(
                f"{where}.zones",
                list(pool.zones),
                "a Capacity Block is one instance type in one zone",
                "give the pool exactly the block's zone and instance type",
            )
    elif capacity.reservation_id is not None:
        raise ConfigError(
            f"{where}.capacity.reservation_id",
            capacity.reservation_id,
            f"a reservation id only applies to capacity_block, not {capacity.type.value}",
            "set capacity.type: capacity_block or drop reservation_id",
        )
    if pool.dra and pool.device_plugin:
        raise ConfigError(
            f"{where}.device_plugin",
            True,
            "pool is marked both dra and device_plugin; the two oversubscribe GPUs silently",
            "set exactly one of dra and device_plugin to true",
        )
    if not pool.dra and not pool.device_plugin:
        raise ConfigError(
            f"{where}.dra",
            False,
            "pool exposes its GPUs through neither DRA nor the device plugin",
            "set dra: true (or device_plugin: true)",
        )
    if pool.dra and not env.dra_driver.enabled:
        raise ConfigError(
            f"{where}.dra",
            True,
            "pool uses DRA but dra_driver.enabled is false",
            "set dra_driver.enabled: true or use device_plugin: true on this pool",
        )


# --- node scaling and EFA -----------------------------------------------------------------------------


def _check_scaling(pool: GpuPoolConfig, where: str) -> None:
    """How the pool's nodes come into being must be able to give its gangs their nodes."""
    if pool.provider is CapacityProvider.KARPENTER:
        if pool.scaling is not None:
            raise ConfigError(
                f"{where}.scaling",
                pool.scaling.value,
                "Karpenter pools scale themselves; scaling applies to managed node groups",
                "remove scaling and set karpenter.mode: dynamic (follows pending pods) or static "
                "(holds max_size nodes)",
            )
        return
    if pool_scaling(pool) is PoolScaling.STATIC:
        # desired_size then lies in [min_size, max_size] = [max_size, max_size] (checked with the sizes).
        if pool.min_size != pool.max_size:
            raise ConfigError(
                f"{where}.min_size",
                pool.min_size,
                f"a static pool (scaling: static, the default for node groups) holds exactly max_size "
                f"{pool.max_size} nodes, and nothing adds the others",
                f"set min_size: {pool.max_size}, or set scaling: autoscaled",
            )
        return
    if pool.dra and pool.min_size == 0:
        raise ConfigError(
            f"{where}.min_size",
            0,
            "Cluster Autoscaler cannot scale a DRA pool up from zero on AWS (its template node has no "
            "ResourceSlices), so gangs on this pool would never get nodes",
            "set min_size >= 1 (it scales 1 -> N from a real node), or scaling: static",
        )


def _check_efa(pool: GpuPoolConfig, where: str) -> None:
    if pool.provider is CapacityProvider.KARPENTER and pool.placement_group:
        raise ConfigError(
            f"{where}.placement_group",
            True,
            "placement groups are built into managed node group launch templates only",
            "use provider: managed_node_group for a pool in a placement group, or drop placement_group",
        )
    if pool.provider is CapacityProvider.KARPENTER and pool.efa:
        problem = karpenter_efa_problem(pool)
        if problem is not None:
            raise ConfigError(f"{where}.efa", True, problem[0], problem[1])
    if pool.efa:
        for index, name in enumerate(pool.instance_types):
            if name not in EFA_SUPPORT:
                raise ConfigError(
                    f"{where}.efa",
                    True,
                    f"{name} (instance_types[{index}]) has no EFA interfaces",
                    "use EFA instance types only (catalog/efa.py), or set efa: false",
                )
    capacity = pool.capacity
    if capacity.ends_at is not None and capacity.type is not CapacityType.CAPACITY_BLOCK:
        raise ConfigError(
            f"{where}.capacity.ends_at",
            capacity.ends_at.isoformat(),
            f"only a Capacity Block ends, not {capacity.type.value} capacity",
            "set capacity.type: capacity_block or drop capacity.ends_at",
        )
    if capacity.placement_group is not None and capacity.type is not CapacityType.CAPACITY_BLOCK:
        raise ConfigError(
            f"{where}.capacity.placement_group",
            capacity.placement_group,
            f"names a Capacity Block's placement group, but capacity is {capacity.type.value}",
            "set capacity.type: capacity_block or drop capacity.placement_group",
        )
    if not pool.placement_group:
        return
    if pool.efa is False or not all(t in EFA_SUPPORT for t in pool.instance_types):
        raise ConfigError(
            f"{where}.placement_group",
            True,
            "a cluster placement group is for EFA pools (low-latency node-to-node traffic)",
            "set efa: true on EFA instance types, or drop placement_group",
        )
    if not pool.zone_pinned:
        raise ConfigError(
            f"{where}.placement_group",
            True,
            "a cluster placement group lives in one zone, and this pool's node group spans zones",
            "set zone_pinned: true, or drop placement_group",
        )
    if capacity.type is CapacityType.CAPACITY_BLOCK and capacity.placement_group is None:
        raise ConfigError(
            f"{where}.placement_group",
            True,
            "a Capacity Block's instances launch where the block was reserved; a placement group of its own "
            "causes insufficient-capacity errors",
            "set capacity.placement_group to the group the block was reserved in, or set placement_group: false",
        )


def check_capacity_block_end(pool: GpuPoolConfig, where: str, *, today: date) -> None:
    """A Capacity Block that ended before ``today`` (UTC) launches no node: its pool could never hold one."""
    ends_at = pool.capacity.ends_at
    if ends_at is None or pool.capacity.type is not CapacityType.CAPACITY_BLOCK:
        return
    end = (ends_at.astimezone(UTC) if ends_at.tzinfo else ends_at.replace(tzinfo=UTC)).date()
    if end < today:
        raise ConfigError(
            f"{where}.capacity.ends_at",
            ends_at.isoformat(),
            f"the Capacity Block ended on {end.isoformat()}, before today ({today.isoformat()}, UTC)",
            "set the end of a current Capacity Block and its reservation_id, or remove the pool",
        )


def check_ephemeral(env: EnvironmentConfig) -> None:
    """Cross-field rule: a short-lived environment cannot also be long-lived."""
    if env.ephemeral is not None and env.long_lived:
        raise ConfigError(
            "ephemeral",
            env.ephemeral.model_dump(mode="json"),
            "an ephemeral environment cannot be long_lived (deletion protection would block its clean-up)",
            "set long_lived: false or remove the ephemeral section",
        )
