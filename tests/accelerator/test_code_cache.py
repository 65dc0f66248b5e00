"""The jsii kernel's V8 code cache (``accelerator/code_cache.js``): modules compile with the bytecode an
earlier process left, and run exactly as compiled from source, whatever is in the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from accelerator import SWITCH
from accelerator import runtime as jsii_runtime
from accelerator.runtime import CODE_CACHE_ENV, code_cache_dir
from config.load import REPO_ROOT
from tests.helpers.node import node, node_json

CODE_CACHE = REPO_ROOT / "accelerator" / "code_cache.js"

# Loads the modules named on the command line with the cache installed, and prints what they export
# and the cache's counts (its own exit handler, registered first, has written the entries by then).
_LOADER = """
const { install } = require(process.env.CODE_CACHE);
const stats = install(process.env.CACHE_ROOT, JSON.parse(process.env.CACHE_OPTIONS || '{}'));
const calls = Number(process.env.CALLS || 0);
const exported = process.argv.slice(2).map((file) => (calls ? require(file)() : require(file)));
process.on('exit', () => console.log(JSON.stringify({ exported, stats })));
"""


def _load(
    tmp_path: Path, cache: Path, *modules: Path, node_flags: tuple[str, ...] = (), calls: int = 0, **options: int
) -> dict[str, Any]:
    loader = tmp_path / "loader.js"
    loader.write_text(_LOADER)
    done = subprocess.run(
        [node(), *node_flags, str(loader), *map(str, modules)],
        env={
            "PATH": os.environ["PATH"],
            "CODE_CACHE": str(CODE_CACHE),
            "CACHE_ROOT": str(cache),
            "CACHE_OPTIONS": json.dumps(options),
            "CALLS": str(calls),
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _entries(cache: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(cache.glob("*/*"))}


def _module(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_second_process_compiles_from_the_first_ones_entries_and_gets_the_same_results(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    helper = _module(tmp_path / "helper.js", "module.exports = (n) => n * 7;\n")
    main = _module(
        tmp_path / "main.js",
        "const times = require('./helper.js');\n"
        "module.exports = { value: times(6), same: this === module.exports, dir: __dirname, file: __filename,\n"
        "  resolved: require.resolve('./helper.js'),\n"
        "  cached: require.cache[require.resolve('./helper.js')] !== undefined };\n",
    )
    first = _load(tmp_path, cache, main)
    assert first["stats"] == {"hits": 0, "misses": 2, "rejected": 0, "written": 2, "refreshed": 0, "uncached": 0}
    written = _entries(cache)
    assert len(written) == 2
    second = _load(tmp_path, cache, main)
    assert second["stats"] == {"hits": 2, "misses": 0, "rejected": 0, "written": 0, "refreshed": 0, "uncached": 0}
    assert _entries(cache) == written
    assert (
        first["exported"]
        == second["exported"]
        == [
            {
                "value": 42,
                "same": True,
                "dir": str(tmp_path),
                "file": str(main),
                "resolved": str(helper),
                "cached": True,
            }
        ]
    )
    (directory,) = cache.iterdir()  # one per Node.js version, architecture and V8 flags: V8 refuses others' data
    tag = "process.version + '-' + process.arch + '-' + require('v8').cachedDataVersionTag()"
    runtime = [node(), "--print", tag]
    assert directory.name == subprocess.run(runtime, capture_output=True, text=True, check=True).stdout.strip()


def test_an_entry_another_process_wrote_meanwhile_is_left_as_it_wrote_it(tmp_path: Path) -> None:
    """Processes started together all miss; the first to end writes, the others do not write again."""
    first, second = tmp_path / "first", tmp_path / "second"
    module = _module(tmp_path / "m.js", "module.exports = 'shared';\n")
    _load(tmp_path, first, module)
    ((entry, data),) = ((p, p.read_bytes()) for p in first.glob("*/*"))
    # While the second process runs (after its miss), its cache gets the entry the first one wrote.
    target = second / entry.parent.name
    writer = _module(
        tmp_path / "writer.js",
        "module.exports = require('./m.js');\n"  # a miss: compiled from source
        f"require('fs').mkdirSync({str(target)!r}, {{ recursive: true }});\n"
        f"require('fs').copyFileSync({str(entry)!r}, {str(target / entry.name)!r});\n",
    )
    result = _load(tmp_path, second, writer)
    assert (result["exported"], result["stats"]["misses"], result["stats"]["written"]) == (
        ["shared"],
        2,
        1,
    )  # writer.js
    assert (target / entry.name).read_bytes() == data


def test_an_entry_serves_only_a_file_of_its_name_whose_stack_frames_it_names(tmp_path: Path) -> None:
    """V8's cache data names the file it was made from (stack traces show it; aws-cdk-lib tells jsii's
    frames from its own by it). Inside a package the name counts from ``node_modules/`` on: each kernel
    links the packages into a folder of its own."""
    cache = tmp_path / "cache"
    text = "module.exports = () => new Error('here').stack.split('\\n')[1];\n"
    here, there = (_module((tmp_path / name).with_suffix(".js"), text) for name in ("here", "there"))
    for module in (here, there):
        frame = _load(tmp_path, cache, module, calls=1)
        assert (frame["stats"]["misses"], module.name in frame["exported"][0]) == (1, True)
    linked = []
    for kernel in ("kernel-a", "kernel-b"):
        package = tmp_path / kernel / "node_modules" / "pkg"
        package.mkdir(parents=True)
        linked.append(_module(package / "index.js", text))
    assert _load(tmp_path, cache, linked[0], calls=1)["stats"]["misses"] == 1
    shared = _load(tmp_path, cache, linked[1], calls=1)
    assert shared["stats"]["hits"] == 1 and "node_modules/pkg/index.js:1:" in shared["exported"][0]
    # The same file bundled inside two packages: aws-cdk-lib names a frame by its first package.
    for parent in ("a", "b"):
        nested = tmp_path / "kernel-a" / "node_modules" / parent / "node_modules" / "pkg"
        nested.mkdir(parents=True)
        frame = _load(tmp_path, cache, _module(nested / "index.js", text), calls=1)
        assert frame["stats"]["misses"] == 1 and f"node_modules/{parent}/node_modules/pkg/" in frame["exported"][0]


def test_a_module_changed_to_text_of_the_same_length_runs_the_new_text(tmp_path: Path) -> None:
    """V8 checks cache data against the source's length only: the key is the text's hash."""
    cache = tmp_path / "cache"
    module = _module(tmp_path / "m.js", "module.exports = 'old';\n")
    assert _load(tmp_path, cache, module)["exported"] == ["old"]
    _module(module, "module.exports = 'new';\n")
    again = _load(tmp_path, cache, module)
    assert again["exported"] == ["new"]
    assert again["stats"]["misses"] == 1
    assert len(_entries(cache)) == 2


def test_a_damaged_entry_is_compiled_from_source_and_written_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    module = _module(tmp_path / "m.js", "module.exports = [1, 2, 3].map((n) => n * n);\n")
    _load(tmp_path, cache, module)
    ((name, good),) = _entries(cache).items()
    (entry,) = cache.glob(f"*/{name}")
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0xFF
    entry.write_bytes(bytes(damaged))
    again = _load(tmp_path, cache, module)
    assert again["exported"] == [[1, 4, 9]]
    assert again["stats"] == {"hits": 0, "misses": 1, "rejected": 0, "written": 1, "refreshed": 0, "uncached": 0}
    assert zlib.crc32(entry.read_bytes()[4:]) == int.from_bytes(entry.read_bytes()[:4], "little")


def test_data_v8_refuses_is_compiled_from_source_and_written_again(tmp_path: Path) -> None:
    """What V8 rejects (another V8 version or flags; here, data that is not cache data at all)."""
    cache = tmp_path / "cache"
    module = _module(tmp_path / "m.js", "module.exports = 'fine';\n")
    _load(tmp_path, cache, module)
    (entry,) = cache.glob("*/*")
    foreign = b"not V8 cache data" * 8
    entry.write_bytes(zlib.crc32(foreign).to_bytes(4, "little") + foreign)
    again = _load(tmp_path, cache, module)
    assert again["exported"] == ["fine"]
    assert again["stats"] == {"hits": 0, "misses": 0, "rejected": 1, "written": 1, "refreshed": 0, "uncached": 0}
    assert _load(tmp_path, cache, module)["stats"]["hits"] == 1


def test_an_entry_written_by_a_process_that_ran_little_grows_with_one_that_ran_more(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    body = "".join(f"function f{i}(n) {{ return [n, n + {i}].map((x) => x * 2).join(); }}\n" for i in range(40))
    calls = ", ".join(f"f{i}(1)" for i in range(40))
    _module(tmp_path / "m.js", f"{body}module.exports = (all) => all ? [{calls}].length : 0;\n")
    little = _module(tmp_path / "little.js", "module.exports = require('./m.js')(false);\n")
    more = _module(tmp_path / "more.js", "module.exports = require('./m.js')(true);\n")
    _load(tmp_path, cache, little)
    thin = _entries(cache)
    assert _load(tmp_path, cache, more, refreshShare=0)["stats"]["refreshed"] == 0
    assert {n: d for n, d in _entries(cache).items() if n in thin} == thin  # refreshed: its share of hits (none)
    grown = _load(tmp_path, cache, more, refreshShare=1)
    assert (grown["exported"], grown["stats"]["refreshed"]) == ([40], 1)  # m.js grew; more.js ran all of itself
    ((name, data),) = ((n, d) for n, d in _entries(cache).items() if n in thin and d != thin[n])
    assert len(data) > len(thin[name])
    assert _load(tmp_path, cache, more, refreshShare=1)["stats"] == {
        "hits": 2,
        "misses": 0,
        "rejected": 0,
        "written": 0,
        "refreshed": 0,
        "uncached": 0,
    }


def test_hashbang_and_byte_order_mark_compile_as_nodejs_compiles_them(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    hashbang = _module(tmp_path / "tool.js", "#!/usr/bin/env node\nmodule.exports = new Error().stack.split('\\n')[1];")
    marked = _module(tmp_path / "marked.js", "\ufeffmodule.exports = 'marked';\n")
    exported = _load(tmp_path, cache, hashbang, marked)["exported"]
    assert exported[1] == "marked"
    assert f"{hashbang}:2:" in exported[0]  # the stack's line numbers are the file's
    assert _load(tmp_path, cache, hashbang, marked)["exported"] == exported


def test_a_cache_that_cannot_be_written_changes_nothing_but_speed(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    module = _module(tmp_path / "m.js", "module.exports = 'ran';\n")
    result = _load(tmp_path, blocked, module)
    assert result["exported"] == ["ran"]
    assert result["stats"] == {"hits": 0, "misses": 1, "rejected": 0, "written": 0, "refreshed": 0, "uncached": 0}


def test_a_cache_past_its_size_keeps_only_what_the_process_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    old = _module(tmp_path / "old.js", "module.exports = 'old';\n")
    _load(tmp_path, cache, old)
    kept = _module(tmp_path / "kept.js", "module.exports = 'kept';\n")
    _load(tmp_path, cache, kept)
    assert len(_entries(cache)) == 2
    newest = _module(tmp_path / "new.js", "module.exports = 'new';\n")
    _load(tmp_path, cache, kept, newest, maxBytes=1)
    after = _entries(cache)
    assert len(after) == 2
    assert _load(tmp_path, cache, kept, newest)["stats"]["hits"] == 2
    assert _load(tmp_path, cache, old)["stats"]["misses"] == 1


def test_what_only_nodes_own_loader_handles_loads_as_without_the_cache(tmp_path: Path) -> None:
    """ECMAScript module syntax in a ``.js`` file (Node.js detects it) and dynamic ``import()`` (which
    cached data cannot carry): compiled by Node.js itself, every time."""
    cache = tmp_path / "cache"
    _module(tmp_path / "esm.js", "export const answer = 42;\n")
    _module(tmp_path / "dynamic.js", "module.exports = typeof (() => import('node:path'));\n")
    plain = _module(tmp_path / "plain.js", "module.exports = [require('./esm.js').answer, require('./dynamic.js')];\n")
    for _ in range(2):
        result = _load(tmp_path, cache, plain)
        assert result["exported"] == [[42, "function"]]
        assert result["stats"]["uncached"] == 2
    assert result["stats"]["hits"] == 1


def test_an_error_on_line_one_reports_the_column_nodejs_reports(tmp_path: Path) -> None:
    """Minified code (aws-cdk-lib, jsii's kernel) is all line 1: the module wrapper must not shift it."""
    module = _module(
        tmp_path / "minified.js", "const a = 1; module.exports = new Error('here').stack.split('\\n')[1];\n"
    )
    plain = subprocess.run(
        [node(), "--print", f"require({str(module)!r})"], capture_output=True, text=True, check=True
    ).stdout.rstrip("\n")
    assert plain.endswith(f"{module}:1:31)")
    for _ in range(2):  # compiled from source, then from the cache
        assert _load(tmp_path, tmp_path / "cache", module)["exported"] == [plain]


def test_kernels_with_other_v8_flags_keep_their_own_entries(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    module = _module(tmp_path / "m.js", "module.exports = 'same';\n")
    flags = ("--max-old-space-size=4069",)  # the kernel's flag
    _load(tmp_path, cache, module)
    _load(tmp_path, cache, module, node_flags=flags)
    assert len(list(cache.iterdir())) == 2
    for node_flags in ((), flags):
        assert _load(tmp_path, cache, module, node_flags=node_flags)["stats"]["hits"] == 1


def test_a_cache_past_its_size_drops_other_versions_first(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    old_version = cache / "v0.0.0-x64-1"
    old_version.mkdir(parents=True)
    (old_version / ("0" * 40)).write_bytes(b"\0" * 4096)
    runtime = cache / "jsii-runtime-0123456789abcdef" / "lib"  # the kernel's runtime folder (accelerator/runtime.py)
    runtime.mkdir(parents=True)
    (runtime / "program.js").write_bytes(b"\0" * 4096)
    module = _module(tmp_path / "m.js", "module.exports = 'kept';\n")
    _load(tmp_path, cache, module, maxBytes=2048)
    assert not old_version.exists()
    assert (runtime / "program.js").exists()
    assert _load(tmp_path, cache, module)["stats"]["hits"] == 1


def test_where_the_cache_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert code_cache_dir({"HOME": "/home/u"}) == Path("/home/u/.cache/gpu-platform/jsii-code-cache")
    xdg = {"HOME": "/home/u", "XDG_CACHE_HOME": str(tmp_path)}
    assert code_cache_dir(xdg) == tmp_path / "gpu-platform" / "jsii-code-cache"
    assert code_cache_dir({CODE_CACHE_ENV: str(tmp_path / "c"), "XDG_CACHE_HOME": "/x"}) == tmp_path / "c"
    for off in ("off", "OFF", "0", "false", "no"):
        assert code_cache_dir({CODE_CACHE_ENV: off, "HOME": "/home/u"}) is None

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))  # an arbitrary uid in a container
    assert code_cache_dir({}) is None


@pytest.mark.synth
def test_make_render_fills_the_cache_once_and_renders_the_committed_files_from_it(tmp_path: Path) -> None:
    """The committed ``dist/dev`` is a render's output (``make freshness``, ``tests/cli/test_synth_command.py``)."""

    def render(dist: Path) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "cli.render", "--env", "dev", "--dist", str(dist)],
            cwd=REPO_ROOT,
            env=os.environ | {CODE_CACHE_ENV: str(cache), SWITCH: "on"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    cache = tmp_path / "cache"
    render(tmp_path / "filling")
    filled = {p: p.stat().st_mtime_ns for p in cache.glob("*/*")}
    assert len(filled) > 50  # jsii's kernel, constructs, cdk8s, cdk8s-plus-37 and their dependencies
    render(tmp_path / "cached")
    assert {p: p.stat().st_mtime_ns for p in cache.glob("*/*")} == filled  # every module compiled from it
    for run in ("filling", "cached"):
        assert _files(tmp_path / run / "dev") == _files(REPO_ROOT / "dist" / "dev"), run
    # The kernel compiled the bundle rewritten (accelerator/kernel_rewrites.js): the cache holds that text's entry.
    (program,) = cache.glob("jsii-runtime-*/lib/program.js")
    keys = node_json(_KERNEL_KEYS, str(program), str(CODE_CACHE), str(REPO_ROOT / "accelerator" / "kernel_rewrites.js"))
    names = {p.name for p in filled}
    assert keys["applied"] >= 1 and (keys["rewritten"] in names, keys["shipped"] in names) == (True, False)


# The cache's keys (argv[2]'s `entryKey`) for kernel bundle argv[1] as shipped and rewritten (argv[3]'s `rewrite`).
_KERNEL_KEYS = """
const [program, cache, rewrites] = process.argv.slice(1);
const shipped = require('fs').readFileSync(program, 'utf8');
const { source, applied } = require(rewrites).rewrite(shipped);
const { entryKey } = require(cache);
console.log(JSON.stringify({ applied, shipped: entryKey(program, shipped), rewritten: entryKey(program, source) }));
"""


def _files(root: Path) -> dict[str, bytes]:
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    assert files, f"nothing rendered under {root}"
    return files


def test_runtime_folders_of_releases_left_unused_go_and_the_one_in_use_stays(tmp_path: Path) -> None:
    def aged(name: str, seconds: float) -> Path:
        folder = tmp_path / name
        (folder / "lib").mkdir(parents=True)
        os.utime(folder, (folder.stat().st_atime, folder.stat().st_mtime - seconds))
        return folder

    week = jsii_runtime.UNUSED_RUNTIME_KEPT_SECONDS
    unused = aged("jsii-runtime-0000000000000000", week + 60)
    recent = aged("jsii-runtime-1111111111111111", week - 3600)
    staging = aged(".jsii-runtime-killed", jsii_runtime.STAGING_KEPT_SECONDS + 60)
    program = jsii_runtime._shared_runtime.__wrapped__(tmp_path)
    assert program is not None and program.is_file()
    assert (unused.exists(), recent.exists(), staging.exists()) == (False, True, False)
    # In use again a week later: the folder is marked on each use, so it stays.
    own = program.parent.parent
    os.utime(own, (own.stat().st_atime, own.stat().st_mtime - week - 60))
    assert jsii_runtime._shared_runtime.__wrapped__(tmp_path) == program
    assert own.exists() and own.stat().st_mtime > recent.stat().st_mtime
