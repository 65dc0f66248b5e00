"""Kubernetes quantity and int-or-string values, one jsii object per distinct value.

Each ``k8s.Quantity.from_*`` / ``k8s.IntOrString.from_*`` call is a round trip to the jsii
Node.js runtime; an environment's Pods repeat the same few values (``1Gi``, ``8``) over a hundred
times. The objects are immutable values, so one per value serves every object that uses it.
"""

from __future__ import annotations

from functools import cache

from cdk8s_plus_37 import k8s


@cache
def quantity(value: str | float) -> k8s.Quantity:
    """``k8s.Quantity`` of ``value``: a string (``"64Gi"``) or a whole number (``8``)."""
    return k8s.Quantity.from_string(value) if isinstance(value, str) else k8s.Quantity.from_number(value)


@cache
def int_or_string(value: str | int) -> k8s.IntOrString:
    """``k8s.IntOrString`` of a port name (``"metrics"``) or number (``8080``)."""
    return k8s.IntOrString.from_string(value) if isinstance(value, str) else k8s.IntOrString.from_number(value)
