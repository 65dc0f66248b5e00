"""``make synth``: validate the environment, then write ``cdk.out/`` and ``dist/<env>/``.

The platform YAML (with every gate and deadlock check) renders in a forked process while
this one loads aws-cdk-lib, so the two use both cores (the accelerator's ``parallel-synth``; without
it, or without ``os.fork``, the same steps run one after the other in this process). The renderer sends the objects the
stacks deploy and its warnings through a pipe, so this process never loads cdk8s, then writes
``dist/``; a renderer that fails closes the pipe unsent, and this process stops before building
any stack.
Both outputs are staged and swapped in only when both succeeded: a bad configuration, a
failed check or a failed synthesis leaves the last good output untouched, and is one line.

The synthesis's jsii kernel boots first thing, while this process imports the configuration,
and gets its assemblies' loads once the input is good, before the fork: it has loaded aws-cdk-lib
by the time this process imports it. The renderer starts its own kernel.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import connection
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from cli import synth_args

if __name__ == "__main__":  # before the configuration's imports (both import only the standard library)
    from accelerator.runtime import start_kernel_early

    synth_args.parse_args(description=__doc__)  # --help and usage errors end here, before Node.js starts
    start_kernel_early()

import accelerator
import charts
import stacks
from accelerator.pause_gc_and_exit import exit_now, imports_loaded, run_command
from cli.output import replace_dir_on_success, swap_in
from cli.render import note_lines, write_dist
from config.errors import ConfigError
from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from policy.environment.load import load_environment

if TYPE_CHECKING:
    from charts.deployed import DeployedObjects
    from charts.render import RenderedEnvironment
    from config.platform import TeamRun


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line with the checkout's paths filled in."""
    args = synth_args.parse_args(argv, description=__doc__)
    args.cdk_out = args.cdk_out or str(REPO_ROOT / "cdk.out")
    args.dist = args.dist or str(REPO_ROOT / "dist")
    args.teams = args.teams or str(REPO_ROOT / "teams")
    return args


def load(args: argparse.Namespace) -> EnvironmentConfig:
    from policy.environment.runs import for_run

    env = load_environment(name=args.env or None, path=args.config or None)
    return for_run(env, run_id=args.run_id or None, admin_arns=tuple(args.admin_arn))


def synth_cloudformation(
    env: EnvironmentConfig, outdir: Path | None, objects: DeployedObjects | None = None
) -> list[str]:
    """Synthesize ``env``'s stacks into ``outdir`` (``None``: the CDK CLI's ``CDK_OUTDIR``; ``objects``:
    rendered and checked already).

    Returns the CDK's warnings as ``warning:`` lines (``cli.cdk_messages``), for the caller to print
    once everything succeeded: a failed synth stays one line.
    """
    from cli.cdk_messages import cdk_warnings
    from stacks.app_options import new_app
    from stacks.environment import add_environment_stacks

    app = new_app(outdir=None if outdir is None else str(outdir))
    add_environment_stacks(app, env, objects)
    return cdk_warnings(app.synth())


def _load_cdk() -> None:
    """Import aws-cdk-lib and the stacks, most of the synthesis's fixed cost, while the renderer renders."""
    import stacks.app_options
    import stacks.environment  # noqa: F401


