"""One result type for preflight, post-deploy verification and the smoke test."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True)
class Check:
    """One verdict: what was checked (``check``), on what (``subject``), and why."""

    check: str
    subject: str
    status: Status
    detail: str
    fix: str = ""
    pools: tuple[str, ...] = ()
    """GPU pools whose settings the fix changes (a capacity finding): a refusal then names the first
    pool's ``pool_field`` in the environment file, and the run file whose gang exposed it."""
    pool_field: str = "max_size"

    def as_dict(self) -> dict[str, Any]:
        found = {**asdict(self), "status": self.status.value}
        if not self.pools:
            del found["pools"], found["pool_field"]
        else:
            found["pools"] = list(self.pools)
        return found


def failed(checks: Iterable[Check]) -> bool:
    return any(c.status is Status.FAIL for c in checks)


def summary(checks: Iterable[Check]) -> str:
    """``3 ok, 1 warn, 0 fail, 0 skip``."""
    counts = dict.fromkeys(Status, 0)
    for c in checks:
        counts[c.status] += 1
    return ", ".join(f"{n} {s.value}" for s, n in counts.items())
