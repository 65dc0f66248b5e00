"""The ``dra_driver`` section of an environment file."""

from __future__ import annotations

from typing import Any

from addons.nvidia_dra_driver.settings import DraDriverConfig
from tests.helpers import env_from, env_refusal


def test_defaults_install_the_driver_without_compute_domains() -> None:
    assert (DraDriverConfig().enabled, DraDriverConfig().compute_domains) == (True, False)


def test_compute_domains_are_accepted(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {"compute_domains": True}
    assert env_from(dev_data).dra_driver == DraDriverConfig(enabled=True, compute_domains=True)


def test_a_string_for_a_switch_is_refused(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {"enabled": "yes"}
    assert env_refusal(dev_data) == (
        "dra_driver.enabled: a string where true or false belongs (got 'yes'); "
        "fix: write the value in that type (quote a string; no implicit conversion)"
    )


def test_unknown_key_is_refused(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {"imex": True}
    assert env_refusal(dev_data) == (
        "dra_driver.imex: unknown key (got True); fix: remove it or use one of: compute_domains, enabled"
    )


def test_the_driver_cannot_be_turned_off_under_dra_pools(dev_data: dict[str, Any]) -> None:
    dev_data["dra_driver"] = {"enabled": False}
    assert env_refusal(dev_data) == (
        "gpu_pools[0].dra: pool uses DRA but dra_driver.enabled is false (got True); "
        "fix: set dra_driver.enabled: true or use device_plugin: true on this pool"
    )
