"""The accelerator's jsii runtime parts: the fast path (no per-argument type checks, direct struct
reads: ``skip_argument_type_checks``), the early kernel (``start_kernel_early``), the direct channel
to the kernel (``use_direct_channel``) and what runs in that kernel (the V8 code cache, the kernel
rewrites). Each runs only while ``accelerator.uses`` its part.

Generated jsii bindings check every argument of every construct and struct with typeguard
before the call reaches Node.js, resolving each stub's stringized annotations first. Sending
a struct to Node.js then reads each field through its generated property, which evaluates a
``typing.cast`` target such as ``typing.Optional[typing.List["X"]]`` on every read. The fast
path skips the checks and reads the values the struct stores (for ``dev``, 435,000 Python
function calls to render instead of 735,000).

The code calling the bindings is type-checked (``mypy --strict`` with the aws_cdk, cdk8s
and cdk8s-plus-37 stubs); the test suite, which builds every shipped environment
in-process, keeps jsii's own path, and the output is byte-identical either way
(``make freshness``, ``tests/cli/test_synth_command.py`` and ``tests/accelerator/test_fast_path.py`` compare them).

A part whose private jsii internals are not what it was written for (``JSII_RELEASE``, the hooks'
targets, the kernel bundle's statements, a struct's fields) reports so in one line and runs the
stock way (``accelerator.does_not_apply``).
"""

from __future__ import annotations

import ast
import atexit
import functools
import hashlib
import importlib.util
import io
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

from accelerator import does_not_apply, uses

JSII_RELEASE = "1.142.0"
"""The jsii release the direct channel's ``start``, the early kernel's runtime layout and the renderer's
stop of jsii's runtime (``pause_gc_and_exit``) were written against; another release runs them stock."""


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
    """Take the fast path for this process (part ``fast-path``); when jsii lacks one of its hooks
    (``_HOOKS``), none is replaced."""
    if not uses("fast-path"):
        return
    try:
        from jsii import _kernel, _type_checking
    except ImportError as error:
        does_not_apply("fast-path", f"jsii {jsii_release()}", f"{error.name} is missing")
        return
    reference = getattr(_kernel, "_make_reference_for_native", None)
    if getattr(reference, "reads_struct_values", False):
        return
    missing = [
        f"jsii.{module}.{name}"
        for module, name in _HOOKS
        if not hasattr({"_type_checking": _type_checking, "_kernel": _kernel}[module], name)
    ]
    reason = f"{', '.join(missing)} missing" if missing else None
    if reason is None and not isinstance(_type_checking._type_hints_cache, dict):
        reason = "jsii._type_checking._type_hints_cache is not a dict"
    if reason is None and not callable(reference):
        reason = "jsii._kernel._make_reference_for_native is not a function"
    if reason is not None:
        does_not_apply("fast-path", f"jsii {jsii_release()}", reason)
        return
    stock = {name: getattr(_type_checking, name) for name in ("_resolved_check", "_type_hints_cache")}

    def unchecked(**_: Any) -> None:
        return None

    def restore() -> None:  # a struct the fast path cannot read: jsii's own path again, checks included
        for name, value in stock.items():
            setattr(_type_checking, name, value)
        setattr(_kernel, "_make_reference_for_native", reference)  # noqa: B010 - its own function again

    _type_checking._resolved_check = unchecked
    _type_checking._type_hints_cache = _UnresolvedHintsCache()
    _kernel._make_reference_for_native = _struct_values_first(reference, restore)


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
    saved = {
        (module, name): vars(modules[module]).get(name) for module, name in _HOOKS if hasattr(modules[module], name)
    }
    skip_argument_type_checks()
    try:
        yield
    finally:
        for (module, name), value in saved.items():
            setattr(modules[module], name, value)


