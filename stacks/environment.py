"""Every stack of one environment, added to a CDK ``App`` with the cdk-nag checks: what each
synthesis path builds (``make synth``, ``cdk synth`` through ``app.py``, the tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_cdk import App

from stacks.cluster_stack import GpuClusterStack, stack_name
from stacks.nag import apply_nag

if TYPE_CHECKING:
    from charts.deployed import DeployedObjects
    from config.model import EnvironmentConfig


def add_environment_stacks(app: App, env: EnvironmentConfig, objects: DeployedObjects | None = None) -> None:
    """``objects``: what the stacks deploy, rendered and checked by the caller (the commands render in
    a process of their own); otherwise rendered here, and the gate and deadlock checks refuse a
    broken environment before any stack exists."""
    if objects is None:
        from charts.render import render_checked

        objects = render_checked(env).deployed()
    cluster = GpuClusterStack(app, stack_name(env), env=env, objects=objects)
    apply_nag(app, [cluster])
