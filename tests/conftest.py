"""Shared fixtures: each example environment is synthesized once per test session.

Upstream reference material (CRDs, chart values) is not part of the repository. Tests that
read it carry ``@pytest.mark.reference`` and read it under ``REFERENCE``: the directory named
by ``GPU_PLATFORM_REFERENCE``, else ``../shared/reference`` beside the checkout. Without it
they are skipped with the reason; with ``GPU_PLATFORM_REQUIRE_REFERENCE=1`` (CI's checkout
run) a missing directory fails them instead, so CI never passes by skipping.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import charts
import stacks
from accelerator.runtime import start_kernel_early, use_direct_channel
from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from policy.environment.load import load_environment
from tests.helpers import env_from

if TYPE_CHECKING:
    from charts.render import RenderedEnvironment


def _hands_out_tests_only(config: pytest.Config) -> bool:
    """pytest-xdist's controller process: it runs no test, so a kernel there (loading aws-cdk-lib
    and cdk8s) would only take a core from the workers while they start."""
    return config.getoption("dist", "no") != "no" and not hasattr(config, "workerinput")


# Property tests: 200 examples each by default, HYPOTHESIS_PROFILE=deep for 5000; no example database
# written into the checkout.
settings.register_profile("default", max_examples=200, database=None)
settings.register_profile("deep", max_examples=5000, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def _parse_schema_files_once() -> None:
    """kubernetes-validate reads and parses its schema files on every ``validate`` call, the 1.8 MB
    definitions file included: parse each once per process (same files, same validation)."""
    from kubernetes_validate import utils

    if not hasattr(utils.schema_contents, "cache_info"):
        utils.schema_contents = functools.cache(utils.schema_contents)


_parse_schema_files_once()

REFERENCE_ENV = "GPU_PLATFORM_REFERENCE"
REQUIRE_REFERENCE_ENV = "GPU_PLATFORM_REQUIRE_REFERENCE"
REFERENCE = Path(os.environ.get(REFERENCE_ENV) or REPO_ROOT.parent / "shared" / "reference")
EXAMPLE_ENVIRONMENTS = ("dev", "ci", "prod-example", "karpenter-example")


def _reference_missing() -> str | None:
    if REFERENCE.is_dir():
        return None
    origin = f"${REFERENCE_ENV}" if os.environ.get(REFERENCE_ENV) else "the default ../shared/reference"
    return f"reference material absent: {REFERENCE} ({origin}) does not exist; set {REFERENCE_ENV} to run these tests"


def pytest_configure(config: pytest.Config) -> None:
    if not _hands_out_tests_only(config):  # here: before collection imports jsii
        # As the commands start it, loading what tests load, on the commands' channel.
        start_kernel_early((*stacks.JSII_MODULES, *charts.JSII_MODULES))
        use_direct_channel()
    config.addinivalue_line("markers", "reference: reads upstream reference material under REFERENCE")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("reference") is not None:
        require_reference()


def require_reference(path: Path | None = None) -> Path:
    """``path`` (default ``REFERENCE``) when it exists; otherwise skip the test, or fail it under CI's checkout run."""
    missing = _reference_missing()
    if missing is None and path is not None and not path.exists():
        missing = f"reference material absent: {path} does not exist under {REFERENCE}"
    if missing is not None:
        if os.environ.get(REQUIRE_REFERENCE_ENV) == "1":
            pytest.fail(f"{missing} (and {REQUIRE_REFERENCE_ENV}=1 requires them)", pytrace=False)
        pytest.skip(missing)
    return path or REFERENCE


_reference_outcomes: dict[str, int] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "reference" in report.keywords and (report.when == "call" or report.outcome != "passed"):
        _reference_outcomes[report.outcome] = _reference_outcomes.get(report.outcome, 0) + 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(_reference_outcomes.items())) or "none collected"
    terminalreporter.write_line(f"reference tests ({REFERENCE}): {counts}")


def session_shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every process of this test session sees: the session's root under pytest-xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def once_per_session(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[tuple[Path, bool]]:
    """``(directory, ready)`` for ``name``, held under a lock shared by the session's processes.

    The first process to get the lock finds ``ready`` false and fills the directory; the others
    wait for it and find it ready (pytest-xdist's recipe for session fixtures run once).
    """
    shared = session_shared_dir(tmp_path_factory)
    directory, done = shared / name, shared / f"{name}.done"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            ready = done.exists()
            directory.mkdir(exist_ok=True)
            yield directory, ready
            done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _synthesizer(
    tmp_path_factory: pytest.TempPathFactory, prefix: str, load: Callable[[str], EnvironmentConfig]
) -> Callable[[str], dict[str, Any]]:
    cache: dict[str, dict[str, Any]] = {}

    def get(name: str) -> dict[str, Any]:
        if name not in cache:
            from cli.synth import synth_cloudformation

            with once_per_session(tmp_path_factory, f"{prefix}-{name}") as (outdir, ready):
                if not ready:
                    synth_cloudformation(load(name), outdir)
            cache[name] = {
                p.name.removesuffix(".template.json"): json.loads(p.read_text())
                for p in sorted(outdir.glob("*.template.json"))
            }
            cache[name]["__outdir__"] = outdir
        return cache[name]

    return get


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """``synthesized(env_name)`` -> {stack name: template dict}, synthesized once per name and session."""
    return _synthesizer(tmp_path_factory, "cdk", lambda name: load_environment(name=name))


@pytest.fixture(scope="session")
def synthesized_workload_aware(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """``synthesized`` of the shipped environment's workload-aware twin
    (``tests.helpers.environments.workload_aware``)."""
    from tests.helpers.environments import workload_aware

    return _synthesizer(tmp_path_factory, "cdk-workload-aware", workload_aware)


@pytest.fixture
def dev_data() -> dict[str, Any]:
    """The dev environment as plain data, for tests that mutate one field."""
    from config.files import read_yaml_file

    data: dict[str, Any] = read_yaml_file(REPO_ROOT / "environments" / "dev.yaml")
    return data


@functools.cache
def _shipped_render(name: str) -> RenderedEnvironment:
    from charts.render import render_environment

    return render_environment(load_environment(name=name))


def shipped_render(name: str) -> RenderedEnvironment:
    """``render_environment`` of the shipped environment ``name`` as it is on disk, rendered once per
    test process (on jsii's checked path); each caller gets its own copy to change."""
    import copy

    return copy.deepcopy(_shipped_render(name))


__all__ = ["EXAMPLE_ENVIRONMENTS", "REFERENCE", "EnvironmentConfig", "Path", "env_from", "shipped_render"]
