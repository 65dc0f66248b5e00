"""Start the jsii runtime early, and end commands fast without leaving it or its files behind."""

from __future__ import annotations

import gc
import importlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

_warming: list[threading.Thread] = []
WARM_JOIN_TIMEOUT_SECONDS = 60.0
_collection_paused = False


def warm_cdk8s(*, fast_path: bool = False) -> None:
    """Import the charts' jsii packages (cdk8s-plus-37) on a background thread, once per process;
    ``exit_now`` joins it, and rendering waits on the import.

    The kernel starts first, before jsii is imported, and loads their assemblies (constructs,
    cdk8s, cdk8s-plus-37) while this process imports jsii, pydantic and the configuration; the
    runtime adopts it on the direct channel (``cli.jsii_runtime.start_command_runtime``). The
    import's own Python work overlaps with the main thread's too. ``fast_path``: the commands' fast
    path as well, for a command's own process; a test process calling a command's ``main`` keeps
    jsii's checks.
    """
    import charts
    from cli.jsii_runtime import start_command_runtime

    start_command_runtime(charts.JSII_MODULES, fast_path=fast_path)
    if _warming:
        return
    thread = threading.Thread(target=lambda: [importlib.import_module(m) for m in charts.JSII_MODULES], daemon=True)
    thread.start()
    _warming.append(thread)


def run_command(main: Callable[[], int]) -> None:
    """Run a command's ``main`` and leave through ``exit_now``, also when argparse ends it (``--help``,
    a usage error). A command that refuses its input may end while its runtime is still booting on
    the import thread (``warm_cdk8s``): an interpreter exit then would close the runtime's pipes
    under that thread, which reports it with a traceback.

    The cyclic garbage collector is off from here until the command has imported what it runs on
    (``imports_loaded``): what it imports here (the jsii bindings, aws-cdk-lib's, most of pydantic)
    makes 90,000 to 175,000 objects that live as long as the process, and each collection on the
    way examines all of them again and frees next to nothing. (A command's own module-level imports
    come before it, with the collector on.)"""
    global _collection_paused
    gc.disable()
    _collection_paused = True
    try:
        code = main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    exit_now(code)


def imports_loaded() -> None:
    """In a command's process (``run_command``): the garbage collector runs from here on, over what
    the command makes next; what the imports made is left out of every collection (``gc.freeze``).
    Elsewhere (a test calling a command's ``main``) nothing changes."""
    global _collection_paused
    if _collection_paused:
        _collection_paused = False
        gc.freeze()
        gc.enable()


def exit_now(code: int) -> None:
    """Exit once output is flushed and the jsii runtime has stopped, without the interpreter's teardown.

    A graceful interpreter exit spends a noticeable share of a short command on finalizing
    objects. ``os._exit`` skips that, but also skips jsii's ``atexit`` handler, which stops
    the Node.js process (its ``jsii-kernel-*`` folder goes with it) and removes the
    Python-side runtime folder (~2.2 MB): ``stop_jsii_runtime`` does exactly that part.
    Other ``atexit`` work is deliberately not run: a forked renderer would otherwise run
    its parent's finalizers and remove the parent's staging directory.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    for thread in _warming:  # a runtime still booting would be started after the stop below
        thread.join(WARM_JOIN_TIMEOUT_SECONDS)
    stop_jsii_runtime()
    os._exit(code)


def stop_jsii_runtime() -> None:
    """Stop this process's jsii Node.js runtime, if one was started, and remove its temp folders
    (also those of a kernel started early that no runtime adopted)."""
    process = _jsii_process()
    if process is not None:
        process.stop()
    from cli.jsii_runtime import stop_early_kernels

    stop_early_kernels()


def _jsii_process() -> Any:
    """The ``_NodeProcess`` jsii started in this process, or None (jsii keeps it in a memoized property)."""
    providers = sys.modules.get("jsii._kernel.providers.process")
    if providers is None:
        return None
    getter = providers.ProcessProvider._process.fget
    for cell in getter.__closure__ or ():
        stored = cell.cell_contents
        if isinstance(stored, list) and stored and isinstance(stored[0], providers._NodeProcess):
            return stored[0]
    return None
