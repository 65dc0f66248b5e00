"""Every check over one environment's rendered object set, in order (``make check``).

Each check is a pure function of the objects (and the environment, for capacity and
grants) returning ``Check`` verdicts: ``fail`` for a gang that can never start or an
object the cluster would drop, ``warn`` for one that may wait. ``run_checks`` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable

from config.model import EnvironmentConfig
from policy.checks.capacity import check_capacity
from policy.checks.competition import check_competition
from policy.checks.device_classes import check_device_classes
from policy.checks.feature_gates import check_feature_gates
from policy.checks.gang_size import check_gang_size
from policy.checks.objects import Obj
from policy.checks.priority_tiers import check_priority_tiers
from policy.checks.references import check_references
from policy.checks.tolerations import check_tolerations
from policy.results import Check, Status

CHECKS: tuple[Callable[[EnvironmentConfig, list[Obj]], list[Check]], ...] = (
    check_feature_gates,
    check_references,
    check_gang_size,
    check_device_classes,
    check_capacity,
    check_tolerations,
    check_priority_tiers,
    check_competition,
)


def run_checks(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    """Every finding, plus one ``ok`` line per check that found nothing."""
    results: list[Check] = []
    for check in CHECKS:
        findings = check(env, objects)
        name = check.__name__.removeprefix("check_").replace("_", "-")
        results += findings or [Check(name, env.name, Status.OK, f"{len(objects)} objects checked")]
    return results
