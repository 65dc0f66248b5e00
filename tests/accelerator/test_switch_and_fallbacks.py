"""The accelerator (``accelerator/``, ``docs/accelerator.md``): every command writes the same bytes with
it on and off (each test sets the switch itself), off runs jsii's stock path and needs no ``os.fork``,
and a part that does not apply to the installed jsii says so in one line and runs the stock way."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import accelerator
from accelerator import SKIP, SWITCH
from config.load import REPO_ROOT
from tests.helpers.node import node

TIMEOUT_SECONDS = 300


def _digests(root: Path) -> dict[str, str]:
    files = {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
    }
    assert files, f"nothing written under {root}"
    return dict(sorted(files.items()))


def _node_recorder(root: Path) -> tuple[Path, Path]:
    """A ``JSII_NODE`` that records each Node.js start, and the file it records them in."""
    started = root / "node-started"
    recorder = root / "node"
    recorder.write_text(f'#!/bin/sh\necho "$@" >> {started}\nexec node "$@"\n')
    recorder.chmod(0o755)
    return recorder, started


def _run(
    argv: list[str], switch: str, tmp: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``argv`` run with the switch at ``switch`` and a temp directory of its own, which it must leave empty."""
    temp = tmp / f"tmp-{switch}"
    temp.mkdir(exist_ok=True)
    environ = os.environ | {SWITCH: switch, SKIP: "", "TMPDIR": str(temp), "PYTHONPATH": str(REPO_ROOT)} | (env or {})
    done = subprocess.run(
        argv, cwd=REPO_ROOT, env=environ, capture_output=True, text=True, check=False, timeout=TIMEOUT_SECONDS
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in temp.iterdir()) == [], "temp files left behind"
    return done


def _command(module: str, *args: str, switch: str, tmp: Path, env: dict[str, str] | None = None) -> Any:
    return _run([sys.executable, "-m", module, *args], switch, tmp, env)


# A command run as ``python -m <argv[1]> <argv[2:]>`` after ``PATCH`` (a changed jsii, or a platform without fork).
_PATCHED_COMMAND = """
import runpy, sys
PATCH
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _patched(patch: str, module: str, *args: str, switch: str, tmp: Path, env: dict[str, str] | None = None) -> Any:
    script = _PATCHED_COMMAND.replace("PATCH", textwrap.dedent(patch))
    return _run([sys.executable, "-c", script, module, *args], switch, tmp, env)


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: accelerator:")]


@pytest.fixture(scope="module")
def stock_synth(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``make synth`` of dev with the accelerator off: the reference the other runs are compared with."""
    root = tmp_path_factory.mktemp("stock")
    done = _command(
        "cli.synth", "--cdk-out", str(root / "cdk.out"), "--dist", str(root / "dist"), switch="off", tmp=root
    )
    return {"cdk.out": _digests(root / "cdk.out"), "dist": _digests(root / "dist"), "stderr": done.stderr}


def _synth(tmp: Path, switch: str, *, patch: str | None = None) -> tuple[dict[str, Any], str]:
    outputs = ("--cdk-out", str(tmp / "cdk.out"), "--dist", str(tmp / "dist"))
    if patch is None:
        done = _command("cli.synth", *outputs, switch=switch, tmp=tmp)
    else:
        done = _patched(patch, "cli.synth", *outputs, switch=switch, tmp=tmp)
    return {"cdk.out": _digests(tmp / "cdk.out"), "dist": _digests(tmp / "dist")}, done.stderr


@pytest.mark.synth
def test_make_synth_writes_the_same_bytes_with_the_accelerator_on_and_off(
    stock_synth: dict[str, Any], tmp_path: Path
) -> None:
    written, stderr = _synth(tmp_path, "on")
    assert written == {k: stock_synth[k] for k in ("cdk.out", "dist")}
    assert stderr == stock_synth["stderr"]  # the same warnings, and none of the accelerator's


@pytest.mark.synth
def test_render_and_check_give_the_same_bytes_with_the_accelerator_on_and_off(tmp_path: Path) -> None:
    rendered = {}
    for switch in ("on", "off"):
        dist = tmp_path / f"dist-{switch}"
        done = _command("cli.render", "--dist", str(dist), switch=switch, tmp=tmp_path)
        checked = _command("cli.check", "--json", switch=switch, tmp=tmp_path)
        rendered[switch] = (_digests(dist), done.stdout.replace(str(dist), "<dist>"), done.stderr, checked.stdout)
    assert rendered["on"] == rendered["off"]
    assert {k.removeprefix("dev/"): v for k, v in rendered["on"][0].items()} == _digests(REPO_ROOT / "dist" / "dev")


