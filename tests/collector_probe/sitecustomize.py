"""Loaded by every Python process that has this folder on ``PYTHONPATH`` (``site`` imports it at
start): it records, in the file ``COLLECTOR_PROBE_LOG`` names, whether the cyclic garbage collector
is on while the process imports the jsii bindings (``aws_cdk``, ``cdk8s_plus_37``: it should be
off), and whether it is on and the imports' objects frozen each time the process renders
(``charts.render``'s functions) and builds the CDK app (``stacks.app_options.new_app``). A command
is run as users run it, only with this folder added (``tests/accelerator/test_command_process.py``,
``tests/cli/test_synth.py``)."""

from __future__ import annotations

import gc
import importlib.abc
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_LOG = os.environ.get("COLLECTOR_PROBE_LOG")
_PROBED_CALLS = {"charts.render": ("render_checked", "render_environment"), "stacks.app_options": ("new_app",)}
_PROBED_IMPORTS = ("aws_cdk", "cdk8s_plus_37")


def _record(line: str) -> None:
    assert _LOG is not None
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(line + "\n")


def _collector() -> str:
    return "collector on" if gc.isenabled() else "collector off"


def _probed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        _record(f"call {name}: {_collector()}, {'imports frozen' if gc.get_freeze_count() else 'nothing frozen'}")
        return function(*args, **kwargs)

    return call


class _Probe(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if fullname not in _PROBED_CALLS and fullname not in _PROBED_IMPORTS:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        assert spec is not None and spec.loader is not None
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            if fullname in _PROBED_IMPORTS:
                _record(f"import {fullname}: {_collector()}")
            run(module)
            for name in _PROBED_CALLS.get(fullname, ()):
                setattr(module, name, _probed(name, getattr(module, name)))

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if _LOG:
    sys.meta_path.insert(0, _Probe())
