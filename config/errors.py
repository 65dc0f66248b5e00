"""The one error type bad input produces."""

from __future__ import annotations

import sys
from typing import Any

EXIT_BAD_INPUT = 2


def _show(value: Any) -> str:
    text = "nothing" if value is None else _repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _repr(value: Any) -> str:
    """``repr``, except that a missing value reads as YAML writes it (``null``), never ``None``."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(_repr(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in value.items()) + "}"
    return repr(value)


_KINDS: dict[type, str] = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    tuple: "a list",
    dict: "a mapping",
}


def describe_kind(value: Any) -> str:
    """What a YAML reader would call ``value``'s type: 'a list', 'an empty document', never 'NoneType'."""
    if value is None:
        return "an empty value"
    return _KINDS.get(type(value), "a value of another kind")


class ConfigError(Exception):
    """A configuration problem, rendered as one line: where, what was given, how to fix it."""

    def __init__(self, field: str, value: Any, problem: str, fix: str, *, source: str = "") -> None:
        self.field = field
        self.value = value
        self.problem = problem
        self.fix = fix
        self.source = source
        super().__init__(self.line())

    def line(self) -> str:
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.field}: {self.problem} (got {_show(self.value)}); fix: {self.fix}"

    def report(self) -> int:
        """Print the one-line error on stderr; return the exit code for bad input (2)."""
        print(f"error: {self.line()}", file=sys.stderr)
        return EXIT_BAD_INPUT

    def with_source(self, source: str) -> ConfigError:
        return ConfigError(self.field, self.value, self.problem, self.fix, source=source)
