"""Service bounds and acknowledgements: what AWS would refuse at deploy is refused here, at synth."""

from __future__ import annotations

from catalog.service_limits import (
    NODES_PER_MANAGED_NODE_GROUP,
    PLATFORM_TAG_COUNT,
    PUBLIC_ACCESS_CIDRS_PER_CLUSTER,
    RESERVED_TAG_PREFIX,
    TAG_KEY_CHARACTERS,
    TAG_PUNCTUATION,
    TAG_VALUE_CHARACTERS,
    TAGS_PER_RESOURCE,
    ServiceLimit,
)
from config.errors import ConfigError
from config.model import CapacityProvider, EnvironmentConfig


def check_service_limits(env: EnvironmentConfig) -> None:
    _check_tags(env.tags)
    _check_node_group_size("system_nodes.max_size", env.system_nodes.max_size)
    for index, pool in enumerate(env.gpu_pools):
        if pool.provider is CapacityProvider.MANAGED_NODE_GROUP:
            _check_node_group_size(f"gpu_pools[{index}].max_size", pool.max_size)
    cidrs = env.cluster.public_access_cidrs
    if len(cidrs) > PUBLIC_ACCESS_CIDRS_PER_CLUSTER.value:
        raise _over("cluster.public_access_cidrs", len(cidrs), PUBLIC_ACCESS_CIDRS_PER_CLUSTER, "merge ranges")


def check_acknowledgements(env: EnvironmentConfig) -> None:
    """Legal but dangerous choices must be acknowledged by a key that says what they do."""
    cluster = env.cluster
    open_ranges = cluster.internet_open_ranges
    if open_ranges and not cluster.acknowledge_public_endpoint_open_to_internet:
        raise ConfigError(
            "cluster.public_access_cidrs",
            open_ranges[0],
            "the API server endpoint would be open to every address on the internet",
            "list the ranges that need access, or set cluster.acknowledge_public_endpoint_open_to_internet: true",
        )


def _check_node_group_size(field: str, max_size: int) -> None:
    if max_size > NODES_PER_MANAGED_NODE_GROUP.value:
        raise _over(field, max_size, NODES_PER_MANAGED_NODE_GROUP, "split the capacity over more pools")


def _over(field: str, value: int, limit: ServiceLimit, fix: str) -> ConfigError:
    return ConfigError(field, value, f"more than the {limit.value} {limit.what} AWS allows ({limit.source})", f"{fix}")


def _check_tags(tags: dict[str, str]) -> None:
    room = TAGS_PER_RESOURCE.value - PLATFORM_TAG_COUNT
    if len(tags) > room:
        raise ConfigError(
            "tags",
            len(tags),
            f"more than {room} tags: AWS allows {TAGS_PER_RESOURCE.value} per resource and the platform adds "
            f"{PLATFORM_TAG_COUNT} ({TAGS_PER_RESOURCE.source})",
            f"keep at most {room} tags",
        )
    for key, value in tags.items():
        if not key or len(key) > TAG_KEY_CHARACTERS.value:
            raise ConfigError(
                f"tags.{key}", key, f"tag keys have 1-{TAG_KEY_CHARACTERS.value} characters", "shorten the key"
            )
        if key.lower().startswith(RESERVED_TAG_PREFIX):
            raise ConfigError(
                f"tags.{key}", key, f"the '{RESERVED_TAG_PREFIX}' prefix is reserved for AWS", "rename the tag"
            )
        if len(value) > TAG_VALUE_CHARACTERS.value:
            raise ConfigError(
                f"tags.{key}",
                value,
                f"tag values have at most {TAG_VALUE_CHARACTERS.value} characters",
                "shorten the value",
            )
        for text in (key, value):
            bad = [c for c in text if not (c.isalnum() or c in TAG_PUNCTUATION)]
            if bad:
                raise ConfigError(
                    f"tags.{key}",
                    text,
                    f"character {bad[0]!r} is not allowed in tags",
                    "use letters, digits, spaces and _ . : / = + - @",
                )