def _struct_values_first(reference: Any, restore: Callable[[], None] = lambda: None) -> Any:
    """jsii's ``_make_reference_for_native``, reading a struct's stored values instead of its properties.

    A generated struct keeps its fields in ``_values`` under their Python names and each property
    returns ``self._values.get(name)``; a required field cannot be absent (its constructor argument
    has no default). Everything that is not such a struct goes to jsii's own function, whose
    recursion comes back here through the module global. A struct whose stored values name a field
    its ``__jsii_name_mapping__`` lacks, or whose class has no property for a mapped field, would
    lose fields here: it goes to jsii's function, and ``restore`` puts jsii's own path back.
    """
    layouts: dict[type, bool] = {}

    def make_reference(kernel: Any, value: Any) -> Any:
        mapping = getattr(type(value), "__jsii_name_mapping__", None)
        stored = getattr(value, "_values", None)
        if mapping is None or not isinstance(stored, dict) or getattr(value, "__jsii_type__", None) is None:
            return reference(kernel, value)
        if not (stored.keys() <= mapping.keys() and _struct_layout(layouts, type(value), mapping)):
            unmapped = sorted(set(stored) - set(mapping)) or sorted(set(mapping) - set(_properties_of(type(value))))
            does_not_apply("fast-path", f"struct {value.__jsii_type__}", f"fields {', '.join(unmapped)} not as read")
            restore()
            return reference(kernel, value)
        return {
            "$jsii.struct": {
                "fqn": value.__jsii_type__,
                "data": {jsii: make_reference(kernel, stored.get(python)) for python, jsii in mapping.items()},
            }
        }

    make_reference.reads_struct_values = True  # type: ignore[attr-defined]
    return make_reference


def _properties_of(cls: type) -> set[str]:
    """The properties of a struct class (its own and its bases')."""
    return {name for klass in cls.__mro__ for name, member in vars(klass).items() if isinstance(member, property)}


def _struct_layout(layouts: dict[type, bool], cls: type, mapping: Mapping[str, str]) -> bool:
    """Whether every field of ``cls``'s name mapping is a property of it (checked once per class)."""
    known = layouts.get(cls)
    if known is None:
        known = layouts[cls] = mapping.keys() <= _properties_of(cls)
    return known


def jsii_release() -> str:
    """The installed jsii's release (``jsii/_metadata.json``), read without importing jsii; ``unknown``."""
    return _jsii_release()


@functools.cache
def _jsii_release() -> str:
    package = _module_dir("jsii")
    try:
        release = json.loads((package / "_metadata.json").read_text(encoding="utf-8"))["version"] if package else None
    except (OSError, ValueError, KeyError, TypeError):
        release = None
    return release if isinstance(release, str) else "unknown"


def pinned_release(part: str) -> bool:
    """Whether the installed jsii is ``JSII_RELEASE``, for a part written against its internals; else
    the part's warning, and False."""
    if jsii_release() == JSII_RELEASE:
        return True
    does_not_apply(part, f"jsii {jsii_release()}", f"it is written against jsii {JSII_RELEASE}'s internals")
    return False


DIRECT_CHANNEL = Path(__file__).with_name("direct_channel.js")
KERNEL_REWRITES = Path(__file__).with_name("kernel_rewrites.json")


