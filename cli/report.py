"""Render checks as an aligned table (people) or JSON (machines); exit codes for CI."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from policy.results import Check, failed, summary

_COLUMNS = ("check", "subject", "status", "detail")
_MAX_WIDTH = 60


def _cell(text: str) -> str:
    return text if len(text) <= _MAX_WIDTH else text[: _MAX_WIDTH - 3] + "..."


def table(checks: Sequence[Check]) -> str:
    """Aligned columns; long check/subject cells are shortened (``--json`` has them whole)."""
    rows = [[_cell(c.check), _cell(c.subject), c.status.value.upper(), c.detail] for c in checks]
    widths = [min(_MAX_WIDTH, max([len(h), *(len(r[i]) for r in rows)])) for i, h in enumerate(_COLUMNS[:-1])]
    lines = ["  ".join(h.upper().ljust(w) for h, w in zip(_COLUMNS[:-1], widths, strict=True)) + "  DETAIL"]
    for check, row in zip(checks, rows, strict=True):
        cells = "  ".join(v.ljust(w) for v, w in zip(row[:-1], widths, strict=True))
        lines.append(f"{cells}  {row[-1]}")
        if check.fix and check.status.value in ("fail", "warn"):
            lines.append(f"{'':{sum(widths) + 2 * len(widths)}}fix: {check.fix}")
    return "\n".join(lines)


def as_json(title: dict[str, Any], checks: Sequence[Check]) -> str:
    return json.dumps(
        {**title, "ok": not failed(checks), "summary": summary(checks), "checks": [c.as_dict() for c in checks]},
        indent=2,
        sort_keys=True,
    )


def render(title: dict[str, Any], checks: Sequence[Check], *, json_output: bool, heading: str) -> str:
    if json_output:
        return as_json(title, checks)
    return f"{heading}\n{table(checks)}\n{summary(checks)}"


def first_line(error: BaseException) -> str:
    """An exception as one line, for ``error: ...`` messages."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def exit_code(checks: Sequence[Check]) -> int:
    """0 when nothing failed (warnings and skips pass), 1 otherwise."""
    return 1 if failed(checks) else 0
