"""The CDK ``App`` every synthesis path builds (``make synth``, ``cdk synth`` through ``cdk.json``, tests).

aws-cdk-lib's built-in CloudFormation validator is off. It costs about 2 s of every synth and
reports its findings only as warnings; the gate lints every example environment's templates
with the pinned cfn-lint at error level instead (and ``make cfn-lint`` lints any ``cdk.out/``).
Both CLI paths build the App here, so they write the same templates and the same warnings.

No stack traces are recorded in the assembly's metadata. From Python they never reach user code
(jsii's kernel runs the constructs: every trace reads "no user code in 10 frames"), and the frames
they do hold name the kernel's temp folders, so two synths of the same input wrote different
``*.metadata.json``. Without them the whole ``cdk.out/`` is byte-identical from run to run.
``CDK_DEBUG=true`` (aws-cdk-lib's debug mode) records the constructs' creation traces again; the
CDK CLI refuses ``-c`` keys under ``aws:``, so these cannot be switched back from its command line.
"""

from __future__ import annotations

from aws_cdk import App

_NO_STACK_TRACES = {"aws:cdk:disable-stack-trace": True, "aws:cdk:disable-creation-stack-traces": True}
"""aws-cdk-lib's ``cx_api.DISABLE_METADATA_STACK_TRACE`` and ``DISABLE_CREATION_STACK_TRACES``."""


def new_app(*, outdir: str | None = None) -> App:
    """An ``App`` writing to ``outdir`` (default: the CDK CLI's ``CDK_OUTDIR`` or ``cdk.out``)."""
    return App(outdir=outdir, builtin_cloud_formation_validation=False, context=dict(_NO_STACK_TRACES))