@dataclass
class _Kernel:
    """A kernel process on the direct channel, and the threads copying what it prints once started
    (``copy_output``: an early kernel's start when it is adopted or stopped, so that a process can
    fork beside it with no thread running)."""

    process: subprocess.Popen[bytes]
    api: socket.socket
    environ: dict[str, str]
    """The environment it started with (``JSII_AGENT`` added)."""
    workdir: tempfile.TemporaryDirectory[str] | None = None
    """The runtime files an early kernel runs from (jsii removes its own copy when it stops)."""
    preloaded: list[str] = field(default_factory=list)
    """The assemblies whose load requests were sent before the runtime started, in order; their
    responses follow the kernel's greeting (``start_kernel_early``)."""
    owner_pid: int = field(default_factory=os.getpid)
    copies: tuple[threading.Thread, ...] = ()
    output: tuple[IO[bytes], IO[bytes]] = field(init=False)
    """Its ``stdout`` and ``stderr`` pipes (the runtime replaces ``process.stdout`` with the API socket)."""

    def __post_init__(self) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        self.output = (self.process.stdout, self.process.stderr)

    def copy_output(self) -> threading.Thread:
        """Start copying the kernel's ``stdout`` and ``stderr`` to this process's (once); the ``stderr`` copy."""
        if not self.copies:
            self.copies = tuple(
                threading.Thread(name=f"jsii.{stream}", target=_copy_lines, args=(source, stream), daemon=True)
                for source, stream in zip(self.output, ("stdout", "stderr"), strict=True)
            )
            for copy in self.copies:
                copy.start()
        return self.copies[-1]


_early_kernels: list[_Kernel] = []
_early_lock = threading.Lock()


def start_kernel_early(preload: Sequence[str] = ()) -> None:
    """Start the kernel on the direct channel now, before jsii is imported; the runtime adopts it when
    it starts (``use_direct_channel``).

    The kernel takes ~0.2 s from spawn to its first message, most of it Node.js starting and loading
    the runtime; here that overlaps with importing jsii and the configuration instead of following
    them. Nothing happens once jsii is imported (its runtime may be running already), when
    ``JSII_RUNTIME`` is set, or when jsii's runtime files are not where the pinned jsii keeps them
    (the runtime then starts as ``use_direct_channel`` says). A kernel never adopted is stopped at
    exit (``stop_early_kernels``); a forked child neither adopts nor stops its parent's, and starts
    its own. No thread runs beside it until it is adopted or stopped (``_Kernel.copy_output``).

    ``preload``: the jsii packages the process will import. Their assemblies' ``load`` requests
    (``assembly_loads``) are sent to the kernel, so it loads them (~0.2 s for cdk8s-plus-37 and its
    dependencies, ~0.45 s for the stacks' seven) as soon as it is up, while this process is still
    importing; jsii's own load of each is answered with the kernel's answer to its preload, read
    when that load comes (``_PreloadAnswers``): a failed preload is that load's failure, with the
    kernel's own message. Called again before the runtime starts, it sends the loads not sent yet
    to this process's early kernel: a command can start Node.js before it knows that its input is
    good, and send the loads once it does.
    """
    if not uses("early-kernel") or "jsii" in sys.modules or "JSII_RUNTIME" in os.environ:
        return
    if not (pinned_release("direct-channel") and pinned_release("early-kernel")):
        return
    loads = assembly_loads(preload)  # read before anything starts, so nothing is left running if it fails
    kernel = _own_early_kernel()
    if kernel is None:
        kernel = _spawn_early_kernel()
        if kernel is None:
            return
    unsent = [load for load in loads if load["name"] not in kernel.preloaded]
    try:
        kernel.api.sendall(b"".join(json.dumps(load).encode() + b"\n" for load in unsent))
    except OSError:  # it ended already: stopped now, and the runtime starts its own
        with _early_lock:
            _early_kernels.remove(kernel)
        _stop_kernel(kernel)
        return
    kernel.preloaded += [load["name"] for load in unsent]


def _own_early_kernel() -> _Kernel | None:
    with _early_lock:
        return next((k for k in _early_kernels if k.owner_pid == os.getpid()), None)


