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

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "status": self.status.value}


def failed(checks: Iterable[Check]) -> bool:
    return any(c.status is Status.FAIL for c in checks)


def summary(checks: Iterable[Check]) -> str:
    """``3 ok, 1 warn, 0 fail, 0 skip``."""
    counts = dict.fromkeys(Status, 0)
    for c in checks:
        counts[c.status] += 1
    return ", ".join(f"{n} {s.value}" for s, n in counts.items())
