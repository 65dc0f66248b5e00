"""Rules for Karpenter pools and the controller. Each raises one ``ConfigError`` naming field, value and fix.

``check_karpenter_pools_shape`` runs before the per-pool checks in ``policy.environment.validate``
(so a pool's name or section is judged before its sizes), ``check_karpenter`` after them
(it relies on instance types being known to the catalog).
"""

from __future__ import annotations

from addons.karpenter.pin import COMPATIBILITY_MATRIX_URL, KARPENTER_RELEASES
from addons.karpenter.plan import karpenter_pools, node_pool_plans, node_role_name, pool_settings
from addons.karpenter.settings import KarpenterCapacityType
from catalog import versions
from catalog.instances import GPU_FAMILIES, INSTANCE_TYPES
from config.errors import ConfigError
from config.model import Capacity, CapacityProvider, EnvironmentConfig, GpuPoolConfig

_LABEL_VALUE_MAX = 63
_IAM_ROLE_NAME_MAX = 64


def _is_karpenter(pool: GpuPoolConfig) -> bool:
    return pool.provider is CapacityProvider.KARPENTER


def check_karpenter_pools_shape(env: EnvironmentConfig) -> None:
    """Names shared across providers, and settings that belong to the other provider."""
    owners: dict[str, tuple[int, GpuPoolConfig]] = {}
    for index, pool in enumerate(env.gpu_pools):
        where = f"gpu_pools[{index}]"
        first = owners.get(pool.name)
        if first is not None and first[1].provider is not pool.provider:
            raise ConfigError(
                f"{where}.name",
                pool.name,
                f"pool name is claimed by both a managed node group pool and a Karpenter pool (gpu_pools[{first[0]}]);"
                " their nodes would share one gpu-platform.io/pool label",
                "give the Karpenter pool its own name",
            )
        owners.setdefault(pool.name, (index, pool))
        if pool.karpenter is not None and not _is_karpenter(pool):
            raise ConfigError(
                f"{where}.karpenter",
                pool.karpenter.model_dump(mode="json"),
                "a karpenter section on a managed node group pool has no effect",
                "set provider: karpenter or remove the karpenter section",
            )
        if not _is_karpenter(pool):
            continue
        if pool.capacity != Capacity():
            raise ConfigError(
                f"{where}.capacity",
                pool.capacity.model_dump(mode="json", exclude_none=True),
                "Karpenter pools choose capacity with karpenter.capacity_types",
                "remove capacity and set karpenter.capacity_types (and karpenter.capacity_reservations)",
            )
        if pool.min_size or pool.desired_size is not None:
            raise ConfigError(
                f"{where}.min_size" if pool.min_size else f"{where}.desired_size",
                pool.min_size or pool.desired_size,
                "Karpenter pools have no minimum or initial size",
                "remove it; for nodes that stay up set karpenter.mode: static (holds max_size nodes)",
            )


def check_karpenter(env: EnvironmentConfig) -> None:
    """Instance families, capacity types and reservations; release x Kubernetes x DRA, and whether
    the release's row is verified."""
    pools = karpenter_pools(env)
    if not pools:
        return
    for index, pool in enumerate(env.gpu_pools):
        if _is_karpenter(pool):
            _check_pool(pool, f"gpu_pools[{index}]")
    _check_release(env)
    if env.cluster.auto_mode.requested:
        raise ConfigError(
            "cluster.auto_mode",
            env.cluster.auto_mode.model_dump(mode="json"),
            "EKS Auto Mode runs its own Karpenter, whose NodePool API conflicts with a Karpenter install",
            "remove cluster.auto_mode or move the provider: karpenter pools to managed_node_group",
        )
    role = node_role_name(env.cluster.name)
    if len(role) > _IAM_ROLE_NAME_MAX:
        raise ConfigError(
            "cluster.name",
            env.cluster.name,
            f"the Karpenter node role name {role!r} is longer than {_IAM_ROLE_NAME_MAX} characters",
            f"shorten the cluster name to {_IAM_ROLE_NAME_MAX - len(role) + len(env.cluster.name)} characters or less",
        )