def _spawn_early_kernel() -> _Kernel | None:
    """A kernel from a copy of jsii's runtime files, laid out as jsii lays them out, or None when
    they or Node.js are missing (the runtime's own start then says so when it is used).

    With the code cache on, the copy is one folder per jsii release in the cache
    (``_shared_program``): V8's cached code names the file it was compiled from, and aws-cdk-lib
    tells jsii's frames from its own by that folder, so it must be the same in every process.
    """
    workdir: tempfile.TemporaryDirectory[str] | None = None
    try:
        if (program := _shared_program()) is None:
            if (contents := _runtime_contents()) is None:
                does_not_apply(
                    "early-kernel", f"jsii {jsii_release()}", "its runtime files are not where it keeps them"
                )
                return None
            workdir = tempfile.TemporaryDirectory(prefix="jsii-runtime-")
            program = _write_runtime(contents, Path(workdir.name))
        kernel = _spawn_kernel(program, copy_output=False)
    except OSError:
        if workdir is not None:
            workdir.cleanup()
        return None
    kernel.workdir = workdir
    with _early_lock:
        _early_kernels.append(kernel)
    atexit.register(stop_early_kernels)
    return kernel


def _runtime_contents() -> dict[str, bytes] | None:
    """jsii's runtime files by the path jsii lays each out at (``_NodeProcess._jsii_runtime``)."""
    files = _embedded_runtime_files()
    if files is None:
        return None
    try:
        return {relative: source.read_bytes() for source, relative in sorted(files.items(), key=lambda f: f[1])}
    except OSError:
        return None


def _write_runtime(contents: Mapping[str, bytes], root: Path, *, sync: bool = False) -> Path:
    """Write the runtime files under ``root`` (``sync``: to disk before returning); its ``lib/program.js``."""
    for relative, data in contents.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as file:
            file.write(data)
            if sync:
                os.fsync(file.fileno())
    return root / "lib" / "program.js"


def _shared_program() -> Path | None:
    """``lib/program.js`` in the folder per jsii release in the code cache, or None when the cache is
    off or the folder cannot be written (found once per process, and inherited by a forked one)."""
    cache = code_cache_dir(_kernel_environment())
    return None if cache is None or not uses("code-cache") else _shared_runtime(cache)


STAGING_KEPT_SECONDS = 3600
"""A staging folder this much older is one a killed process left."""
UNUSED_RUNTIME_KEPT_SECONDS = 7 * 24 * 3600
"""A runtime folder no process started a kernel from for this long is an earlier jsii release's."""


@functools.cache
def _shared_runtime(parent: Path) -> Path | None:
    """``parent/jsii-runtime-<digest of the files' contents>/lib/program.js``, written once (synced,
    under a temporary name, then renamed, so no process sees it half written) and never changed;
    None when it cannot be written. Each use marks the folder (its modification time), and other
    releases' folders unused for a week go then, with staging folders a killed process left."""
    contents = _runtime_contents()
    if contents is None:
        return None
    digest = hashlib.sha1()
    for relative, data in contents.items():
        digest.update(f"{relative}\0{len(data)}\0".encode() + data)
    root = parent / f"jsii-runtime-{digest.hexdigest()[:16]}"
    program = root / "lib" / "program.js"
    _remove_stale_runtimes(parent, keep=root)
    if program.is_file():
        with suppress(OSError):
            os.utime(root)
        return program
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".jsii-runtime-", dir=parent))
    except OSError:
        return None
    try:
        _write_runtime(contents, staging, sync=True)
        staging.rename(root)
    except OSError:  # another process put it in place first, or the folder is not writable
        shutil.rmtree(staging, ignore_errors=True)
    return program if program.is_file() else None


def _remove_stale_runtimes(parent: Path, *, keep: Path) -> None:
    """Remove staging folders and other releases' runtime folders left unused (a few MB each)."""
    now = time.time()
    for pattern, kept_seconds in (
        (".jsii-runtime-*", STAGING_KEPT_SECONDS),
        ("jsii-runtime-*", UNUSED_RUNTIME_KEPT_SECONDS),
    ):
        for folder in parent.glob(pattern):
            with suppress(OSError):
                if folder != keep and now - folder.stat().st_mtime > kept_seconds:
                    shutil.rmtree(folder, ignore_errors=True)


