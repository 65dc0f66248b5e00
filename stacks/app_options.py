"""The CDK ``App`` every synthesis path builds (``make synth``, ``cdk synth`` through ``cdk.json``, tests).

aws-cdk-lib's built-in CloudFormation validator is off. It costs about 2 s of every synth and
reports its findings only as warnings; the gate lints every example environment's templates
with the pinned cfn-lint at error level instead (and ``make cfn-lint`` lints any ``cdk.out/``).
Both CLI paths build the App here, so they write the same templates and the same warnings.
"""

from __future__ import annotations

from aws_cdk import App


def new_app(*, outdir: str | None = None) -> App:
    """An ``App`` writing to ``outdir`` (default: the CDK CLI's ``CDK_OUTDIR`` or ``cdk.out``)."""
    return App(outdir=outdir, builtin_cloud_formation_validation=False)
