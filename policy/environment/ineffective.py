"""Settings that cannot take effect: errors where the setting is wrong on its face, ``warning:`` lines and a
SUMMARY.md note where it only waits for something else (a section whose component is not installed)."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel

from config.errors import ConfigError
from config.model import CapacityProvider, EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.node_pools import autoscaled_pools


def check_ineffective_pool_settings(pool: GpuPoolConfig, where: str) -> None:
    capacity = pool.capacity
    if capacity.scale_in_minutes_before_end is not None and capacity.ends_at is None:
        raise ConfigError(
            f"{where}.capacity.scale_in_minutes_before_end",
            capacity.scale_in_minutes_before_end,
            "the scale-in is timed from capacity.ends_at, which is not set, so nothing would ever scale in",
            "set capacity.ends_at to the Capacity Block's end, or remove scale_in_minutes_before_end",
        )


def check_ineffective_settings(env: EnvironmentConfig) -> None:
    if env.dra_driver.compute_domains and not env.dra_driver.enabled:
        raise ConfigError(
            "dra_driver.compute_domains",
            True,
            "compute domains are a feature of the DRA driver, and dra_driver.enabled is false",
            "set dra_driver.enabled: true, or remove compute_domains",
        )


def _changed(section: BaseModel) -> list[str]:
    """Fields of ``section`` that differ from the section's defaults."""
    default = type(section)()
    return [name for name in type(section).model_fields if getattr(section, name) != getattr(default, name)]


def ineffective_setting_notes(env: EnvironmentConfig) -> list[str]:
    """One line per section whose component the environment does not install, though it sets fields of it."""
    notes = []
    changed = _changed(env.cluster_autoscaler)
    if changed and not autoscaled_pools(env):
        notes.append(
            f"cluster_autoscaler: {', '.join(changed)} set, but no GPU pool has scaling: autoscaled, so Cluster "
            "Autoscaler is not installed and the setting has no effect"
        )
    changed = _changed(env.karpenter)
    if changed and not any(p.provider is CapacityProvider.KARPENTER for p in env.gpu_pools):
        notes.append(
            f"karpenter: {', '.join(changed)} set, but no GPU pool has provider: karpenter, so Karpenter is not "
            "installed and the setting has no effect"
        )
    return notes


def first_repeated_entry(section: BaseModel, where: str = "") -> tuple[str, object] | None:
    """The first list entry of ``section`` (or of a section inside it) that appears twice: ``(field, entry)``.

    Every list of an environment is a set in meaning (zones, instance types, gates, principals, CIDRs,
    tiers): a repeat is a typo or a paste, and several services refuse it at deploy (two EKS access
    entries for one principal, two node group subnets for one id).
    """
    for name in type(section).model_fields:
        value = getattr(section, name)
        field = f"{where}.{name}" if where else name
        items: list[tuple[str, object]] = []
        if isinstance(value, BaseModel):
            items = [(field, value)]
        elif isinstance(value, tuple):
            seen: set[str] = set()
            for index, entry in enumerate(value):
                key = entry.model_dump_json() if isinstance(entry, BaseModel) else repr(entry)
                if key in seen:
                    return f"{field}[{index}]", entry.model_dump(mode="json") if isinstance(entry, BaseModel) else entry
                seen.add(key)
            items = [(f"{field}[{i}]", e) for i, e in enumerate(value)]
        elif isinstance(value, dict):
            items = [(f"{field}.{k}", v) for k, v in value.items()]
        for path, item in items:
            if isinstance(item, BaseModel):
                found = first_repeated_entry(item, path)
                if found is not None:
                    return found
    return None


def check_repeated_entries(env: EnvironmentConfig) -> None:
    found = first_repeated_entry(env)
    if found is not None:
        field, entry = found
        if isinstance(entry, Enum):
            entry = entry.value
        raise ConfigError(
            field,
            str(entry) if not isinstance(entry, (str, int, dict, list)) else entry,
            "this entry is listed twice",
            "list each entry once",
        )
