"""Commands as users run them: every refused input is one line and exit 2, the last good output
stays byte-identical, and no command leaves files in the temp directory or processes behind."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accelerator import SWITCH
from config.load import REPO_ROOT
from tests.collector_probe import SYNTHESIS, collector_states, paused_for_imports, probed_environment

MARKER = "GPU_PLATFORM_TEST_COMMAND"
TIMEOUT_SECONDS = 120  # a command that hangs (a fork that inherits jsii's threads, say) fails, not the session
DEV = (REPO_ROOT / "environments" / "dev.yaml").read_bytes()
END = DEV.count(b"\n")  # the last line of dev.yaml


def _line_of(text: bytes) -> int:
    return DEV[: DEV.index(text)].count(b"\n") + 1


RUN = b"template: pytorch\nreplicas: 2\ngpus_per_replica: 8\nimage: example/train:1\n"


def _digest(root: Path) -> str:
    """One hash over every path under ``root``, its inode, size and modification time, and the bytes of
    each file below 1 MB: any write or replacement changes it. The asset archives (about 29 MB each)
    count by their metadata alone, which any write to them changes (hashing their bytes cost about
    2 s of CPU per test session)."""
    sha = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        sha.update(f"{path.relative_to(root)}\0{stat.st_ino}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        if path.is_file() and stat.st_size < 1 << 20:
            sha.update(path.read_bytes())
    return sha.hexdigest()


def _file_digests(root: Path) -> dict[str, str]:
    """Each file under ``root`` by its relative path, with its bytes' hash."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _survivors(token: str) -> list[int]:
    """Processes still running with this command's marker in their environment."""
    needle = f"{MARKER}={token}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if needle in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def _command(
    module: str, *args: str, temp: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m module`` with a temp directory of its own; check it leaves it empty and no process behind."""
    return _process([sys.executable, "-m", module, *args], temp=temp, env=env)


def _cdk_app(
    context: dict[str, str], outdir: Path, *, temp: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the app as the CDK CLI does (``cdk.json``'s command, ``CDK_OUTDIR``, ``CDK_CONTEXT_JSON``),
    checked as ``_command`` checks a command."""
    cdk_cli = {"CDK_OUTDIR": str(outdir), "CDK_CONTEXT_JSON": json.dumps(context)}
    python, *app = shlex.split(json.loads((REPO_ROOT / "cdk.json").read_text())["app"])
    assert python == ".venv/bin/python"  # the checkout's; the tests' own interpreter stands in (CI's copy has none)
    return _process([sys.executable, *app], temp=temp, env=(env or {}) | cdk_cli)


def _process(argv: list[str], *, temp: Path, env: dict[str, str] | None) -> subprocess.CompletedProcess[str]:
    token = uuid.uuid4().hex
    # The accelerator on, whose processes and kernels these tests count
    # (tests/accelerator/test_switch_and_fallbacks.py: both ways).
    environ = os.environ | {SWITCH: "on"} | (env or {}) | {"TMPDIR": str(temp), MARKER: token}
    result = subprocess.run(
        argv, cwd=REPO_ROOT, env=environ, capture_output=True, text=True, check=False, timeout=TIMEOUT_SECONDS
    )
    assert sorted(p.name for p in temp.iterdir()) == [], "the command left files in the temp directory"
    assert _survivors(token) == [], "a process the command started outlived it"
    return result


def _node_recorder(root: Path) -> tuple[Path, Path]:
    """A ``JSII_NODE`` that records each Node.js start, and the file it records them in."""
    started = root / "node-started"
    node = root / "node"
    node.write_text(f'#!/bin/sh\necho "$@" >> {started}\nexec node "$@"\n')
    node.chmod(0o755)
    return node, started