class Renderer:
    """The platform YAML rendered and checked in a forked process while this one loads aws-cdk-lib.

    Forked before either side imports jsii (no runtime or thread to inherit; the synthesis's early
    kernel is this process's alone): each side then starts its own runtime, and only the renderer's
    loads cdk8s. The renderer sends what the stacks deploy and its ``warnings`` through a pipe, then
    runs ``write`` (``dist/``'s staging); its exit code is the verdict. A renderer that fails has
    printed its one-line error and closes the pipe unsent, so the synthesis stops before building
    any stack.
    """

    def __init__(
        self,
        env: EnvironmentConfig,
        *,
        team_runs: list[TeamRun],
        config_file: str | None,
        prepare_runtime: Callable[[Sequence[str]], None],
        warnings: Callable[[RenderedEnvironment], list[str]] = lambda _: [],
        write: Callable[[RenderedEnvironment], object] = lambda _: None,
    ) -> None:
        """``config_file``: the environment's file when it was given by path, for the report command a
        refusal names."""
        if "jsii" in sys.modules:  # its runtime's threads and pipes do not survive a fork: the child would hang
            raise RuntimeError("the renderer must be forked before jsii is imported")
        self._env = env.name
        context = multiprocessing.get_context("fork")
        self._pipe, deployed = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_render, args=(env, team_runs, config_file, deployed, prepare_runtime, warnings, write)
        )
        self._process.start()
        deployed.close()  # the renderer's end: receiving sees the end of it if the renderer stops first

    def received(self) -> _Rendered:
        """What the renderer sent; a renderer that ended without sending has reported why (its exit code)."""
        try:
            sent: _Rendered = self._pipe.recv()
        except EOFError:
            self._process.join()
            raise SynthesisFailed(self._failure()) from None
        return sent

    def succeeded(self) -> None:
        """Wait for the renderer's ``write``; one that failed there has printed its one-line error."""
        self._process.join()
        if self._process.exitcode != 0:
            raise SynthesisFailed(self._failure())

    def _failure(self) -> int:
        """The exit code of a renderer that failed; one a signal ended (the out-of-memory killer, say)
        printed nothing, so its one line is printed here."""
        code = self._process.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            print(
                f"error: rendering {self._env} was stopped by {name}; fix: run it again (the out-of-memory "
                "killer sends SIGKILL: check the machine's free memory)",
                file=sys.stderr,
            )
            return 128 - code
        return code or 1

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *_: object) -> None:
        """Stop the renderer (if it still runs: the synthesis failed) and close the pipe."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._pipe.close()


def _render(
    env: EnvironmentConfig,
    team_runs: list[TeamRun],
    config_file: str | None,
    deployed: connection.Connection,
    prepare_runtime: Callable[[Sequence[str]], None],
    warnings: Callable[[RenderedEnvironment], list[str]],
    write: Callable[[RenderedEnvironment], object],
) -> None:
    """The renderer's process (``Renderer``)."""
    # Stopped early (the CloudFormation side failed): stop this process's jsii runtime too.
    signal.signal(signal.SIGTERM, lambda *_: exit_now(1))
    try:
        prepare_runtime(charts.JSII_MODULES)
        from charts.render import render_checked

        imports_loaded()
        rendered = render_checked(env, team_runs=team_runs, config_file=config_file)
        deployed.send(_Rendered(rendered.deployed(), warnings(rendered)))
        deployed.close()
        write(rendered)
    except ConfigError as error:
        exit_now(error.report())
    except Exception as error:  # one line, as for the synthesis, not multiprocessing's traceback
        print(f"error: rendering {env.name} failed: {_first_line(error)}", file=sys.stderr)
        exit_now(1)
    exit_now(0)


@dataclass(frozen=True)
class _Rendered:
    """What the renderer sends the synthesis."""

    objects: DeployedObjects
    warnings: list[str]
    """``warning:`` lines, printed once everything succeeded."""


