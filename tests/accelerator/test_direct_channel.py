"""The commands' channel to jsii's kernel (``accelerator.runtime.use_direct_channel``, the accelerator
on): the kernel runs in the Node.js process Python starts, with no relay process, and gives the same
output as jsii's own launcher."""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from accelerator import SWITCH
from accelerator.runtime import CODE_CACHE_ENV, DIRECT_CHANNEL, code_cache_dir
from config.load import REPO_ROOT
from tests.helpers.node import node

_FAKE_KERNEL = """
const fs = require('fs');
const { spawnSync } = require('child_process');
const request = Buffer.alloc(64);
const size = fs.readSync(3, request, 0, request.length, null);
console.log('from console.log');
console.error('from console.error');
spawnSync('sh', ['-c', 'echo from a child process'], { stdio: 'inherit' });
fs.writeSync(3, JSON.stringify({ ok: request.subarray(0, size).toString().trim() }) + '\\n');
"""


def test_the_kernel_talks_on_the_socket_and_everything_printed_stays_on_stdout_and_stderr(tmp_path: Path) -> None:
    kernel = tmp_path / "kernel.js"
    kernel.write_text(_FAKE_KERNEL)
    api, kernel_end = socket.socketpair()
    with api, kernel_end:
        process = subprocess.Popen(
            [node(), str(DIRECT_CHANNEL), str(kernel), str(kernel_end.fileno())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(kernel_end.fileno(),),
        )
        kernel_end.close()
        api.sendall(b"hello\n")
        with api.makefile("rb") as responses:
            assert responses.readline() == b'{"ok":"hello"}\n'  # what the kernel wrote to its fd 3
        stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert stdout == b"from console.log\nfrom a child process\n"  # never on the API stream
    assert stderr == b"from console.error\n"


_RENDER = """
import json, os, sys
from pathlib import Path
from accelerator import runtime as jsii_runtime
from accelerator.runtime import assembly_loads, skip_argument_type_checks, start_kernel_early, use_direct_channel
import charts
preload, preloads = charts.JSII_MODULES, 0
if sys.argv[1] == "early":
    start_kernel_early(preload)
    ((early, preloads),) = [(kernel.process.pid, len(kernel.preloaded)) for kernel in jsii_runtime._early_kernels]
if sys.argv[1] in ("direct", "early"):
    use_direct_channel()
skip_argument_type_checks()  # both sides as the commands render (tests/accelerator/test_fast_path.py compares paths)
from jsii._kernel import Kernel
loads, own_load = [], Kernel.load
Kernel.load = lambda self, name, *rest: loads.append(name) or own_load(self, name, *rest)
from charts.render import output_files, render_checked
from policy.environment.load import load_environment

env = load_environment(name="dev")
files = output_files(env, render_checked(env))
def children(pid):
    found = []
    for p in Path("/proc").iterdir():
        try:  # a process may end while this reads: other tests' processes come and go
            if p.name.isdigit() and (p / "stat").read_text().rsplit(")", 1)[1].split()[1] == str(pid):
                found.append(p)
        except (OSError, IndexError):
            continue
    return found
(node,) = [p for p in children(os.getpid()) if b"node" in (p / "cmdline").read_bytes()]
relays = children(node.name)
argv = (node / "cmdline").read_text().split("\\0")[:-1]
print(json.dumps({"argv": argv, "children": len(relays), "adopted": sys.argv[1] != "early" or int(node.name) == early,
                  "loads": loads, "preloaded": [load["name"] for load in assembly_loads(preload)],
                  "sent": preloads}))
for name, text in sorted(files.items()):
    print(name)
    print(text)
"""


def _python(
    script: str, argument: str, *, packages: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``script`` run by a fresh interpreter in the repository (and ``packages``, when given)."""
    path = f"{REPO_ROOT}:{packages}" if packages else str(REPO_ROOT)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), argument],
        cwd=REPO_ROOT,
        env=os.environ | {"PYTHONPATH": path, SWITCH: "on"} | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


@functools.cache  # each channel renders once per test process
def _render(channel: str) -> tuple[dict[str, Any], str]:
    result = _python(_RENDER, channel)
    first, _, files = result.stdout.partition("\n")
    return json.loads(first), files


def _without_code_cache(argv: list[str]) -> list[str]:
    """The kernel's command line without its options: the code cache's directory (when there is one) and
    the kernel rewrites."""
    assert argv[-1] == "--rewrites"  # the kernel bundle compiles rewritten
    cache = code_cache_dir(os.environ)
    if cache is None:
        return argv[:-1]
    assert argv[-2] == f"--code-cache={cache}"  # the modules compile from the V8 code cache
    return argv[:-2]


@pytest.mark.synth
def test_direct_channel_renders_what_jsii_launcher_renders_without_its_relay_process() -> None:
    launcher, launcher_files = _render("launcher")
    direct, direct_files = _render("direct")
    assert direct_files == launcher_files
    assert launcher["argv"][-1].endswith("/bin/jsii-runtime.js") and launcher["children"] == 1  # the relay
    *_, preserve, channel, kernel, api_fd = _without_code_cache(direct["argv"])
    assert (preserve, channel, api_fd.isdigit()) == ("--preserve-symlinks", str(DIRECT_CHANNEL), True)
    assert kernel.endswith("/lib/program.js") and direct["children"] == 0
    cache = code_cache_dir(os.environ)  # the runtime's own start runs jsii's runtime from the cache's folder too
    assert cache is None or Path(kernel).parent.parent.parent == cache


@pytest.mark.synth
def test_a_kernel_started_before_jsii_is_imported_is_the_one_the_runtime_uses() -> None:
    _, launcher_files = _render("launcher")
    early, early_files = _render("early")
    assert early_files == launcher_files
    assert early["adopted"] and early["children"] == 0  # the only Node.js process, with no relay
    # Every assembly the render loads was sent to the kernel at spawn, in the order the render loads them.
    assert early["preloaded"] == early["loads"] == ["constructs", "cdk8s", "cdk8s-plus-37"]
    assert early["sent"] == 3
    *_, channel, kernel, _ = _without_code_cache(early["argv"])
    assert channel == str(DIRECT_CHANNEL) and Path(kernel).parent.parent.name.startswith("jsii-runtime-")


_UNLOADABLE = """
import json, sys
from accelerator import runtime as jsii_runtime
if sys.argv[1] == "early":
    jsii_runtime.start_kernel_early(("unloadable_package", "cdk8s"))
jsii_runtime.use_direct_channel()
try:
    import unloadable_package._jsii
except Exception as error:
    failure = str(error).splitlines()[0]
import cdk8s  # the runtime goes on working
print(json.dumps({"error": failure, "app": type(cdk8s.App()).__name__}))
"""


def _unloadable_import(channel: str, packages: Path) -> dict[str, str]:
    answer: dict[str, str] = json.loads(_python(_UNLOADABLE, channel, packages=packages).stdout)
    return answer


def test_a_package_that_fails_to_load_early_fails_as_it_does_without_the_early_kernel(tmp_path: Path) -> None:
    """Its tarball unpacks but holds no assembly: the kernel unpacks it before failing, so a second load
    in that kernel would report something else; jsii's load gets the preload's own answer instead."""
    package = tmp_path / "unloadable_package"
    (package / "_jsii").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_jsii" / "__init__.py").write_text(
        "import jsii\n__jsii_assembly__ = jsii.JSIIAssembly.load("
        '"unloadable-package", "1.0.0", __name__[0:-6], "unloadable-package@1.0.0.jsii.tgz")\n'
    )
    manifest = tmp_path / "package.json"
    manifest.write_text('{"name": "unloadable-package", "version": "1.0.0"}')
    with tarfile.open(package / "_jsii" / "unloadable-package@1.0.0.jsii.tgz", "w:gz") as archive:
        archive.add(manifest, arcname="package/package.json")
    without, early = _unloadable_import("direct", tmp_path), _unloadable_import("early", tmp_path)
    assert "Expected to find .jsii file" in without["error"]
    assert early["error"].split(" in ")[0] == without["error"].split(" in ")[0]
    assert early["app"] == without["app"] == "App"


_UNADOPTED = """
import json, os, sys
from accelerator import pause_gc_and_exit, runtime as jsii_runtime
jsii_runtime.start_kernel_early()
(kernel,) = jsii_runtime._early_kernels
os.environ["CDK_CONTEXT_JSON"] = "{}"  # set after the kernel started: a runtime starting now must not take it
changed = jsii_runtime._adopt_early_kernel()
del os.environ["CDK_CONTEXT_JSON"]
child = os.fork()
if child == 0:  # a forked child neither takes nor stops its parent's kernel
    jsii_runtime.stop_early_kernels()
    os._exit(0 if jsii_runtime._adopt_early_kernel() is None else 1)
_, status = os.waitpid(child, 0)
(program,) = [arg for arg in kernel.process.args if arg.endswith("/lib/program.js")]
runtime = str(kernel.workdir.name if kernel.workdir else os.path.dirname(os.path.dirname(program)))
print(json.dumps({"pid": kernel.process.pid, "runtime": runtime, "copy": kernel.workdir is not None, "child": status,
                  "alive": kernel.process.poll() is None, "taken_after_change": changed is not None}), flush=True)
if sys.argv[1] == "exit_now":
    pause_gc_and_exit.exit_now(0)
"""


@pytest.mark.parametrize("cache", ["on", "off"])
@pytest.mark.parametrize("leaving", ["exit_now", "interpreter exit"])
def test_a_kernel_started_early_that_nothing_adopts_is_stopped_with_its_files(
    leaving: str, cache: str, tmp_path: Path
) -> None:
    """Its runtime files: a temp copy, removed; with the code cache, the folder per jsii release in the
    cache (which the cached code names), kept for the next kernel."""
    cache_dir = tmp_path / "code-cache"
    result = _python(_UNADOPTED, leaving, env={CODE_CACHE_ENV: str(cache_dir) if cache == "on" else "off"})
    kernel = json.loads(result.stdout)
    assert not kernel["taken_after_change"]
    assert kernel["child"] == 0 and kernel["alive"]  # still there after the child left
    assert not Path(f"/proc/{kernel['pid']}").exists()  # stopped and reaped, not left to init
    runtime = Path(kernel["runtime"])
    assert (kernel["copy"], runtime.exists()) == ((False, True) if cache == "on" else (True, False))
    if cache == "on":
        assert runtime.parent == cache_dir and (runtime / "lib" / "program.js").is_file()
    assert result.stderr == ""


def test_no_kernel_starts_early_once_jsii_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    import jsii  # noqa: F401 - the runtime this process's tests use may be running already

    from accelerator import runtime as jsii_runtime

    monkeypatch.setenv(SWITCH, "on")

    monkeypatch.setattr(jsii_runtime, "_early_kernels", [])  # as if this process had started none
    try:
        jsii_runtime.start_kernel_early()
        assert jsii_runtime._early_kernels == []
    finally:
        jsii_runtime.stop_early_kernels()


def _load_request(name: str) -> Any:
    from jsii._kernel.types import LoadRequest

    return LoadRequest(name=name, version="1.0.0", tarball=f"/{name}.tgz")


def test_preloaded_assemblies_are_answered_in_turn_and_any_other_request_after_all_of_them() -> None:
    import io
    from collections import deque

    from accelerator.runtime import _PreloadAnswers

    stream = io.BytesIO(b"answer-a\nanswer-b\nanswer-c\nother\n")
    answers = _PreloadAnswers(deque(["a", "b", "c"]))
    assert answers.answer(_load_request("a"), stream) == b"answer-a\n"
    assert stream.tell() == len(b"answer-a\n")  # b and c still loading: nothing more is read yet
    assert answers.answer(_load_request("c"), stream) == b"answer-c\n"  # out of order: b's answer is kept
    assert answers.answer(_load_request("b"), stream) == b"answer-b\n"
    assert answers.answer(_load_request("a"), stream) is None  # answered once; a second load is sent
    assert stream.read() == b"other\n"


def test_a_request_that_is_not_a_preloaded_load_is_sent_once_every_preload_is_answered() -> None:
    import io
    from collections import deque

    from accelerator.runtime import _PreloadAnswers

    stream = io.BytesIO(b'{"ok": 1}\n{"error": "failed"}\n')
    answers = _PreloadAnswers(deque(["a", "b"]))
    assert answers.answer(object(), stream) is None  # e.g. an invoke: its answer follows the preloads'
    assert stream.read() == b""
    assert answers.answer(_load_request("other"), stream) is None
    assert answers.answer(_load_request("b"), stream) == b'{"error": "failed"}\n'  # its failure, as the kernel said