def _kernels_started(started: Path) -> int:
    """How many Node.js processes the recorder saw start, each of them a kernel on the direct channel
    (``accelerator/direct_channel.js``; jsii's own launcher would run ``bin/jsii-runtime.js``)."""
    starts = started.read_text().splitlines()
    assert all("/accelerator/direct_channel.js " in line for line in starts), starts
    return len(starts)


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cdk_out, self.dist, self.teams, self.temp = (root / n for n in ("cdk.out", "dist", "teams", "tmp"))
        self.collector_log = root / "collector.log"  # the good synth's (``tests/collector_probe``)

    def outputs(self) -> tuple[str, ...]:
        return ("--cdk-out", str(self.cdk_out), "--dist", str(self.dist), "--teams", str(self.teams))

    def synth(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return _command("cli.synth", *args, *self.outputs(), temp=self.temp, env=env)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """One good synth of dev: the last good output every refusal below must leave untouched."""
    space = Workspace(tmp_path_factory.mktemp("commands"))
    shutil.copytree(REPO_ROOT / "teams", space.teams)
    # A run with a setting dev cannot honour, so the renderer has a warning of its own to print.
    sweep = (REPO_ROOT / "teams" / "vision" / "detector-sweep.yaml").read_text()
    (space.teams / "vision" / "tree-sweep.yaml").write_text(sweep + "hierarchical: true\n")
    space.temp.mkdir()
    node, started = _node_recorder(space.root)
    result = space.synth("--env", "dev", env={"JSII_NODE": str(node)} | probed_environment(space.collector_log))
    assert result.returncode == 0, result.stderr
    # The synthesis's kernel, booted before the configuration imports and adopted, and the renderer's:
    # neither process's runtime had to start another.
    assert _kernels_started(started) == 2
    # The renderer's warnings come once, after everything succeeded, never from two processes at once.
    assert [line.split(": ", 2)[1] for line in result.stderr.splitlines()] == [
        "cluster_autoscaler.version",
        f"{space.teams}/vision/tree-sweep.yaml",
    ]
    return space


def _env(edit: Callable[[bytes], bytes]) -> Callable[[Workspace], list[str]]:
    def make(space: Workspace) -> list[str]:
        config = space.root / "bad.yaml"
        config.write_bytes(edit(DEV))
        return ["--config", str(config)]

    return make


def _run_file(write: Callable[[Path], None]) -> Callable[[Workspace], list[str]]:
    def make(space: Workspace) -> list[str]:
        write(space.teams / "vision" / "bad.yaml")
        return ["--env", "dev"]

    return make


ALIAS_BOMB = b"".join(
    [b"bomb0: &b0 [x, x, x, x, x, x, x, x, x, x]\n"]
    + [f"bomb{i}: &b{i} [{', '.join([f'*b{i - 1}'] * 10)}]\n".encode() for i in range(1, 9)]
)
REFUSALS: dict[str, tuple[Callable[[Workspace], list[str]], str]] = {
    "yaml syntax on the last line": (_env(lambda t: t + b"extra: [\n"), f"bad.yaml: line {END + 1}: YAML: expected"),
    "duplicate key": (
        _env(lambda t: t + b"name: again\n"),
        f"bad.yaml: line {END + 1}: name: duplicate key (first at line 2)",
    ),
    "implicit type": (
        _env(lambda t: t.replace(b"max_size: 2\n", b"max_size: 02\n", 1)),
        f"bad.yaml: line {_line_of(b'max_size: 2')}: gpu_pools[0].max_size: ambiguous YAML value (got '02')",
    ),
    "alias expansion": (_env(lambda t: t + ALIAS_BOMB), f"bad.yaml: line {END + 4}: expands to more than 10000 values"),
    "not utf-8": (
        _env(lambda t: t.replace(b"ml-platform", b"ml-pl\xe4tform")),
        f"bad.yaml: line {_line_of(b'ml-platform')}: not UTF-8 text",
    ),
    "type without coercion": (
        _env(lambda t: t.replace(b"max_size: 2\n", b"max_size: '2'\n", 1)),
        "bad.yaml: gpu_pools[0].max_size: a string where a whole number belongs (got '2')",
    ),
    "cross-field rule": (
        _env(lambda t: t.replace(b"    min_size: 2\n", b"    min_size: 3\n", 1)),
        "bad.yaml: gpu_pools[0].min_size: min_size is larger than max_size 2 (got 3)",
    ),
    "service bound": (
        _env(lambda t: t.replace(b"max_size: 2\n", b"max_size: 451\n", 1)),
        "bad.yaml: gpu_pools[0].max_size: more than the 450 nodes per managed node group AWS allows",
    ),
    "reserved tag prefix": (
        _env(lambda t: t.replace(b"  project:", b"  aws:project:")),
        "bad.yaml: tags.aws:project: the 'aws:' prefix is reserved for AWS",
    ),
    "acknowledgement missing": (
        _env(lambda t: t.replace(b"[203.0.113.0/24]", b"[0.0.0.0/0]")),
        "bad.yaml: cluster.public_access_cidrs: the API server endpoint would be open to every address",
    ),
    "run that could never schedule": (
        _run_file(lambda p: p.write_bytes(RUN.replace(b"gpus_per_replica: 8", b"gpus_per_replica: 0"))),
        "teams/vision/bad.yaml: gpus_per_replica: a pytorch run on GPU capacity that claims no GPU",
    ),
    "run file that is a symlink": (
        _run_file(lambda p: p.symlink_to("/etc/hostname")),
        "teams/vision/bad.yaml: <file>: run files and team directories may not be symlinks (got 'bad.yaml')",
    ),
    "zone that does not exist": (
        _env(
            lambda t: t.replace(
                b"availability_zones: [us-west-2a, us-west-2b]", b"availability_zones: [us-west-2a, us-west-2e]"
            )
        ),
        "bad.yaml: network.availability_zones[1]: region us-west-2 has no such Availability Zone",
    ),
    "node label kubelet refuses": (
        _env(
            lambda t: t.replace(
                b"    root_volume_gib: 500\n", b"    root_volume_gib: 500\n    labels: {kubernetes.io/team: a}\n"
            )
        ),
        "bad.yaml: gpu_pools[0].labels.kubernetes.io/team: kubelet refuses node labels in the kubernetes.io namespace",
    ),
    "control character in a run command": (
        _run_file(lambda p: p.write_bytes(RUN + b'command: ["train.py", "--lr=1\\n; curl evil"]\n')),
        "teams/vision/bad.yaml: command[1]: holds the control character U+000A",
    ),
    "run field the template ignores": (
        _run_file(lambda p: p.write_bytes(RUN + b'command: [train.py]\nreadiness_command: ["true"]\n')),
        "teams/vision/bad.yaml: readiness_command: the pytorch template never reads it",
    ),
    "run with an unknown key": (
        _run_file(lambda p: p.write_bytes(RUN + b"priority_class: system-cluster-critical\n")),
        "teams/vision/bad.yaml: priority_class: unknown key",
    ),
}


def _assert_refused(code: int, stdout: str, stderr: str, expected: str, space: Workspace, before: object) -> None:
    assert code == 2, stderr
    assert stdout == ""
    (line,) = stderr.splitlines()
    assert line.startswith("error: ") and expected in line, line
    assert "; fix: " in line
    assert "None" not in line
    assert "Traceback" not in stderr
    assert (_digest(space.cdk_out), _digest(space.dist)) == before
    assert sorted(p.name for p in space.dist.iterdir()) == ["dev"]


@pytest.mark.synth
def test_make_synth_writes_the_cloud_assembly_an_in_process_synthesis_writes(
    workspace: Workspace, synthesized: Callable[[str], dict[str, Any]]
) -> None:
    """Every file byte for byte, metadata included: nothing in it depends on the process or its temp
    folders (no recorded stack traces: ``stacks/app_options.py``)."""
    assert _file_digests(workspace.cdk_out) == _file_digests(synthesized("dev")["__outdir__"])


@pytest.mark.synth
def test_make_synth_imports_with_the_collector_off_and_builds_with_it_on(workspace: Workspace) -> None:
    """Both processes: the collector paused while each imports its jsii bindings, on with their objects
    frozen once it renders or builds (``accelerator.pause_gc_and_exit``;
    ``tests/accelerator/test_command_process.py``)."""
    assert collector_states(workspace.collector_log) == paused_for_imports(**SYNTHESIS)


@pytest.mark.synth
def test_cdk_synth_writes_the_cloud_assembly_make_synth_writes(workspace: Workspace, tmp_path: Path) -> None:
    """``cdk synth``/``diff``/``deploy`` run ``app.py`` (``cdk.json``), which renders beside the synthesis
    as ``make synth`` does: one kernel each, nothing printed (the CLI prints the CDK's warnings), the
    same files, no temp file or process left."""
    node, started = _node_recorder(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    log = tmp_path / "collector.log"
    probes = {"JSII_NODE": str(node)} | probed_environment(log)
    result = _cdk_app({"env": "dev"}, tmp_path / "cdk.out", temp=temp, env=probes)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert _kernels_started(started) == 2
    assert collector_states(log) == paused_for_imports(**SYNTHESIS)  # as make synth
    assert _file_digests(tmp_path / "cdk.out") == _file_digests(workspace.cdk_out)


@pytest.mark.synth
@pytest.mark.parametrize("case", list(REFUSALS))
def test_refused_input_is_one_line_exit_2_and_keeps_the_last_good_output(
    workspace: Workspace, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cli.synth.main`` in this process (refusals come before any synthesis, so this costs milliseconds)."""
    from cli.synth import main

    make, expected = REFUSALS[case]
    before = _digest(workspace.cdk_out), _digest(workspace.dist)
    try:
        code = main([*make(workspace), *workspace.outputs()])
    finally:
        (workspace.teams / "vision" / "bad.yaml").unlink(missing_ok=True)
    captured = capsys.readouterr()
    _assert_refused(code, captured.out, captured.err, expected, workspace, before)


@pytest.mark.synth
@pytest.mark.parametrize("switch", ["on", "off"])
@pytest.mark.parametrize("case", ["alias expansion", "run file that is a symlink"])
def test_refused_input_as_a_process_exits_2_and_leaves_nothing_behind(
    workspace: Workspace, case: str, switch: str
) -> None:
    make, expected = REFUSALS[case]
    before = _digest(workspace.cdk_out), _digest(workspace.dist)
    try:
        result = workspace.synth(*make(workspace), env={SWITCH: switch})
    finally:
        (workspace.teams / "vision" / "bad.yaml").unlink(missing_ok=True)
    _assert_refused(result.returncode, result.stdout, result.stderr, expected, workspace, before)


def test_render_and_check_leave_the_temp_directory_as_they_found_it(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    assert _command("cli.render", "--env", "dev", "--dist", str(tmp_path / "dist"), temp=temp).returncode == 0
    assert _command("cli.check", "--env", "ci", temp=temp).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"name: [\n")
    assert _command("cli.render", "--config", str(bad), temp=temp).returncode == 2


@pytest.mark.parametrize("module", ["cli.render", "cli.check", "cli.synth"])
def test_help_and_usage_errors_end_cleanly_before_node_starts(module: str, tmp_path: Path) -> None:
    """argparse ends these commands before jsii's Node.js kernel is started (``JSII_NODE`` here
    records each start)."""
    node, started = _node_recorder(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    helped = _command(module, "--help", temp=temp, env={"JSII_NODE": str(node)})
    assert (helped.returncode, helped.stderr) == (0, "")
    assert helped.stdout.startswith("usage: ")
    refused = _command(module, "--no-such-option", temp=temp, env={"JSII_NODE": str(node)})
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1].endswith("error: unrecognized arguments: --no-such-option")
    assert "Traceback" not in refused.stderr
    assert not started.exists()
    if module == "cli.check":  # the recorder sees a kernel that does start
        assert _command(module, "--env", "ci", temp=temp, env={"JSII_NODE": str(node)}).returncode == 0
        assert _kernels_started(started) == 1
    if module == "cli.synth":  # the synthesis's kernel boots while the configuration imports, before it is read
        bad = tmp_path / "bad.yaml"
        bad.write_bytes(b"name: bad\n")
        outputs = ("--cdk-out", str(tmp_path / "cdk.out"), "--dist", str(tmp_path / "dist"))
        refused = _command(module, "--config", str(bad), *outputs, temp=temp, env={"JSII_NODE": str(node)})
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr.startswith("error: ") and len(refused.stderr.splitlines()) == 1
        assert _kernels_started(started) == 1  # and stopped: nothing left (``_command``)


# A renderer for dev whose process fails at its first step (``prepare_runtime``) as argv[1] says.
_FAILING_RENDERER = """
import os, signal, sys
from cli.synth import Renderer, SynthesisFailed
from policy.environment.load import load_environment

def fail(_):
    if sys.argv[1] == "killed":
        os.kill(os.getpid(), signal.SIGKILL)
    raise OSError("node: not found")

with Renderer(load_environment(name="dev"), team_runs=[], config_file=None, prepare_runtime=fail) as renderer:
    try:
        renderer.received()
    except SynthesisFailed as failed:
        sys.exit(failed.code)
"""


@pytest.mark.parametrize(
    ("failure", "code", "line"),
    [
        (
            "killed",
            128 + 9,
            "error: rendering dev was stopped by SIGKILL; fix: run it again (the out-of-memory killer sends "
            "SIGKILL: check the machine's free memory)",
        ),
        ("raises", 1, "error: rendering dev failed: node: not found"),
    ],
)
def test_a_renderer_that_dies_or_raises_is_one_line(failure: str, code: int, line: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _FAILING_RENDERER, failure],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT_SECONDS,
    )
    assert (result.returncode, result.stderr.splitlines()) == (code, [line])


@pytest.mark.synth
@pytest.mark.parametrize("switch", ["on", "off"])
@pytest.mark.parametrize("path", ["make synth", "cdk synth"])
def test_failed_check_stops_the_synthesis_beside_it_and_leaves_nothing_behind(
    workspace: Workspace, path: str, switch: str
) -> None:
    """The renderer's deadlock check fails while aws-cdk-lib loads beside it: one line, exit 2, no
    process or temp file left, the last good output untouched (the synthesis stops when the pipe ends
    unsent); ``cdk synth``'s app writes no assembly. With the accelerator off the check fails before the
    synthesis starts: the same line, exit code and untouched output."""
    config = workspace.root / "small.yaml"
    config.write_bytes(DEV.replace(b"    min_size: 2\n    max_size: 2\n", b"    min_size: 1\n    max_size: 1\n", 1))
    before = _digest(workspace.cdk_out), _digest(workspace.dist)
    if path == "make synth":
        result = workspace.synth("--config", str(config), env={SWITCH: switch})
    else:
        outdir = workspace.root / "cdk-cli.out"
        result = _cdk_app({"config": str(config)}, outdir, temp=workspace.temp, env={SWITCH: switch})
        assert not outdir.exists() or not any(outdir.iterdir())
    _assert_refused(
        result.returncode,
        result.stdout,
        result.stderr,
        "small.yaml: gpu_pools[0].max_size: the gang of ",  # the run file: under --teams, or teams/ for cdk synth
        workspace,
        before,
    )
