"""One jsii Quantity / IntOrString per distinct value, serving every object that uses it."""

from __future__ import annotations

from charts.quantities import int_or_string, quantity


def test_a_value_is_made_once_and_keeps_its_text_or_number() -> None:
    assert quantity("64Gi") is quantity("64Gi")
    assert quantity("64Gi").value == "64Gi"
    assert quantity(8).value == 8
    assert quantity(8) is not quantity("8")


def test_ports_by_name_and_number() -> None:
    assert int_or_string("metrics").value == "metrics"
    assert int_or_string(8080).value == 8080
    assert int_or_string(8080) is int_or_string(8080)
