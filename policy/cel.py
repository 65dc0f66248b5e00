"""Evaluate Kubernetes CEL with cel-python, plus the Kubernetes library functions we use.

Kubernetes extends CEL with ``quantity()``, ``semver()`` and ``compareTo`` and friends;
they are implemented here over cel-python's types so DeviceClass selectors and
admission policies run in tests exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, total_ordering
from typing import Any

import celpy
from celpy import celtypes

_QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P|m)?$")
_FACTORS = {
    None: 1,
    "m": 0.001,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
}


@total_ordering
class Quantity:
    def __init__(self, text: str) -> None:
        match = _QUANTITY.match(text)
        if match is None:
            raise ValueError(f"not a quantity: {text!r}")
        self.value = float(match.group(1)) * _FACTORS[match.group(2)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)


@total_ordering
class Semver:
    def __init__(self, text: str) -> None:
        self.parts = tuple(int(p) for p in text.split("-", 1)[0].split("."))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.parts == other.parts

    def __lt__(self, other: Semver) -> bool:
        return self.parts < other.parts

    def __hash__(self) -> int:
        return hash(self.parts)


def _compare(left: Any, right: Any) -> celtypes.IntType:
    return celtypes.IntType((left > right) - (left < right))


def _join(items: Any, separator: Any = "") -> celtypes.StringType:
    """Kubernetes' strings library ``<list<string>>.join(<string>?)``."""
    return celtypes.StringType(str(separator).join(str(item) for item in items))


FUNCTIONS: dict[str, Any] = {
    "quantity": lambda text: Quantity(str(text)),
    "semver": lambda text: Semver(str(text)),
    "compareTo": _compare,
    "isGreaterThan": lambda left, right: celtypes.BoolType(left > right),
    "isLessThan": lambda left, right: celtypes.BoolType(left < right),
    "join": _join,
}

_CEL_VALUES = (
    celtypes.BoolType,
    celtypes.IntType,
    celtypes.UintType,
    celtypes.DoubleType,
    celtypes.StringType,
    celtypes.ListType,
    celtypes.MapType,
    Quantity,
    Semver,
)


def to_cel(value: Any) -> Any:
    """Plain JSON-like data to CEL values; ``{"version": "x"}`` leaves become semvers, capacities quantities.

    Values that already are CEL values (results of earlier expressions) pass through unchanged.
    """
    if isinstance(value, _CEL_VALUES):
        return value
    if isinstance(value, Quantity | Semver):
        return value
    if isinstance(value, Mapping):
        if set(value) == {"version"}:
            return Semver(value["version"])
        return celtypes.MapType({celtypes.StringType(k): to_cel(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return celtypes.ListType([to_cel(v) for v in value])
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if value is None:
        return None
    return celtypes.StringType(value)


def _device_to_cel(device: Mapping[str, Any]) -> Any:
    """A ResourceSlice device entry as CEL sees it: capacities are quantities."""
    capacity = {
        domain: {name: Quantity(value) for name, value in caps.items()}
        for domain, caps in device.get("capacity", {}).items()
    }
    return to_cel({**device, "capacity": capacity})


@cache
def _program(expression: str) -> Any:
    environment = celpy.Environment()
    return environment.program(environment.compile(expression), functions=FUNCTIONS)


def evaluate(expression: str, variables: Mapping[str, Any]) -> Any:
    """Evaluate ``expression`` with ``variables`` (plain data, converted to CEL values)."""
    return _program(expression).evaluate({k: to_cel(v) for k, v in variables.items()})


def device_matches(expression: str, device: Mapping[str, Any]) -> bool:
    """Whether a DRA device entry satisfies a DeviceClass selector expression."""
    return bool(_program(expression).evaluate({"device": _device_to_cel(device)}))