def stop_early_kernels() -> None:
    """Stop this process's kernels that no runtime adopted, and remove their runtime files."""
    with _early_lock:
        kernels = [k for k in _early_kernels if k.owner_pid == os.getpid()]
        _early_kernels[:] = [k for k in _early_kernels if k not in kernels]
    for kernel in kernels:
        _stop_kernel(kernel)


def _stop_kernel(kernel: _Kernel) -> None:
    """Stop a kernel no runtime uses, and remove its runtime files."""
    kernel.copy_output()  # first: a kernel blocked on a full output pipe would never read the exit
    with kernel.api, suppress(OSError):  # OSError: it has ended already
        kernel.api.settimeout(5)
        kernel.api.sendall(b'{"exit":0}\n')
        kernel.api.shutdown(socket.SHUT_WR)
        while kernel.api.recv(65536):  # its greeting, read until it closes the socket as it exits; a
            pass  # socket closed before it greeted would fail that write and print the error
    try:
        kernel.process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        kernel.process.kill()
        kernel.process.wait()
    for copy in kernel.copies:
        copy.join(timeout=5)
    if kernel.workdir is not None:
        kernel.workdir.cleanup()


def _adopt_early_kernel() -> _Kernel | None:
    """This process's early kernel, if it still runs with the environment the runtime would give it
    (Node.js reads variables such as ``CDK_CONTEXT_JSON`` from its own environment)."""
    expected = _kernel_environment()
    with _early_lock:
        for kernel in _early_kernels:
            if kernel.owner_pid == os.getpid() and kernel.process.poll() is None and kernel.environ == expected:
                _early_kernels.remove(kernel)
                return kernel
    return None


def _kernel_environment() -> dict[str, str]:
    return os.environ | {"JSII_AGENT": f"Python/{platform.python_version()}"}


def _embedded_runtime_files() -> dict[Path, str] | None:
    """jsii's runtime files (``jsii._embedded.jsii.EMBEDDED_FILES``), read without importing jsii."""
    embedded = _module_dir("jsii._embedded.jsii")
    if embedded is None:
        return None
    try:
        module = ast.parse((embedded / "__init__.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return None
    for statement in module.body:
        if (
            isinstance(statement, ast.Assign)
            and [getattr(t, "id", None) for t in statement.targets] == ["EMBEDDED_FILES"]
            and isinstance(files := _literal(statement.value), dict)
        ):
            if "lib/program.js" not in files.values():
                return None
            return {embedded / name: relative for name, relative in files.items()}
    return None


def assembly_loads(modules: Sequence[str]) -> list[dict[str, str]]:
    """The ``load`` requests importing ``modules`` sends jsii's kernel, in the order it sends them.

    Each jsii package's ``<module>/_jsii/__init__.py`` imports its dependencies' ``_jsii`` packages,
    then loads its own assembly (``jsii.JSIIAssembly.load(name, version, module, tarball)``); read
    here without importing anything. A module whose files do not read that way is left out.
    """
    loads: dict[str, dict[str, str]] = {}

    def visit(module: str) -> None:
        package = _module_dir(module)
        if package is None:
            return
        jsii_dir = package / "_jsii"
        try:
            tree = ast.parse((jsii_dir / "__init__.py").read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError, RecursionError):  # ValueError: not UTF-8, or a NUL byte
            return
        for statement in tree.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.name.endswith("._jsii"):
                        visit(alias.name.removesuffix("._jsii"))
            elif (load := _assembly_load(statement)) is not None and load[0] not in loads:
                name, version, tarball = load
                loads[name] = {"api": "load", "name": name, "version": version, "tarball": str(jsii_dir / tarball)}

    for module in modules:
        visit(module)
    return list(loads.values())


def _assembly_load(statement: ast.stmt) -> tuple[str, str, str] | None:
    """``(name, version, tarball)`` of a ``__jsii_assembly__ = jsii.JSIIAssembly.load(...)`` statement."""
    if not (isinstance(statement, ast.Assign) and isinstance(call := statement.value, ast.Call)):
        return None
    if ast.unparse(call.func) != "jsii.JSIIAssembly.load" or len(call.args) != 4:
        return None
    name, version, tarball = (_literal(call.args[i]) for i in (0, 1, 3))  # the third is the module's name
    if isinstance(name, str) and isinstance(version, str) and isinstance(tarball, str):
        return name, version, tarball
    return None


def _module_dir(module: str) -> Path | None:
    """The folder of package ``module``, found without importing it or its parents."""
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):  # ValueError: imported already, without a spec
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)), *rest)


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, RecursionError, MemoryError):  # not a literal
        return None


