"""Commands skip the jsii runtime's per-argument typeguard checks.

Generated jsii bindings check every argument of every construct and struct with typeguard
before the call reaches Node.js: about a quarter of rendering time. The code calling them is
type-checked (``mypy --strict`` with the aws_cdk, cdk8s and cdk8s-plus-37 stubs), and the
test suite, which builds every shipped environment in-process, keeps the checks on; the
output is the same either way (``make freshness`` compares the two).
"""

from __future__ import annotations

from typing import Any


def skip_argument_type_checks() -> None:
    """Make jsii's ``check_type`` a no-op for this process (no-op when jsii has no such hook)."""
    from jsii import _type_checking

    if hasattr(_type_checking, "_resolved_check"):

        def unchecked(**_: Any) -> None:
            return None

        _type_checking._resolved_check = unchecked