@pytest.mark.synth
def test_cdk_synth_app_writes_the_same_bytes_with_the_accelerator_on_and_off(
    stock_synth: dict[str, Any], tmp_path: Path
) -> None:
    for switch in ("on", "off"):
        outdir = tmp_path / f"cdk.out-{switch}"
        cdk_cli = {"CDK_OUTDIR": str(outdir), "CDK_CONTEXT_JSON": json.dumps({"env": "dev"})}
        done = _run([sys.executable, str(REPO_ROOT / "app.py")], switch, tmp_path, cdk_cli)
        assert (done.stdout, done.stderr) == ("", "")
        assert _digests(outdir) == stock_synth["cdk.out"], switch


@pytest.mark.synth
def test_off_runs_jsii_own_launcher_and_on_the_direct_channel(tmp_path: Path) -> None:
    recorder, started = _node_recorder(tmp_path)
    for switch, kernel in (("off", "/bin/jsii-runtime.js"), ("on", "/accelerator/direct_channel.js ")):
        started.unlink(missing_ok=True)
        _command(
            "cli.render",
            "--dist",
            str(tmp_path / "dist"),
            switch=switch,
            tmp=tmp_path,
            env={"JSII_NODE": str(recorder)},
        )
        starts = started.read_text().splitlines()
        assert len(starts) == 1 and kernel in f"{starts[0]} ", (switch, starts)


_NO_FORK = """
import os
del os.fork  # a platform without fork
"""


@pytest.mark.synth
@pytest.mark.parametrize("switch", ["off", "on"])
def test_make_synth_works_without_os_fork(switch: str, stock_synth: dict[str, Any], tmp_path: Path) -> None:
    """Off, nothing forks; on, the renderer's fork is left out with the one line, and the rest runs."""
    written, stderr = _synth(tmp_path, switch, patch=_NO_FORK)
    assert written == {k: stock_synth[k] for k in ("cdk.out", "dist")}
    expected = (
        []
        if switch == "off"
        else [
            "warning: accelerator: parallel-synth does not apply to this platform (os.fork is missing); "
            "using the stock jsii path"
        ]
    )
    assert _warnings(stderr) == expected


_ANOTHER_JSII = """
import accelerator.runtime
accelerator.runtime.jsii_release = lambda: "9.9.9"
"""


@pytest.mark.synth
def test_another_jsii_release_runs_stock_with_one_line_per_part(stock_synth: dict[str, Any], tmp_path: Path) -> None:
    recorder, started = _node_recorder(tmp_path)
    dist = tmp_path / "render"
    done = _patched(
        _ANOTHER_JSII, "cli.render", "--dist", str(dist), switch="on", tmp=tmp_path, env={"JSII_NODE": str(recorder)}
    )
    reason = "it is written against jsii 1.142.0's internals"
    assert _warnings(done.stderr) == [
        f"warning: accelerator: direct-channel does not apply to jsii 9.9.9 ({reason}); using the stock jsii path"
    ]
    assert "/bin/jsii-runtime.js" in started.read_text()  # jsii's own launcher
    assert _digests(dist / "dev") == _digests(REPO_ROOT / "dist" / "dev")
    (tmp_path / "synth").mkdir()
    written, stderr = _synth(tmp_path / "synth", "on", patch=_ANOTHER_JSII)
    assert written == {k: stock_synth[k] for k in ("cdk.out", "dist")}
    assert [line.split(" does not apply")[0] for line in _warnings(stderr)] == [
        "warning: accelerator: direct-channel",
        "warning: accelerator: parallel-synth",
    ]


_CHANGED_KERNEL = """
import accelerator.runtime
shipped = accelerator.runtime.kernel_rewrites()
changed = shipped[0]["shipped"].replace("B.default", "Q.default")  # a release that renamed a minified name
accelerator.runtime.kernel_rewrites = lambda: [{**shipped[0], "shipped": changed}]
"""


@pytest.mark.synth
def test_a_kernel_bundle_without_the_rewritten_statement_runs_as_shipped(tmp_path: Path) -> None:
    recorder, started = _node_recorder(tmp_path)
    dist = tmp_path / "render"
    done = _patched(
        _CHANGED_KERNEL, "cli.render", "--dist", str(dist), switch="on", tmp=tmp_path, env={"JSII_NODE": str(recorder)}
    )
    assert _warnings(done.stderr) == [
        "warning: accelerator: kernel-rewrites does not apply to jsii 1.142.0's kernel bundle (rewrite 1 "
        "(assertion message): its statement occurs 0 times, not once); using the stock jsii path"
    ]
    (start,) = started.read_text().splitlines()
    assert "/accelerator/direct_channel.js " in start and "--rewrites" not in start  # the rest still on
    assert _digests(dist / "dev") == _digests(REPO_ROOT / "dist" / "dev")


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], list[str]]]:
    """The accelerator on, with no part found not to apply yet; the warning lines printed since."""
    monkeypatch.setenv(SWITCH, "on")
    monkeypatch.delenv(SKIP, raising=False)
    monkeypatch.setattr(accelerator, "_not_applying", set())
    monkeypatch.setattr(accelerator, "_warned", set())
    lines: list[str] = []
    monkeypatch.setattr(accelerator, "_warn_once", lambda key, line: lines.append(line))
    yield lambda: lines


