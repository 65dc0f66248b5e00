"""A command's process: the cyclic collector paused while it imports (part ``gc-pause``), and the exit
of ``make synth``'s forked renderer (part ``parallel-synth``), which stops its jsii runtime itself.
Off, a command runs and exits as any Python program does."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import Any

from accelerator import does_not_apply, uses

_collection_paused = False


def run_command(main: Callable[[], int]) -> None:
    """Run a command's ``main`` and exit with its code, also when argparse ends it (``--help``, a usage
    error), through the interpreter's own exit once the background imports
    (``accelerator.runtime.import_in_background``) are done: a command that refuses its input may end
    while its runtime is still booting on the import thread, and an exit then would close the
    runtime's pipes under that thread, which reports it with a traceback. (An exit without the
    interpreter's teardown, ``exit_now``, bought 1% of ``make synth`` and 2% of the CPU of rendering
    2,000 runs: ``docs/accelerator.md``.)

    With part ``gc-pause``, the cyclic garbage collector is off from here until the command has
    imported what it runs on (``imports_loaded``): what it imports here (the jsii bindings,
    aws-cdk-lib's, most of pydantic) makes 90,000 to 175,000 objects that live as long as the
    process, and each collection on the way examines all of them again and frees next to nothing.
    (A command's own module-level imports come before it, with the collector on.)"""
    global _collection_paused
    if uses("gc-pause"):
        gc.disable()
        _collection_paused = True
    try:
        code = main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    from accelerator.runtime import join_background_imports

    sys.stdout.flush()
    join_background_imports()
    sys.exit(code)


def imports_loaded() -> None:
    """In a command's process (``run_command``, part ``gc-pause``): the garbage collector runs from here
    on, over what the command makes next; what the imports made is left out of every collection
    (``gc.freeze``). Elsewhere (a test calling a command's ``main``) nothing changes."""
    global _collection_paused
    if _collection_paused:
        _collection_paused = False
        gc.freeze()
        gc.enable()


def exit_now(code: int) -> None:
    """Exit once output is flushed and the jsii runtime has stopped, without the interpreter's teardown:
    the exit of ``make synth``'s forked renderer (``cli.synth``).

    ``os._exit`` skips jsii's ``atexit`` handler, which stops the Node.js process (its
    ``jsii-kernel-*`` folder goes with it) and removes the Python-side runtime folder (~2.2 MB):
    ``stop_jsii_runtime`` does exactly that part. Other ``atexit`` work is deliberately not run: the
    renderer would otherwise run its parent's finalizers and remove the parent's staging directory.
    In the command's own process, a jsii whose runtime cannot be found to stop gets the interpreter's
    own exit instead.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    from accelerator.runtime import join_background_imports

    join_background_imports()  # a runtime still booting would be started after the stop below
    if not stop_jsii_runtime() and os.getpid() == _command_pid:
        sys.exit(code)
    os._exit(code)


_command_pid = os.getpid()
"""The process that imported this module: the command's own (a forked renderer has another pid)."""


def stop_jsii_runtime() -> bool:
    """Stop this process's jsii Node.js runtime, if one was started, and remove its temp folders
    (also those of a kernel started early that no runtime adopted); False when jsii is imported but
    its runtime cannot be found where jsii keeps it (part ``parallel-synth`` does not apply)."""
    from accelerator.runtime import stop_early_kernels

    stop_early_kernels()
    process = _jsii_process()
    if process is False:
        return False
    if process is not None:
        process.stop()
    return True


def _jsii_process() -> Any:
    """The ``_NodeProcess`` jsii started in this process, None when there is none, or False when jsii's
    memoized property (``jsii._utils.memoized_property``: its closure holds a list of the one value)
    reads otherwise: the warning line, once."""
    providers = sys.modules.get("jsii._kernel.providers.process")
    if providers is None:
        return None
    prop = getattr(getattr(providers, "ProcessProvider", None), "_process", None)
    getter = getattr(prop, "fget", None)
    node_process = getattr(providers, "_NodeProcess", None)
    cells = [_contents(cell) for cell in getattr(getter, "__closure__", None) or ()]
    lists = [stored for stored in cells if isinstance(stored, list)]
    if not isinstance(node_process, type) or len(lists) != 1:
        from accelerator.runtime import jsii_release

        reason = "ProcessProvider._process keeps no single list of its runtime"
        does_not_apply("parallel-synth", f"jsii {jsii_release()}", reason)
        return False
    (stored,) = lists
    return stored[0] if stored and isinstance(stored[0], node_process) else None


def _contents(cell: Any) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None
