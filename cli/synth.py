"""``make synth``: validate the environment, then write ``cdk.out/`` and ``dist/<env>/``.

The platform YAML (with every gate and deadlock check) renders in a forked process while
this one loads aws-cdk-lib, so the two use both cores. The renderer sends the objects the
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
import multiprocessing.process
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
    from cli.jsii_runtime import start_kernel_early

    synth_args.parse_args(description=__doc__)  # --help and usage errors end here, before Node.js starts
    start_kernel_early()

import charts
import stacks
from cli.output import replace_dir_on_success, swap_in
from cli.warm import exit_now, imports_loaded, run_command
from config import ConfigError, EnvironmentConfig, load_environment
from config.load import REPO_ROOT

if TYPE_CHECKING:
    from charts.deployed import DeployedObjects
    from config.teams import TeamRun


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line with the checkout's paths filled in."""
    args = synth_args.parse_args(argv, description=__doc__)
    args.cdk_out = args.cdk_out or str(REPO_ROOT / "cdk.out")
    args.dist = args.dist or str(REPO_ROOT / "dist")
    args.teams = args.teams or str(REPO_ROOT / "teams")
    return args


def load(args: argparse.Namespace) -> EnvironmentConfig:
    from config.runs import for_run

    env = load_environment(name=args.env or None, path=args.config or None)
    return for_run(env, run_id=args.run_id or None, admin_arns=tuple(args.admin_arn))


def synth_cloudformation(env: EnvironmentConfig, outdir: Path, objects: DeployedObjects | None = None) -> list[str]:
    """Synthesize ``env``'s stacks into ``outdir`` (``objects``: rendered and checked already).

    Returns the CDK's warnings as ``warning:`` lines (``cli.cdk_messages``), for the caller to print
    once everything succeeded: a failed synth stays one line.
    """
    from app import build
    from cli.cdk_messages import cdk_warnings
    from stacks.app_options import new_app

    app = new_app(outdir=str(outdir))
    build(app, env, objects)
    return cdk_warnings(app.synth())


def _load_cdk() -> None:
    """Import aws-cdk-lib and the stacks, most of the synthesis's fixed cost, while the renderer renders."""
    import app  # noqa: F401
    import stacks.cluster_stack
    import stacks.nag  # noqa: F401


def _render_dist(
    env: EnvironmentConfig,
    config_file: str | None,
    teams_dir: Path,
    team_runs: list[TeamRun],
    staging_root: Path,
    deployed: connection.Connection,
    prepare_runtime: Callable[[Sequence[str]], None],
) -> None:
    """Child process: render and check, send the parent what its stacks deploy and the warnings to
    print once everything succeeded, then write ``staging_root/<env>``; the exit code is the verdict."""
    prepare_runtime(charts.JSII_MODULES)
    from charts.render import render_checked
    from cli.render import note_lines, write_dist

    imports_loaded()

    # Stopped early (the CloudFormation side failed): stop this process's jsii runtime too.
    signal.signal(signal.SIGTERM, lambda *_: exit_now(1))
    try:
        rendered = render_checked(env, team_runs=team_runs, config_file=config_file)
    except ConfigError as error:
        exit_now(error.report())
    # The configuration's warnings read every shipped environment: here, off the synthesis's path.
    warnings = [*configuration_warnings(env, teams_dir), *note_lines(rendered)]
    deployed.send(_Rendered(rendered.deployed(), warnings))
    deployed.close()
    write_dist(env, staging_root, rendered)
    exit_now(0)


@dataclass(frozen=True)
class _Rendered:
    """What the renderer sends the synthesis."""

    objects: DeployedObjects
    warnings: list[str]
    """The configuration's and the render's ``warning:`` lines, printed once everything succeeded."""


def _received(deployed: connection.Connection, renderer: multiprocessing.process.BaseProcess) -> _Rendered:
    """What the renderer sent; a renderer that ended without sending has reported why (its exit code)."""
    try:
        sent: _Rendered = deployed.recv()
    except EOFError:
        renderer.join()
        raise _RenderFailed(renderer.exitcode or 1) from None
    return sent


def configuration_warnings(env: EnvironmentConfig, teams_dir: Path) -> list[str]:
    """A ``warning:`` line per acknowledged risk in use and per team directory no environment names.

    The stacks add the acknowledged risks as CDK warnings too (for ``cdk synth``);
    ``cli.cdk_messages`` leaves those out, so each is printed once.
    """
    from config.teams import unnamed_team_directories
    from policy.acknowledgements import acknowledged_risks

    risks = [risk.text for risk in acknowledged_risks(env)]
    return [f"warning: {line}" for line in [*risks, *unnamed_team_directories(env, teams_dir=teams_dir)]]


class _RenderFailed(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


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
        from config.teams import load_team_runs

        team_runs = load_team_runs(env, teams_dir=Path(args.teams))  # a bad run file fails before any synthesis
    except ConfigError as error:
        return error.report()
    dist_root = Path(args.dist)
    dist_root.mkdir(parents=True, exist_ok=True)
    preload(stacks.JSII_MODULES)
    with tempfile.TemporaryDirectory(prefix=".render-", dir=dist_root) as staging_root:
        # Forked before either side imports jsii (no runtime or thread to inherit; the synthesis's
        # early kernel is this process's alone): each side then starts its own runtime, and only the
        # renderer's loads cdk8s.
        context = multiprocessing.get_context("fork")
        received, deployed = context.Pipe(duplex=False)
        renderer = context.Process(
            target=_render_dist,
            args=(env, args.config or None, Path(args.teams), team_runs, Path(staging_root), deployed, prepare_runtime),
        )
        renderer.start()
        deployed.close()  # the renderer's end: receiving sees the end of it if the renderer stops first
        prepare_runtime(stacks.JSII_MODULES)
        try:
            with replace_dir_on_success(Path(args.cdk_out)) as staging:
                _load_cdk()
                imports_loaded()
                rendered = _received(received, renderer)
                cdk = synth_cloudformation(env, staging, rendered.objects)
                warnings = [*rendered.warnings, *cdk]  # printed once everything succeeded: a failure stays one line
                renderer.join()
                if renderer.exitcode != 0:  # the renderer already printed its one-line error
                    raise _RenderFailed(renderer.exitcode or 1)
        except _RenderFailed as failed:
            return failed.code
        except ConfigError as error:
            return error.report()
        except Exception as error:  # jsii reports synthesis failures (cdk-nag, validation) as runtime errors
            print(f"error: synthesis of {env.name} failed: {_first_line(error)}", file=sys.stderr)
            return 1
        finally:
            if renderer.is_alive():
                renderer.terminate()
            renderer.join()
            received.close()
        swap_in(Path(staging_root) / env.name, dist_root / env.name)
    for line in warnings:
        print(line, file=sys.stderr)
    print(f"synthesized {env.name}: {args.cdk_out} and {Path(args.dist) / env.name}")
    return 0


if __name__ == "__main__":
    from cli.jsii_runtime import start_command_runtime

    run_command(lambda: main(preload=start_kernel_early, prepare_runtime=start_command_runtime))
