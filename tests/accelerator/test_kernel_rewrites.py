"""The kernel bundle's rewritten statements (``accelerator/kernel_rewrites.js``): the pinned jsii kernel
holds each once, and each rewritten statement gives what jsii's own gives, without its cost."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from accelerator.runtime import DIRECT_CHANNEL, _embedded_runtime_files
from tests.helpers.node import node, node_json

KERNEL_REWRITES = DIRECT_CHANNEL.with_name("kernel_rewrites.js")


def _shipped() -> list[str]:
    """Each rewrite's statement as jsii ships it."""
    script = f"console.log(JSON.stringify(require({json.dumps(str(KERNEL_REWRITES))}).REWRITES.map((r) => r.shipped)))"
    shipped: list[str] = node_json(script)
    return shipped


def test_the_pinned_kernel_holds_every_rewritten_statement_once() -> None:
    """A jsii release that changed one of them fails here: its rewrite would be a no-op."""
    files = _embedded_runtime_files()
    assert files is not None
    (program,) = [source for source, relative in files.items() if relative == "lib/program.js"]
    found = node_json(
        f"""
        const {{ REWRITES, rewrite }} = require({json.dumps(str(KERNEL_REWRITES))});
        const text = require('fs').readFileSync(process.argv[1], 'utf8');
        const {{ source, applied }} = rewrite(text);
        console.log(JSON.stringify({{ applied, left: REWRITES.filter((r) => source.includes(r.shipped)).length }}));
        """,
        str(program),
    )
    assert found == {"applied": len(_shipped()), "left": 0}


# A kernel module holding one shipped statement (STATEMENT) among the bundle's names for what it uses,
# printing what a probe of it sees, in the order of REWRITES. Run alone it is jsii's own; through the direct
# channel, rewritten.
_KERNELS = {
    "assertion message": """
        const util = require('util');
        const B = { default: require('assert') };
        const K = util;
        let inspected = 0;
        const typeRef = { type: { primitive: 'string' }, [util.inspect.custom]: () => { inspected++; return 'T'; } };
        function computeSerializationType(e) {
          if (STATEMENT, "void" === e) return "void";
          return "typed";
        }
        const returned = [computeSerializationType(typeRef), computeSerializationType('void')];
        let failure = null;
        try { computeSerializationType(undefined); } catch (error) { failure = `${error.name}: ${error.message}`; }
        console.log(JSON.stringify({ returned, failure, costly: inspected }));
    """,
    "serialization type memo": """
        const G = 'void';
        const Z = new WeakMap();
        let computed = 0;
        function computeSerializationType(e, p) {  // p: the type lookup the real one resolves names with
          computed++;
          return [{ serializationClass: e === G ? 'Void' : p.classOf(e), typeRef: e }];
        }
        STATEMENT
        const typeRef = { type: { primitive: 'string' } };
        const lookup = { classOf: (e) => `Scalar:${e.type.primitive}` };
        const returned = [typeRef, typeRef, G].map((e) => serializationType(e, lookup));
        console.log(JSON.stringify({ returned, failure: null, costly: Z.has(typeRef) ? 1 : 0, computed }));
    """,
}
"""``costly``: what the rewrite saves (the type reference inspected, the answer kept in the memo)."""


def _run_kernel(program: Path, *, channel: bool) -> Any:
    """``program`` run by Node.js, through the direct channel (as the commands run jsii's) or alone."""
    if not channel:
        return node_json(program.read_text())
    api, kernel_end = socket.socketpair()
    with api, kernel_end:
        done = subprocess.run(
            [node(), str(DIRECT_CHANNEL), str(program), str(kernel_end.fileno()), "--rewrites"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            pass_fds=(kernel_end.fileno(),),
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("index", "kernel"), list(enumerate(_KERNELS)), ids=list(_KERNELS))
def test_a_rewritten_statement_gives_what_jsii_statement_gives_without_its_cost(
    index: int, kernel: str, tmp_path: Path
) -> None:
    program = tmp_path / "program.js"
    program.write_text(_KERNELS[kernel].replace("STATEMENT", _shipped()[index]))
    as_shipped = _run_kernel(program, channel=False)
    rewritten = _run_kernel(program, channel=True)
    assert {k: v for k, v in rewritten.items() if k not in ("costly", "computed")} == {
        k: v for k, v in as_shipped.items() if k not in ("costly", "computed")
    }
    assert (as_shipped["costly"], rewritten["costly"]) == (1, 0)


def test_the_assertion_fails_with_jsii_message(tmp_path: Path) -> None:
    program = tmp_path / "program.js"
    program.write_text(_KERNELS["assertion message"].replace("STATEMENT", _shipped()[0]))
    failure = _run_kernel(program, channel=True)["failure"]
    assert failure == "AssertionError: Kernel error: expected type information, got undefined"


def test_only_the_kernel_module_is_rewritten(tmp_path: Path) -> None:
    program = tmp_path / "kernel.js"
    other = tmp_path / "other.js"
    other.write_text(_KERNELS["assertion message"].replace("STATEMENT", _shipped()[0]))
    program.write_text(f"require({json.dumps(str(other))});")
    assert _run_kernel(program, channel=True)["costly"] == 1