def _check_pool(pool: GpuPoolConfig, where: str) -> None:
    for plan in node_pool_plans(pool):
        if len(plan.name) > _LABEL_VALUE_MAX:
            raise ConfigError(
                f"{where}.name",
                pool.name,
                f"NodePool name {plan.name!r} is longer than {_LABEL_VALUE_MAX} characters (Karpenter labels every "
                "node with it, karpenter.sh/nodepool)",
                f"shorten the pool name to at most {_LABEL_VALUE_MAX - len(plan.name) + len(pool.name)} characters",
            )
    settings = pool_settings(pool)
    families = settings.instance_families
    for index, family in enumerate(families):
        if family not in GPU_FAMILIES:
            known_cpu = any(t.family == family for t in INSTANCE_TYPES.values())
            raise ConfigError(
                f"{where}.karpenter.instance_families[{index}]",
                family,
                "instance family has no GPUs" if known_cpu else "unknown instance family",
                f"use GPU families such as {', '.join(sorted(GPU_FAMILIES))}",
            )
    if families:
        for index, name in enumerate(pool.instance_types):
            if INSTANCE_TYPES[name].family not in families:
                raise ConfigError(
                    f"{where}.instance_types[{index}]",
                    name,
                    f"instance type is outside karpenter.instance_families {list(families)}",
                    "add its family to karpenter.instance_families or drop the instance type",
                )
    reserved = KarpenterCapacityType.RESERVED in settings.capacity_types
    if reserved and not settings.capacity_reservations:
        raise ConfigError(
            f"{where}.karpenter.capacity_reservations",
            [],
            "capacity type reserved needs a capacity reservation selector",
            "add capacity_reservations: [{id: cr-...}] (a Capacity Block or ODCR) or select reservations by tags",
        )
    if settings.capacity_reservations and not reserved:
        raise ConfigError(
            f"{where}.karpenter.capacity_types",
            [c.value for c in settings.capacity_types],
            "capacity reservations are only used with capacity type reserved",
            "add reserved to karpenter.capacity_types or remove karpenter.capacity_reservations",
        )
    for index, selector in enumerate(settings.capacity_reservations):
        by_id, by_tags = selector.id is not None, bool(selector.tags)
        if by_id == by_tags or (by_id and selector.owner_account is not None):
            raise ConfigError(
                f"{where}.karpenter.capacity_reservations[{index}]",
                selector.model_dump(mode="json", exclude_none=True, exclude_defaults=True),
                "a reservation selector names either an id or tags (owner_account only with tags)",
                "keep exactly one of id and tags",
            )


def _check_release(env: EnvironmentConfig) -> None:
    version = env.karpenter.version
    release = KARPENTER_RELEASES.get(version)
    if release is None:
        raise ConfigError(
            "karpenter.version",
            version,
            "Karpenter release is not in the compatibility table (addons/karpenter/pin.py)",
            f"use one of {', '.join(KARPENTER_RELEASES)} or add a checked row to the table",
        )
    dra_pools = [p.name for p in karpenter_pools(env) if p.dra]
    if dra_pools and not release.dra:
        raise ConfigError(
            "karpenter.version",
            version,
            f"Karpenter {version} cannot provision for DRA claims, and Karpenter pools {dra_pools} use DRA",
            "use a Karpenter release with DRA support (1.15 or later) or set device_plugin: true, dra: false"
            " on those pools",
        )
    minor = versions.KUBERNETES_MINOR
    if not release.supports_kubernetes(minor) and not env.karpenter.acknowledge_unsupported_kubernetes:
        raise ConfigError(
            "karpenter.version",
            version,
            f"Karpenter {version} supports Kubernetes {release.kubernetes_min}-{release.kubernetes_max},"
            f" not the cluster's {minor}",
            "use a Karpenter release that supports it, or set karpenter.acknowledge_unsupported_kubernetes: true"
            " to run it anyway",
        )
    if not release.verified and not env.karpenter.acknowledge_unverified_release:
        raise ConfigError(
            "karpenter.version",
            version,
            f"the compatibility row {release.row} is an assumption, not verified against upstream",
            f"check it in {COMPATIBILITY_MATRIX_URL} and set verified=True on its row in addons/karpenter/pin.py,"
            " or set karpenter.acknowledge_unverified_release: true to run it anyway",
        )
