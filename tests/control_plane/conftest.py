"""The control-plane tier: the kit's objects against a real kube-apiserver and kube-scheduler 1.37.

One control plane per configuration and test process (``eks``, ``workload-aware``), built from
upstream sources by ``control_plane.build`` (cached outside the repository) and started on
loopback. Without Go the tier skips with the reason; ``GPU_PLATFORM_REQUIRE_CONTROL_PLANE=1``
(CI) turns that skip, and any failure to build or start, into a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from control_plane import ControlPlaneError
from control_plane.build import build
from control_plane.configs import ConfigName, configuration
from control_plane.run import ControlPlane
from tests.control_plane.cluster import Cluster

REQUIRE_ENV = "GPU_PLATFORM_REQUIRE_CONTROL_PLANE"


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"control plane unavailable: {reason} (and {REQUIRE_ENV}=1 requires it)", pytrace=False)
    pytest.skip(f"control plane unavailable: {reason}")


@pytest.fixture(scope="session")
def control_plane_factory() -> Iterator[dict[ConfigName, ControlPlane]]:
    """Started control planes by configuration (each started on first use, stopped at session end)."""
    started: dict[ConfigName, ControlPlane] = {}
    yield started
    for plane in started.values():
        plane.stop()


def _plane(factory: dict[ConfigName, ControlPlane], name: ConfigName) -> ControlPlane:
    if name not in factory:
        try:
            binaries = build()
            factory[name] = ControlPlane(binaries, configuration(name.value)).start()
        except ControlPlaneError as error:
            _unavailable(str(error))
    return factory[name]


@pytest.fixture(scope="session")
def eks_plane(control_plane_factory: dict[ConfigName, ControlPlane]) -> ControlPlane:
    return _plane(control_plane_factory, ConfigName.EKS)


@pytest.fixture(scope="session")
def workload_plane(control_plane_factory: dict[ConfigName, ControlPlane]) -> ControlPlane:
    return _plane(control_plane_factory, ConfigName.WORKLOAD_AWARE)


@pytest.fixture(scope="session")
def eks(eks_plane: ControlPlane) -> Cluster:
    return Cluster(eks_plane.kubeconfig)


@pytest.fixture(scope="session")
def workload_aware(workload_plane: ControlPlane) -> Cluster:
    return Cluster(workload_plane.kubeconfig)
