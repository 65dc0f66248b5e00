#!/usr/bin/env python3
"""Composition root: read the environment, build its stacks, synthesize.

Select an environment with ``-c env=<name>`` (``environments/<name>.yaml``) or any file
with ``-c config=<path>``; the default is ``dev``. Bad configuration stops here with one
line on stderr and exit code 2, before any construct exists.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

if __name__ == "__main__":  # the kernel loads its assemblies while the configuration imports
    import charts
    import stacks
    from cli.jsii_runtime import start_kernel_early

    start_kernel_early((*stacks.JSII_MODULES, *charts.JSII_MODULES))  # in the order main imports them

from config import ConfigError, EnvironmentConfig, load_environment

if TYPE_CHECKING:
    from charts.deployed import DeployedObjects


def main() -> int:
    from stacks.app_options import new_app

    app = new_app()
    try:
        env = _environment(app.node.try_get_context("env"), app.node.try_get_context("config"))
        env = _for_run(env, app.node.try_get_context("run_id"), app.node.try_get_context("admin_arn"))
    except ConfigError as error:
        return error.report()
    try:
        build(app, env, config_file=_text(app.node.try_get_context("config")))
    except ConfigError as error:
        return error.report()
    app.synth()
    return 0


def _environment(name: object, path: object) -> EnvironmentConfig:
    return load_environment(name=_text(name), path=_text(path))


def _for_run(env: EnvironmentConfig, run_id: object, admin_arn: object) -> EnvironmentConfig:
    """``-c run_id=<id>`` (and ``-c admin_arn=<arn,...>``) select a run's copy of an ephemeral environment.

    This is the deploy path, so an ephemeral environment without a run id is refused
    (``config/runs.py``); the offline ``make synth`` renders the template without one.
    """
    from config.runs import for_run, require_run_id

    run = str(run_id) if run_id else None
    require_run_id(env, run)
    admins = tuple(a for a in str(admin_arn).split(",") if a) if admin_arn else ()
    return for_run(env, run_id=run, admin_arns=admins)


def _text(value: object) -> str | None:
    return str(value) if value else None


def build(
    app: object, env: EnvironmentConfig, objects: DeployedObjects | None = None, *, config_file: str | None = None
) -> None:
    """Add every stack of ``env`` to ``app`` and attach the cdk-nag checks.

    ``objects`` are the rendered objects the stacks deploy when the caller renders and checks
    the platform YAML itself (``make synth``); otherwise they are rendered here, and the gate and
    deadlock checks refuse a broken environment before any stack exists (``config_file``: the
    environment's file when it was given by path, for the report command the refusal names).
    """
    from aws_cdk import App

    from stacks.cluster_stack import GpuClusterStack, stack_name
    from stacks.nag import apply_nag

    assert isinstance(app, App)
    if objects is None:
        from charts.render import render_checked

        objects = render_checked(env, config_file=config_file).deployed()
    cluster = GpuClusterStack(app, stack_name(env), env=env, objects=objects)
    apply_nag(app, [cluster])


if __name__ == "__main__":
    from cli.jsii_runtime import start_command_runtime

    start_command_runtime()  # the direct channel to the kernel started above, and the fast path
    sys.exit(main())