def test_the_switch_reads_on_and_off_and_takes_anything_else_as_off(
    fresh: Callable[[], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SWITCH)
    assert accelerator.enabled() and accelerator.DEFAULT == "on"
    for value, expected in (("on", True), (" OFF", False), ("off", False), ("", True)):
        monkeypatch.setenv(SWITCH, value)
        assert accelerator.enabled() is expected, value
    assert fresh() == []
    monkeypatch.setenv(SWITCH, "maybe")
    assert not accelerator.enabled() and not accelerator.uses("fast-path")
    assert fresh()[-1] == (
        "warning: accelerator: GPU_PLATFORM_ACCELERATOR is not on or off (got 'maybe'); using the stock jsii path"
    )


def test_skipped_parts_and_the_parts_needing_them_are_left_out(
    fresh: Callable[[], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SKIP, "direct-channel, gc-pause,no-such-part")
    used = {part for part in accelerator.PARTS if accelerator.uses(part)}
    assert used == {"fast-path", "parallel-synth"}
    assert fresh()[0].startswith("warning: accelerator: GPU_PLATFORM_ACCELERATOR_SKIP names no part 'no-such-part'")


def test_a_part_that_does_not_apply_is_one_line_and_off_with_what_needs_it(fresh: Callable[[], list[str]]) -> None:
    accelerator.does_not_apply("direct-channel", "jsii 2.0.0", "a reason")
    assert fresh() == [
        "warning: accelerator: direct-channel does not apply to jsii 2.0.0 (a reason); using the stock jsii path"
    ]
    assert not any(accelerator.uses(part) for part in ("direct-channel", *accelerator.NEEDS))
    assert accelerator.uses("fast-path")


def test_a_missing_fast_path_hook_leaves_jsii_checks_in_place(
    fresh: Callable[[], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsii import _kernel, _type_checking

    from accelerator.runtime import fast_path
    from charts.render import render_environment
    from tests.conftest import load_environment, shipped_render

    own = _kernel._make_reference_for_native
    # A release whose memo of stub annotations is no longer a dict: the fast path's stand-in would not fit.
    monkeypatch.setattr(_type_checking, "_type_hints_cache", weakref.WeakKeyDictionary())
    with fast_path():
        assert _kernel._make_reference_for_native is own
        files = render_environment(load_environment(name="dev")).files
    assert fresh() == [
        "warning: accelerator: fast-path does not apply to jsii 1.142.0 (jsii._type_checking._type_hints_cache "
        "is not a dict); using the stock jsii path"
    ]
    assert files == shipped_render("dev").files


class _Struct:
    """Stands in for a generated jsii struct: its fields stored in ``_values`` under their Python names."""

    __jsii_type__ = "test.Struct"
    __jsii_name_mapping__ = {"name": "name", "max_size": "maxSize"}

    def __init__(self, **values: Any) -> None:
        self._values = values

    @property
    def name(self) -> Any:
        return self._values.get("name")

    @property
    def max_size(self) -> Any:
        return self._values.get("max_size")


class _StructWithoutProperty(_Struct):
    __jsii_name_mapping__ = {**_Struct.__jsii_name_mapping__, "labels": "labels"}


def _reads(value: Any) -> tuple[Any, list[str], list[Any]]:
    from accelerator.runtime import _struct_values_first

    stock: list[Any] = []
    restored: list[str] = []
    make_reference = _struct_values_first(lambda _, v: stock.append(v) or "stock", lambda: restored.append("restored"))
    return make_reference(None, value), restored, stock


def test_a_struct_read_from_storage_is_what_its_properties_give(fresh: Callable[[], list[str]]) -> None:
    reference, restored, _ = _reads(_Struct(name="a", max_size=None))
    assert reference == {"$jsii.struct": {"fqn": "test.Struct", "data": {"name": "stock", "maxSize": "stock"}}}
    assert (restored, fresh()) == ([], [])


@pytest.mark.parametrize(
    ("value", "fields"),
    [(_Struct(name="a", labels={"x": "y"}), "labels"), (_StructWithoutProperty(name="a"), "labels")],
    ids=["stored field not mapped", "mapped field without property"],
)
def test_a_struct_whose_fields_read_otherwise_goes_to_jsii_with_one_line(
    value: Any, fields: str, fresh: Callable[[], list[str]]
) -> None:
    reference, restored, stock = _reads(value)
    assert (reference, restored, stock) == ("stock", ["restored"], [value])  # jsii's own read, and its path back
    assert fresh() == [
        f"warning: accelerator: fast-path does not apply to struct test.Struct (fields {fields} not as read); "
        "using the stock jsii path"
    ]


def test_a_direct_channel_hook_missing_leaves_jsii_start(
    fresh: Callable[[], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsii._kernel import providers

    from accelerator.runtime import use_direct_channel

    changed = type("_NodeProcess", (), {"start": lambda self: None, "send": lambda self, *_: None})
    monkeypatch.setattr(providers, "process", SimpleNamespace(_NodeProcess=changed))
    monkeypatch.setitem(sys.modules, "jsii._kernel.providers.process", providers.process)
    use_direct_channel()
    assert not hasattr(changed.start, "direct_channel")
    assert fresh() == [
        "warning: accelerator: direct-channel does not apply to jsii 1.142.0 (_NodeProcess lacks _next_message, "
        "_jsii_runtime, handshake); using the stock jsii path"
    ]


def test_a_kernel_text_without_a_rewritten_statement_gets_no_rewrite(fresh: Callable[[], list[str]]) -> None:
    from accelerator.runtime import _embedded_runtime_files, rewrites_apply_to

    files = _embedded_runtime_files()
    assert files is not None
    (program,) = [source for source, relative in files.items() if relative == "lib/program.js"]
    shipped = program.read_text(encoding="utf-8")
    assert rewrites_apply_to(shipped, "the pinned kernel") and fresh() == []
    assert not rewrites_apply_to(shipped.replace("serializationType(e,p){", "serializationType(p,e){"), "a kernel")
    assert fresh() == [
        "warning: accelerator: kernel-rewrites does not apply to a kernel (rewrite 2 (serialization type memo): "
        "its statement occurs 0 times, not once); using the stock jsii path"
    ]


@pytest.mark.parametrize(
    ("removal", "missing"),
    [
        ("Object.defineProperty(require('zlib'), 'crc32', { value: undefined });", "zlib.crc32"),
        ("require('module').wrap = undefined;", "Module.wrap"),
        ("require('module').wrapper = undefined;", "Module.wrapper"),
        ("require('module').prototype._compile = undefined;", "Module.prototype._compile"),
        ("require('vm').Script.prototype.createCachedData = undefined;", "vm.Script.prototype.createCachedData"),
    ],
)
def test_a_nodejs_without_an_internal_compiles_without_the_code_cache_and_says_so(
    tmp_path: Path, removal: str, missing: str
) -> None:
    cache = REPO_ROOT / "accelerator" / "code_cache.js"
    # Loaded before the removal, which would stop Node.js's loader itself from loading it.
    script = (
        f"const codeCache = require({json.dumps(str(cache))});"
        f"{removal}const before = require('module').prototype._compile;"
        f"const stats = codeCache.install({json.dumps(str(tmp_path))});"
        "console.log(JSON.stringify({stats, patched: require('module').prototype._compile !== before}));"
    )
    done = subprocess.run([node(), "-e", script], capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["stats"]["hits"] == 0 and list(tmp_path.iterdir()) == []
    assert result["patched"] is False  # Node.js's own loader compiles every module
    (line,) = done.stderr.splitlines()
    assert line.startswith("warning: accelerator: code-cache does not apply to Node.js v")
    assert line.endswith(f" (no {missing}); using the stock jsii path")


def test_the_package_imports_nothing_from_the_project() -> None:
    project = {"app", "bench", "catalog", "charts", "cli", "config", "control_plane", "exporter", "observability"}
    project |= {"policy", "simulation", "stacks", "teams", "tests"}
    import ast

    for source in (REPO_ROOT / "accelerator").glob("*.py"):
        for node_ in ast.walk(ast.parse(source.read_text())):
            names = (
                [a.name for a in node_.names]
                if isinstance(node_, ast.Import)
                else [node_.module or ""]
                if isinstance(node_, ast.ImportFrom)
                else []
            )
            assert not {n.split(".")[0] for n in names} & project, (source.name, names)


def test_a_renderer_that_cannot_find_its_runtime_to_stop_says_so(
    fresh: Callable[[], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make synth``'s forked renderer stops its jsii runtime itself (``exit_now``): a jsii whose
    memoized runtime reads otherwise would leave the runtime's temp folders, so it says so."""
    from accelerator.pause_gc_and_exit import _jsii_process

    class ProcessProvider:
        _process = property(lambda self: None)  # no memo in its closure

    changed = SimpleNamespace(ProcessProvider=ProcessProvider, _NodeProcess=type("_NodeProcess", (), {}))
    monkeypatch.setitem(sys.modules, "jsii._kernel.providers.process", changed)
    assert _jsii_process() is False
    assert fresh() == [
        "warning: accelerator: parallel-synth does not apply to jsii 1.142.0 (ProcessProvider._process keeps no "
        "single list of its runtime); using the stock jsii path"
    ]
