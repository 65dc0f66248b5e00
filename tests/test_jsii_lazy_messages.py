"""The kernel's assertion message built only when the assertion fails (``cli/jsii_lazy_messages.js``):
the pinned jsii kernel is rewritten, and a rewritten statement fails as jsii's own, with its message."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

from cli.jsii_runtime import DIRECT_CHANNEL, _embedded_runtime_files

LAZY_MESSAGES = DIRECT_CHANNEL.with_name("jsii_lazy_messages.js")

# A kernel module holding a statement as jsii ships it (argv: the statement), inside a function as the
# bundle has it, with the bundle's names for `assert` and `util`; prints what the function returns,
# how often the type reference was inspected, and the error for a missing type reference.
_KERNEL = """
const util = require('util');
const B = { default: require('assert') };
const K = util;
let inspected = 0;
const typeRef = { type: { primitive: 'string' }, [util.inspect.custom]: () => { inspected++; return 'TYPE'; } };
function computeSerializationType(e) {
  if (STATEMENT, "void" === e) return "void";
  return "typed";
}
const returned = [computeSerializationType(typeRef), computeSerializationType('void')];
let failure = null;
try { computeSerializationType(undefined); } catch (error) { failure = `${error.name}: ${error.message}`; }
console.log(JSON.stringify({ returned, inspected, failure }));
"""


def _node() -> str:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed for the jsii kernel"
    return node


def _node_json(script: str, *args: str) -> Any:
    done = subprocess.run([_node(), "-e", script, *args], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _rewrites() -> list[list[str]]:
    rewrites: list[list[str]] = _node_json(
        f"console.log(JSON.stringify(require({json.dumps(str(LAZY_MESSAGES))}).REWRITES))"
    )
    return rewrites


def test_the_pinned_kernel_holds_every_statement_rewritten_once() -> None:
    """A jsii release that changed one of them fails here: its entry in REWRITES is then a no-op."""
    files = _embedded_runtime_files()
    assert files is not None
    (program,) = [source for source, relative in files.items() if relative == "lib/program.js"]
    found = _node_json(
        f"""
        const {{ REWRITES, rewrite }} = require({json.dumps(str(LAZY_MESSAGES))});
        const text = require('fs').readFileSync(process.argv[1], 'utf8');
        const {{ source, applied }} = rewrite(text);
        console.log(JSON.stringify({{ applied, rewrites: REWRITES.length,
          left: REWRITES.filter(([eager]) => source.includes(eager)).length }}));
        """,
        str(program),
    )
    assert found == {"applied": found["rewrites"], "rewrites": len(_rewrites()), "left": 0}
    assert found["applied"] >= 1


def _run_kernel(program: Path, *, channel: bool) -> Any:
    """``program`` run by Node.js, through the direct channel (as the commands run jsii's) or alone."""
    if not channel:
        return _node_json(program.read_text())
    api, kernel_end = socket.socketpair()
    with api, kernel_end:
        done = subprocess.run(
            [_node(), str(DIRECT_CHANNEL), str(program), str(kernel_end.fileno())],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            pass_fds=(kernel_end.fileno(),),
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_rewritten_assertion_fails_with_jsii_message_and_builds_it_only_then(tmp_path: Path) -> None:
    ((eager, _),) = _rewrites()
    program = tmp_path / "program.js"
    program.write_text(_KERNEL.replace("STATEMENT", eager))
    as_shipped = _run_kernel(program, channel=False)
    rewritten = _run_kernel(program, channel=True)
    assert as_shipped["failure"] == "AssertionError: Kernel error: expected type information, got undefined"
    assert rewritten["failure"] == as_shipped["failure"]
    assert rewritten["returned"] == as_shipped["returned"] == ["typed", "void"]
    assert (as_shipped["inspected"], rewritten["inspected"]) == (1, 0)  # on every call as shipped; rewritten, never


def test_only_the_kernel_module_is_rewritten(tmp_path: Path) -> None:
    ((eager, _),) = _rewrites()
    program = tmp_path / "kernel.js"
    other = tmp_path / "other.js"
    other.write_text(_KERNEL.replace("STATEMENT", eager))
    program.write_text(f"require({json.dumps(str(other))});")
    assert _run_kernel(program, channel=True)["inspected"] == 1
