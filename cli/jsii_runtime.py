"""Commands take the jsii runtime's fast path: no per-argument type checks, direct struct reads,
and a direct channel to the kernel (``use_direct_channel``, at the end).

Generated jsii bindings check every argument of every construct and struct with typeguard
before the call reaches Node.js, resolving each stub's stringized annotations first. Sending
a struct to Node.js then reads each field through its generated property, which evaluates a
``typing.cast`` target such as ``typing.Optional[typing.List["X"]]`` on every read. The fast
path skips the checks and reads the values the struct stores (for ``dev``, 435,000 Python
function calls to render instead of 735,000).

The code calling the bindings is type-checked (``mypy --strict`` with the aws_cdk, cdk8s
and cdk8s-plus-37 stubs); the test suite, which builds every shipped environment
in-process, keeps jsii's own path, and the output is byte-identical either way
(``make freshness``, ``tests/test_cli.py`` and ``tests/test_jsii_fast_path.py`` compare them).
"""

from __future__ import annotations

import atexit
import os
import platform
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


class _NoHints(dict[str, Any]):
    """The hints of a stub whose checks are skipped: every argument's expected type is unused."""

    def __missing__(self, _: str) -> None:
        return None


class _UnresolvedHintsCache(dict[Any, Any]):
    """Stands in for jsii's memo of resolved stub annotations: nothing is ever resolved."""

    def get(self, *_: Any) -> _NoHints:  # type: ignore[override]
        return _NO_HINTS


_NO_HINTS = _NoHints()


def skip_argument_type_checks() -> None:
    """Take the fast path for this process; each part is left out when jsii has no such hook."""
    from jsii import _kernel, _type_checking

    if hasattr(_type_checking, "_resolved_check"):

        def unchecked(**_: Any) -> None:
            return None

        _type_checking._resolved_check = unchecked
    if isinstance(getattr(_type_checking, "_type_hints_cache", None), dict):
        _type_checking._type_hints_cache = _UnresolvedHintsCache()
    reference = getattr(_kernel, "_make_reference_for_native", None)
    if reference is not None and not getattr(reference, "reads_struct_values", False):
        _kernel._make_reference_for_native = _struct_values_first(reference)


_HOOKS = (
    ("_type_checking", "_resolved_check"),
    ("_type_checking", "_type_hints_cache"),
    ("_kernel", "_make_reference_for_native"),
)
"""What ``skip_argument_type_checks`` replaces, as (jsii module, attribute)."""


@contextmanager
def fast_path() -> Iterator[None]:
    """The fast path for the duration of a block, then jsii's own path again (for tests that only
    need the output, in a process whose other tests keep the checks)."""
    from jsii import _kernel, _type_checking

    modules = {"_type_checking": _type_checking, "_kernel": _kernel}
    saved = {(module, name): vars(modules[module]).get(name) for module, name in _HOOKS}
    skip_argument_type_checks()
    try:
        yield
    finally:
        for (module, name), value in saved.items():
            setattr(modules[module], name, value)


def _struct_values_first(reference: Any) -> Any:
    """jsii's ``_make_reference_for_native``, reading a struct's stored values instead of its properties.

    A generated struct keeps its fields in ``_values`` under their Python names and each property
    returns ``self._values.get(name)``; a required field cannot be absent (its constructor argument
    has no default). Everything that is not such a struct goes to jsii's own function, whose
    recursion comes back here through the module global.
    """

    def make_reference(kernel: Any, value: Any) -> Any:
        mapping = getattr(type(value), "__jsii_name_mapping__", None)
        stored = getattr(value, "_values", None)
        if mapping is None or not isinstance(stored, dict) or getattr(value, "__jsii_type__", None) is None:
            return reference(kernel, value)
        return {
            "$jsii.struct": {
                "fqn": value.__jsii_type__,
                "data": {jsii: make_reference(kernel, stored.get(python)) for python, jsii in mapping.items()},
            }
        }

    make_reference.reads_struct_values = True  # type: ignore[attr-defined]
    return make_reference


DIRECT_CHANNEL = Path(__file__).with_name("jsii_direct_channel.js")


def use_direct_channel() -> None:
    """Start jsii's Node.js kernel without jsii's relay process in between; call before the jsii
    runtime starts (a runtime already running keeps its channel).

    jsii's launcher starts a second Node.js process that relays every request and response between
    the Python pipes and the kernel's fd 3: two more context switches per call. Here Node.js runs
    the kernel itself through ``jsii_direct_channel.js``, and the API travels over a socket pair
    whose Node.js end stands in for the kernel's fd 3. Standard output and error stay plain pipes,
    copied to this process's as they arrive, so nothing the JavaScript side or a child process of
    it prints can reach the API stream. ``--preserve-symlinks`` is the flag the launcher gives the
    kernel: with it, jsii links each cached package folder instead of hard-linking every file of
    aws-cdk-lib into its working folder. Left out with the relay: its warning about Node.js releases
    jsii has not been tested with, and its forwarding of signals (Node.js receives them itself).
    A ``JSII_RUNTIME`` set when the runtime starts is started by jsii itself, as it would be anyway.
    """
    from jsii._kernel.providers import process as providers

    own_start: Callable[[Any], None] = providers._NodeProcess.start
    if getattr(own_start, "direct_channel", False):
        return

    def start(self: Any) -> None:  # jsii's ``_NodeProcess.start`` (1.142.0) with the kernel started directly
        environ = os.environ.copy()
        if "JSII_RUNTIME" in environ:
            own_start(self)
            return
        environ["JSII_AGENT"] = f"Python/{platform.python_version()}"
        launcher = Path(self._jsii_runtime())  # <unpacked runtime>/bin/jsii-runtime.js, removed on stop
        kernel = launcher.parent.parent / "lib" / "program.js"
        if not kernel.is_file():  # another layout than the pinned jsii's: its own launcher knows it
            own_start(self)
            return
        api, kernel_end = socket.socketpair()
        with api, kernel_end:
            self._process = subprocess.Popen(
                [
                    environ.get("JSII_NODE", "node"),
                    "--max-old-space-size=4069",
                    "--preserve-symlinks",
                    str(DIRECT_CHANNEL),
                    str(kernel),
                    str(kernel_end.fileno()),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=environ,
                pass_fds=(kernel_end.fileno(),),
            )
            console = self._process.stdout
            # jsii writes requests to ``stdin`` and reads responses from ``stdout``: both are the socket.
            self._process.stdin, self._process.stdout = api.makefile("wb"), api.makefile("rb")
        threading.Thread(name="jsii.stdout", target=_copy_lines, args=(console, "stdout"), daemon=True).start()
        self.sink_thread = threading.Thread(
            name="jsii.stderr", target=_copy_lines, args=(self._process.stderr, "stderr"), daemon=True
        )
        self.sink_thread.start()
        atexit.register(self.stop)
        self.handshake()

    start.direct_channel = True  # type: ignore[attr-defined]
    setattr(providers._NodeProcess, "start", start)  # noqa: B010 - mypy refuses assigning to a method


def _copy_lines(source: IO[bytes], stream: str) -> None:
    """Copy the kernel's ``stdout`` or ``stderr`` to this process's (whatever ``sys`` holds at the time)."""
    with source:
        for line in iter(source.readline, b""):
            target = getattr(sys, stream)
            binary = getattr(target, "buffer", None)
            if binary is not None:
                binary.write(line)
            else:
                target.write(line.decode("utf-8", "replace"))
            target.flush()