class SynthesisFailed(Exception):
    """A failed synthesis, reported already as one line; ``code`` is the exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def synthesize_beside(
    env: EnvironmentConfig,
    outdir: Path | None,
    *,
    team_runs: list[TeamRun],
    config_file: str | None,
    preload: Callable[[Sequence[str]], None] = lambda _: None,
    prepare_runtime: Callable[[Sequence[str]], None] = lambda _: None,
    warnings: Callable[[RenderedEnvironment], list[str]] = lambda _: [],
    write: Callable[[RenderedEnvironment], object] = lambda _: None,
) -> list[str]:
    """Synthesize ``env``'s stacks into ``outdir`` (``None``: the CDK CLI's ``CDK_OUTDIR``), loading
    aws-cdk-lib while a ``Renderer`` forked first renders and checks the objects they deploy; return
    its ``warnings`` and the CDK's once both succeeded (``write``: the renderer's last step). A
    failure of either is one line on stderr, raised as ``SynthesisFailed``. ``preload`` and
    ``prepare_runtime``: as for ``main``."""
    if not _render_beside():
        return _synthesize_after_rendering(
            env,
            outdir,
            team_runs=team_runs,
            config_file=config_file,
            preload=preload,
            prepare_runtime=prepare_runtime,
            warnings=warnings,
            write=write,
        )
    preload(stacks.JSII_MODULES)
    with Renderer(
        env,
        team_runs=team_runs,
        config_file=config_file,
        prepare_runtime=prepare_runtime,
        warnings=warnings,
        write=write,
    ) as renderer:
        try:
            prepare_runtime(stacks.JSII_MODULES)
            _load_cdk()
            imports_loaded()
            rendered = renderer.received()
            cdk = synth_cloudformation(env, outdir, rendered.objects)
            renderer.succeeded()
        except SynthesisFailed:
            raise
        except ConfigError as error:
            raise SynthesisFailed(error.report()) from None
        except Exception as error:  # jsii reports synthesis failures (cdk-nag, validation) as runtime errors
            print(f"error: synthesis of {env.name} failed: {_first_line(error)}", file=sys.stderr)
            raise SynthesisFailed(1) from None
    return [*rendered.warnings, *cdk]


def _render_beside() -> bool:
    """Whether the renderer forks (part ``parallel-synth``): only before jsii is imported (its runtime's
    threads and pipes do not survive a fork), where ``os.fork`` exists, and for the jsii release whose
    runtime the renderer knows how to stop (``accelerator.pause_gc_and_exit.exit_now``)."""
    from accelerator.runtime import pinned_release

    if not accelerator.uses("parallel-synth") or "jsii" in sys.modules:
        return False
    if not hasattr(os, "fork"):
        accelerator.does_not_apply("parallel-synth", "this platform", "os.fork is missing")
        return False
    return pinned_release("parallel-synth")


def _synthesize_after_rendering(
    env: EnvironmentConfig,
    outdir: Path | None,
    *,
    team_runs: list[TeamRun],
    config_file: str | None,
    preload: Callable[[Sequence[str]], None],
    prepare_runtime: Callable[[Sequence[str]], None],
    warnings: Callable[[RenderedEnvironment], list[str]],
    write: Callable[[RenderedEnvironment], object],
) -> list[str]:
    """``synthesize_beside``'s steps one after the other in this process (one jsii runtime, no fork),
    each failure reported as the two processes report it."""
    modules = (*charts.JSII_MODULES, *stacks.JSII_MODULES)
    preload(modules)
    try:
        prepare_runtime(modules)
        from charts.render import render_checked

        rendered = render_checked(env, team_runs=team_runs, config_file=config_file)
        rendered_warnings = warnings(rendered)
        write(rendered)
    except ConfigError as error:
        raise SynthesisFailed(error.report()) from None
    except Exception as error:  # one line, as the renderer's
        print(f"error: rendering {env.name} failed: {_first_line(error)}", file=sys.stderr)
        raise SynthesisFailed(1) from None
    try:
        _load_cdk()
        imports_loaded()
        cdk = synth_cloudformation(env, outdir, rendered.deployed())
    except ConfigError as error:
        raise SynthesisFailed(error.report()) from None
    except Exception as error:  # jsii reports synthesis failures (cdk-nag, validation) as runtime errors
        print(f"error: synthesis of {env.name} failed: {_first_line(error)}", file=sys.stderr)
        raise SynthesisFailed(1) from None
    return [*rendered_warnings, *cdk]


def configuration_warnings(env: EnvironmentConfig, teams_dir: Path) -> list[str]:
    """A ``warning:`` line per acknowledged risk in use and per team directory no environment names.

    The stacks add the acknowledged risks as CDK warnings too (for ``cdk synth``);
    ``cli.cdk_messages`` leaves those out, so each is printed once.
    """
    from policy.environment.acknowledgements import acknowledged_risks
    from policy.environment.teams import unnamed_team_directories

    risks = [risk.text for risk in acknowledged_risks(env)]
    return [f"warning: {line}" for line in [*risks, *unnamed_team_directories(env, teams_dir=teams_dir)]]


def node_replacement_lines(env: EnvironmentConfig, *, before: Path, after: Path) -> list[str]:
    """``warning:`` lines for static GPU pools whose nodes the templates in ``after`` replace, against the
    last synthesis in ``before`` (``policy.infrastructure.node_replacement``); nothing on a first synthesis."""
    import json

    from policy.infrastructure.node_replacement import replacement_warnings

    lines = []
    for new in sorted(after.glob("*.template.json")):
        old = before / new.name
        if old.is_file():
            templates = [json.loads(f.read_text(encoding="utf-8")) for f in (old, new)]
            lines += replacement_warnings(env, before=templates[0], after=templates[1])
    return [f"warning: {line}" for line in lines]


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def main(
    argv: list[str] | None = None,
    *,
    preload: Callable[[Sequence[str]], None] = lambda _: None,
    prepare_runtime: Callable[[Sequence[str]], None] = lambda _: None,
) -> int:
    """``preload(assemblies)``: run once the input is good, before the fork, with the Python modules
    whose jsii assemblies the synthesis loads (it imports neither jsii nor Node.js's output
    threads, so the renderer forks clean); ``prepare_runtime(assemblies)``: run by each of the two
    processes before it starts its jsii runtime, with the modules that process loads."""
    args = parse_args(argv)
    try:
        env = load(args)
        from policy.environment.teams import load_team_runs

        team_runs = load_team_runs(env, teams_dir=Path(args.teams))  # a bad run file fails before any synthesis
    except ConfigError as error:
        return error.report()
    dist_root = Path(args.dist)
    dist_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".render-", dir=dist_root) as staging_root:
        try:
            with replace_dir_on_success(Path(args.cdk_out)) as staging:
                warnings = synthesize_beside(
                    env,
                    staging,
                    team_runs=team_runs,
                    config_file=args.config or None,
                    preload=preload,
                    prepare_runtime=prepare_runtime,
                    # The configuration's warnings read every shipped environment: in the renderer, off
                    # the synthesis's path.
                    warnings=lambda rendered: [*configuration_warnings(env, Path(args.teams)), *note_lines(rendered)],
                    write=lambda rendered: write_dist(env, Path(staging_root), rendered),
                )
                warnings += node_replacement_lines(env, before=Path(args.cdk_out), after=staging)
        except SynthesisFailed as failed:
            return failed.code
        swap_in(Path(staging_root) / env.name, dist_root / env.name)
    for line in warnings:
        print(line, file=sys.stderr)
    print(f"synthesized {env.name}: {args.cdk_out} and {Path(args.dist) / env.name}")
    return 0


if __name__ == "__main__":
    from accelerator.runtime import start_command_runtime

    run_command(lambda: main(preload=start_kernel_early, prepare_runtime=start_command_runtime))
