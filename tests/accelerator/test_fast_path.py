"""The commands' jsii fast path (the accelerator's ``fast-path``, forced on here): same objects as jsii's
own path, and a block-scoped form that restores it."""

from __future__ import annotations

import pytest

from accelerator import SWITCH
from tests.conftest import EXAMPLE_ENVIRONMENTS, load_environment, shipped_render


def _wrong_type_is_refused() -> bool:
    from cdk8s_plus_37 import k8s

    try:
        k8s.ObjectMeta(name=42)  # type: ignore[arg-type]
    except TypeError:
        return True
    return False


@pytest.fixture(autouse=True)
def _accelerator_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SWITCH, "on")


def test_block_scoped_fast_path_skips_checks_inside_and_restores_them_after() -> None:
    from jsii import _kernel

    from accelerator.runtime import fast_path

    own = _kernel._make_reference_for_native
    assert _wrong_type_is_refused()
    with fast_path():
        assert not _wrong_type_is_refused()
        assert getattr(_kernel._make_reference_for_native, "reads_struct_values", False)
    assert _kernel._make_reference_for_native is own
    assert _wrong_type_is_refused()


@pytest.mark.parametrize("name", EXAMPLE_ENVIRONMENTS)
def test_fast_path_renders_the_same_objects(name: str) -> None:
    from accelerator.runtime import fast_path
    from charts.render import render_environment

    env = load_environment(name=name)
    checked = shipped_render(name).files
    with fast_path():
        fast = render_environment(env).files
    assert fast == checked
