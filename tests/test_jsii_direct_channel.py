"""The commands' channel to jsii's kernel (``cli.jsii_runtime.use_direct_channel``): the kernel runs in
the Node.js process Python starts, with no relay process, and gives the same output as jsii's own
launcher."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cli.jsii_runtime import DIRECT_CHANNEL
from config.load import REPO_ROOT

_FAKE_KERNEL = """
const fs = require('fs');
const request = Buffer.alloc(64);
const size = fs.readSync(3, request, 0, request.length, null);
console.log('from console.log');
process.stderr.write('from process.stderr\\n');
fs.writeSync(2, Buffer.from('--an error line\\n'), 2);
fs.writeSync(3, JSON.stringify({ ok: request.subarray(0, size).toString().trim() }) + '\\n');
"""


def test_the_kernel_talks_on_stdio_and_its_console_output_reaches_the_stderr_reader(tmp_path: Path) -> None:
    kernel = tmp_path / "kernel.js"
    kernel.write_text(_FAKE_KERNEL)
    node = shutil.which("node")
    assert node is not None
    result = subprocess.run(
        [node, str(DIRECT_CHANNEL), str(kernel)], input=b"hello\n", capture_output=True, timeout=30, check=True
    )
    assert result.stdout == b'{"ok":"hello"}\n'  # API responses only
    forwarded = [json.loads(line) for line in result.stderr.splitlines()]  # what jsii's stderr_sink decodes
    assert [(stream, base64.b64decode(text)) for entry in forwarded for stream, text in entry.items()] == [
        ("stdout", b"from console.log\n"),
        ("stderr", b"from process.stderr\n"),
        ("stderr", b"an error line\n"),
    ]


_RENDER = """
import json, os, sys
from pathlib import Path
from cli.jsii_runtime import skip_argument_type_checks, use_direct_channel
if sys.argv[1] == "direct":
    use_direct_channel()
skip_argument_type_checks()  # both sides as the commands render (tests/test_jsii_fast_path.py compares paths)
from charts.render import output_files, render_checked
from config import load_environment

env = load_environment(name="dev")
files = output_files(env, render_checked(env))
def children(pid):
    return [p for p in Path("/proc").iterdir() if p.name.isdigit() and (p / "stat").read_text().split()[3] == str(pid)]
(node,) = [p for p in children(os.getpid()) if b"node" in (p / "cmdline").read_bytes()]
relays = children(node.name)
print(json.dumps({"argv": (node / "cmdline").read_text().split("\\0")[:-1], "children": len(relays)}))
for name, text in sorted(files.items()):
    print(name)
    print(text)
"""


def _render(channel: str) -> tuple[dict[str, Any], str]:
    env = os.environ | {"PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_RENDER), channel],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    first, _, files = result.stdout.partition("\n")
    return json.loads(first), files


@pytest.mark.synth
def test_direct_channel_renders_what_jsii_launcher_renders_without_its_relay_process() -> None:
    launcher, launcher_files = _render("launcher")
    direct, direct_files = _render("direct")
    assert direct_files == launcher_files
    assert launcher["argv"][-1].endswith("/bin/jsii-runtime.js") and launcher["children"] == 1  # the relay
    *_, preserve, channel, kernel = direct["argv"]
    assert (preserve, channel) == ("--preserve-symlinks", str(DIRECT_CHANNEL))
    assert kernel.endswith("/lib/program.js") and direct["children"] == 0
