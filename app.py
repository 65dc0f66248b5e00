#!/usr/bin/env python3
"""Composition root for the CDK CLI (``cdk.json``): read the environment, build its stacks, synthesize.

Select an environment with ``-c env=<name>`` (``environments/<name>.yaml``) or any file
with ``-c config=<path>``; the default is ``dev``. Bad configuration stops here with one
line on stderr and exit code 2, before any construct exists.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

if __name__ == "__main__":  # Node.js boots while the configuration imports (the loads follow once it is good)
    from accelerator.runtime import start_kernel_early

    start_kernel_early()

from config.errors import ConfigError
from config.model import EnvironmentConfig
from policy.environment.load import load_environment


def main(
    *,
    preload: Callable[[Sequence[str]], None] = lambda _: None,
    prepare_runtime: Callable[[Sequence[str]], None] = lambda _: None,
) -> int:
    """Synthesize the environment the CDK CLI's context names into its ``CDK_OUTDIR``, the way
    ``make synth`` does (``cli.synth``): the platform YAML renders and is checked (in a forked process
    while this one loads aws-cdk-lib, with the accelerator on), and the stacks deploy what it sends. ``preload`` and
    ``prepare_runtime``: as for ``cli.synth.main``. The warnings are the CDK's, which the CLI prints."""
    from cli.cdk_context import cli_context
    from cli.synth import SynthesisFailed, synthesize_beside
    from policy.environment.teams import load_team_runs

    try:
        context = cli_context()  # read without aws-cdk-lib: nothing that starts a thread runs before the fork
        env = _environment(context.get("env"), context.get("config"))
        env = _for_run(env, context.get("run_id"), context.get("admin_arn"))
        team_runs = load_team_runs(env)  # a bad run file fails before any synthesis
    except ConfigError as error:
        return error.report()
    try:
        config_file = _text(context.get("config"))
        synthesize_beside(
            env, None, team_runs=team_runs, config_file=config_file, preload=preload, prepare_runtime=prepare_runtime
        )
    except SynthesisFailed as failed:
        return failed.code
    return 0


def _environment(name: object, path: object) -> EnvironmentConfig:
    return load_environment(name=_text(name), path=_text(path))


def _for_run(env: EnvironmentConfig, run_id: object, admin_arn: object) -> EnvironmentConfig:
    """``-c run_id=<id>`` (and ``-c admin_arn=<arn,...>``) select a run's copy of an ephemeral environment.

    This is the deploy path, so an ephemeral environment without a run id is refused
    (``policy/environment/runs.py``); the offline ``make synth`` renders the template without one.
    """
    from policy.environment.runs import for_run, require_run_id

    run = str(run_id) if run_id else None
    require_run_id(env, run)
    admins = tuple(a for a in str(admin_arn).split(",") if a) if admin_arn else ()
    return for_run(env, run_id=run, admin_arns=admins)


def _text(value: object) -> str | None:
    return str(value) if value else None


if __name__ == "__main__":
    from accelerator.pause_gc_and_exit import run_command
    from accelerator.runtime import start_command_runtime

    run_command(lambda: main(preload=start_kernel_early, prepare_runtime=start_command_runtime))
