"""The control-plane tier: the kit's objects against a real kube-apiserver and kube-scheduler 1.37.

One control plane per configuration and test process (``eks``, ``workload-aware``), built from
upstream sources by ``control_plane.build`` (cached outside the repository) and started on
loopback. Without Go the tier skips with the reason; ``GPU_PLATFORM_REQUIRE_CONTROL_PLANE=1``
(CI) turns that skip, and any failure to build or start, into a failure.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from control_plane import ControlPlaneError
from control_plane.build import build
from control_plane.configs import ConfigName, Configuration, configuration
from control_plane.run import ControlPlane
from tests.control_plane.cluster import Cluster

REQUIRE_ENV = "GPU_PLATFORM_REQUIRE_CONTROL_PLANE"


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"control plane unavailable: {reason} (and {REQUIRE_ENV}=1 requires it)", pytrace=False)
    pytest.skip(f"control plane unavailable: {reason}")


PlaneFor = Callable[[Configuration], ControlPlane]


@pytest.fixture(scope="session")
def plane_for() -> Iterator[PlaneFor]:
    """``plane_for(configuration)``: a control plane in that configuration, started on first use in this
    test process and stopped at the end of the session (also on Ctrl-C: ``ControlPlane`` handles SIGINT
    and SIGTERM, and its programs die with this process)."""
    started: dict[Configuration, ControlPlane] = {}
    previous = _sigterm_as_interrupt()

    def get(config: Configuration) -> ControlPlane:
        if config not in started:
            try:
                started[config] = ControlPlane(build(), config).start(handle_signals=False)
            except ControlPlaneError as error:
                _unavailable(str(error))
        return started[config]

    try:
        yield get
    finally:
        for plane in started.values():
            plane.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _sigterm_as_interrupt() -> Any:
    """SIGTERM as Ctrl-C, so pytest's teardown stops the control planes and removes their directories
    (a SIGKILL still stops the programs: they die with this process, ``PR_SET_PDEATHSIG``)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)


@pytest.fixture(scope="session")
def eks_plane(plane_for: PlaneFor) -> ControlPlane:
    return plane_for(configuration(ConfigName.EKS.value))


@pytest.fixture(scope="session")
def workload_plane(plane_for: PlaneFor) -> ControlPlane:
    return plane_for(configuration(ConfigName.WORKLOAD_AWARE.value))


@pytest.fixture(scope="session")
def eks(eks_plane: ControlPlane) -> Cluster:
    return Cluster(eks_plane.kubeconfig)


@pytest.fixture(scope="session")
def workload_aware(workload_plane: ControlPlane) -> Cluster:
    return Cluster(workload_plane.kubeconfig)
