"""Priority tiers: the platform owns priority, preemption and disruption; teams pick a tier.

Values stay far below the system classes (2,000,000,000+) and leave room between tiers.
High tiers are scarce: which namespaces may use them is recorded in the environment and
enforced by admission policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Tier(StrEnum):
    CRITICAL = "critical"
    DEADLINE = "deadline"
    STANDARD = "standard"
    OPPORTUNISTIC = "opportunistic"


class PreemptionPolicy(StrEnum):
    PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
    NEVER = "Never"


class DisruptionMode(StrEnum):
    SINGLE = "single"
    ALL = "all"


@dataclass(frozen=True)
class TierSpec:
    tier: Tier
    priority_class: str
    value: int
    preemption_policy: PreemptionPolicy
    disruption_mode: DisruptionMode
    scarce: bool
    description: str


TIERS: dict[Tier, TierSpec] = {
    t.tier: t
    for t in (
        TierSpec(
            Tier.CRITICAL,
            "gpu-critical",
            1_000_000,
            PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
            DisruptionMode.ALL,
            True,
            "Platform-run GPU work that must not wait (evaluation gates, incident response). "
            "Preempts every training tier.",
        ),
        TierSpec(
            Tier.DEADLINE,
            "gpu-deadline",
            100_000,
            PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
            DisruptionMode.ALL,
            True,
            "Training runs with a committed deadline. Preempts standard and opportunistic gangs; "
            "granted per namespace.",
        ),
        TierSpec(
            Tier.STANDARD,
            "gpu-standard",
            10_000,
            PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
            DisruptionMode.ALL,
            False,
            "Default for training runs. Preempts only opportunistic gangs.",
        ),
        TierSpec(
            Tier.OPPORTUNISTIC,
            "gpu-opportunistic",
            1_000,
            PreemptionPolicy.NEVER,
            DisruptionMode.ALL,
            False,
            "Backfill on idle GPUs. Never preempts; is preempted first.",
        ),
    )
}
