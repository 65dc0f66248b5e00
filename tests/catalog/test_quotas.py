"""The vCPU quota each instance family counts against."""

from __future__ import annotations

import pytest

from catalog.quotas import Market, vcpu_quota


@pytest.mark.parametrize(
    ("family", "market", "code"),
    [
        ("p5", Market.ON_DEMAND, "L-417A185B"),
        ("p6-b200", Market.SPOT, "L-7212CCBC"),
        ("g6e", Market.ON_DEMAND, "L-DB2E81BA"),
        ("g5", Market.SPOT, "L-3819A6DF"),
        ("m7i", Market.ON_DEMAND, "L-1216C47A"),
        ("c7g", Market.SPOT, "L-34B43A08"),
    ],
)
def test_a_family_counts_against_its_class(family: str, market: Market, code: str) -> None:
    assert vcpu_quota(family, market).code == code