CODE_CACHE_ENV = "GPU_PLATFORM_JSII_CODE_CACHE"


def code_cache_dir(environ: Mapping[str, str]) -> Path | None:
    """Where the kernel keeps its V8 code cache (``code_cache.js``): ``$GPU_PLATFORM_JSII_CODE_CACHE``
    when set (``off``, ``0``, ``false`` or ``no``: no cache), else ``gpu-platform/jsii-code-cache`` in the
    user's cache directory (``$XDG_CACHE_HOME``, default ``~/.cache``), beside jsii's own package cache
    (``aws/jsii``); None when there is no home directory to put it in."""
    setting = environ.get(CODE_CACHE_ENV, "")
    if setting.lower() in ("off", "0", "false", "no"):
        return None
    if setting:
        return Path(setting)
    base = environ.get("XDG_CACHE_HOME") or (f"{home}/.cache" if (home := _home(environ)) else "")
    return Path(base) / "gpu-platform" / "jsii-code-cache" if base else None


def _home(environ: Mapping[str, str]) -> str | None:
    if environ.get("HOME"):
        return environ["HOME"]
    try:
        return str(Path.home())  # the user database's entry
    except (RuntimeError, KeyError):  # an arbitrary uid in a container has none
        return None


def _spawn_kernel(program: Path, *, copy_output: bool = True) -> _Kernel:
    """Run jsii's kernel ``program`` (``<runtime>/lib/program.js``) in Node.js on the direct channel
    (``copy_output``: start copying what it prints now)."""
    environ = _kernel_environment()
    cache = code_cache_dir(environ) if uses("code-cache") else None
    options = [
        *([f"--code-cache={cache}"] if cache is not None else []),
        *(["--rewrites"] if _rewrites_apply(program) else []),
    ]
    api, kernel_end = socket.socketpair()
    with kernel_end, _closed_on_error(api):
        process = subprocess.Popen(
            [
                environ.get("JSII_NODE", "node"),
                "--max-old-space-size=4069",
                "--preserve-symlinks",
                str(DIRECT_CHANNEL),
                str(program),
                str(kernel_end.fileno()),
                *options,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ,
            pass_fds=(kernel_end.fileno(),),
        )
    kernel = _Kernel(process, api, environ=environ)
    if copy_output:
        kernel.copy_output()
    return kernel


def kernel_rewrites() -> list[dict[str, str]]:
    """The kernel bundle's statements ``kernel_rewrites.js`` rewrites, as jsii ships each and rewritten."""
    rewrites: list[dict[str, str]] = json.loads(KERNEL_REWRITES.read_text(encoding="utf-8"))
    return rewrites


def _rewrites_apply(program: Path) -> bool:
    """Whether the kernel ``program`` compiles with its statements rewritten (part ``kernel-rewrites``):
    each rewritten statement is in the bundle exactly once; else the part's warning."""
    if not uses("kernel-rewrites"):
        return False
    try:
        text = program.read_text(encoding="utf-8")
    except (OSError, ValueError) as error:
        does_not_apply("kernel-rewrites", str(program), f"unreadable: {error}")
        return False
    return rewrites_apply_to(text, f"jsii {jsii_release()}'s kernel bundle")


def rewrites_apply_to(text: str, what: str) -> bool:
    """Whether every rewritten statement occurs exactly once in the kernel bundle ``text``; else the warning."""
    for number, rewrite in enumerate(kernel_rewrites(), start=1):
        if (found := text.count(rewrite["shipped"])) != 1:
            reason = f"rewrite {number} ({rewrite['name']}): its statement occurs {found} times, not once"
            does_not_apply("kernel-rewrites", what, reason)
            return False
    return True


@contextmanager
def _closed_on_error(api: socket.socket) -> Iterator[None]:
    try:
        yield
    except BaseException:
        api.close()
        raise


def use_direct_channel() -> None:
    """Start jsii's Node.js kernel without jsii's relay process in between; call before the jsii
    runtime starts (a runtime already running keeps its channel).

    jsii's launcher starts a second Node.js process that relays every request and response between
    the Python pipes and the kernel's fd 3: two more context switches per call. Here Node.js runs
    the kernel itself through ``direct_channel.js``, and the API travels over a socket pair
    whose Node.js end stands in for the kernel's fd 3. Standard output and error stay plain pipes,
    copied to this process's as they arrive, so nothing the JavaScript side or a child process of
    it prints can reach the API stream. ``--preserve-symlinks`` is the flag the launcher gives the
    kernel: with it, jsii links each cached package folder instead of hard-linking every file of
    aws-cdk-lib into its working folder. Left out with the relay: its warning about Node.js releases
    jsii has not been tested with, and its forwarding of signals (Node.js receives them itself).
    A kernel ``start_kernel_early`` started is adopted. A ``JSII_RUNTIME`` set when the runtime
    starts is started by jsii itself, as it would be anyway.
    """
    if not uses("direct-channel") or not pinned_release("direct-channel"):
        return
    from jsii._kernel.providers import process as providers

    node_process = getattr(providers, "_NodeProcess", None)
    missing = [
        name
        for name in ("start", "send", "_next_message", "_jsii_runtime", "handshake")
        if not hasattr(node_process, name)
    ]
    if missing:
        does_not_apply("direct-channel", f"jsii {jsii_release()}", f"_NodeProcess lacks {', '.join(missing)}")
        stop_early_kernels()
        return
    own_start: Callable[[Any], None] = providers._NodeProcess.start
    if getattr(own_start, "direct_channel", False):
        return

    def start(self: Any) -> None:  # jsii's ``_NodeProcess.start`` (1.142.0) with the kernel started directly
        kernel = _adopt_early_kernel()  # never one when JSII_RUNTIME was set since: its environment differs
        if kernel is None:
            if "JSII_RUNTIME" in os.environ:
                own_start(self)
                return
            # The cache's runtime folder (the cached code names it), else jsii's own unpacked copy (removed on stop).
            program = _shared_program() or Path(self._jsii_runtime()).parent.parent / "lib" / "program.js"
            if not program.is_file():  # another layout than the pinned jsii's: its own launcher knows it
                does_not_apply("direct-channel", f"jsii {jsii_release()}", f"its runtime has no {program}")
                own_start(self)
                return
            kernel = _spawn_kernel(program)
        elif kernel.workdir is not None:
            self._ctx_stack.enter_context(kernel.workdir)  # removed when the runtime stops, as jsii's own copy
        self._process = kernel.process
        with kernel.api:
            # jsii writes requests to ``stdin`` and reads responses from ``stdout``: both are the socket.
            self._process.stdin, self._process.stdout = kernel.api.makefile("wb"), kernel.api.makefile("rb")
        self.sink_thread = kernel.copy_output()
        atexit.register(self.stop)
        self.handshake()
        self._preload_answers = _PreloadAnswers(deque(kernel.preloaded))

    own_send: Callable[[Any, Any, Any], Any] = providers._NodeProcess.send

    def send(self: Any, request: Any, response_type: Any) -> Any:  # jsii's ``_NodeProcess.send``, answers read ahead
        answers: _PreloadAnswers | None = self.__dict__.get("_preload_answers")
        answer = answers.answer(request, self._process.stdout) if answers is not None else None
        if answer is None:
            return own_send(self, request, response_type)
        return own_send(_Answered(self, answer), request, response_type)

    class _Answered:
        """Stands in for jsii's ``_NodeProcess`` in its own ``send`` when the kernel has answered the
        request already: nothing is written, and the answer is the message read."""

        _next_message = providers._NodeProcess._next_message

        def __init__(self, process: Any, answer: bytes) -> None:
            self._serializer = process._serializer
            self._process = SimpleNamespace(stdin=io.BytesIO(), stdout=io.BytesIO(answer))

    start.direct_channel = True  # type: ignore[attr-defined]
    setattr(providers._NodeProcess, "start", start)  # noqa: B010 - mypy refuses assigning to a method
    setattr(providers._NodeProcess, "send", send)  # noqa: B010


@dataclass
class _PreloadAnswers:
    """The early kernel's answers to the loads it was sent before the runtime started (one line each,
    after its greeting, in order).

    jsii's own load of a preloaded assembly is not sent again: the kernel's answer to the preload is
    that load's answer, read when the load comes. So the process goes on as soon as the assemblies
    it needs first are loaded, while the kernel loads the rest (the synthesis imports aws-cdk-lib's
    Python modules while the kernel loads the kubectl layer and cdk-nag). A failed preload is that
    load's failure, with the kernel's own message. Any other request is answered after every
    preload, so those answers are read (and kept) first.
    """

    pending: deque[str]
    read: dict[str, bytes] = field(default_factory=dict)

    def answer(self, request: object, stream: IO[bytes]) -> bytes | None:
        """The answer already given to ``request``, or None when it has to be sent."""
        from jsii._kernel.types import LoadRequest

        name = request.name if isinstance(request, LoadRequest) else None
        if name in self.read:
            return self.read.pop(name)
        while self.pending:
            pending = self.pending.popleft()
            line = stream.readline()
            if pending == name:
                return line
            self.read[pending] = line
        return None


_background_imports: list[threading.Thread] = []


def import_in_background(modules: Sequence[str], *, fast_path: bool = False) -> None:
    """The commands' runtime (``start_command_runtime``), then ``modules`` (jsii packages) imported on a
    background thread, once per process (part ``early-kernel``); ``join_background_imports`` waits.

    The kernel starts first, before jsii is imported, and loads their assemblies while this process
    imports jsii, pydantic and the configuration; the runtime adopts it on the direct channel. The
    import's own Python work overlaps with the main thread's too. ``fast_path``: the commands' fast
    path as well, for a command's own process; a test process calling a command's ``main`` keeps
    jsii's checks.
    """
    start_command_runtime(modules, fast_path=fast_path)
    if _background_imports or not uses("early-kernel"):
        return
    thread = threading.Thread(target=lambda: [importlib.import_module(m) for m in modules], daemon=True)
    thread.start()
    _background_imports.append(thread)


BACKGROUND_JOIN_TIMEOUT_SECONDS = 60.0


def join_background_imports() -> None:
    """Wait for ``import_in_background``'s thread: a runtime still booting there would start after a stop."""
    for thread in _background_imports:
        thread.join(BACKGROUND_JOIN_TIMEOUT_SECONDS)


def start_command_runtime(preload: Sequence[str] = (), *, fast_path: bool = True) -> None:
    """The commands' jsii runtime, for a process that has not imported jsii yet: its kernel starts now
    (``start_kernel_early``), on the direct channel (``use_direct_channel``), with the fast path
    (``skip_argument_type_checks``) unless ``fast_path`` is false (a test process keeps jsii's checks)."""
    start_kernel_early(preload)
    use_direct_channel()
    if fast_path:
        skip_argument_type_checks()


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
