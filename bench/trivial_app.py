"""Baseline for the synth benchmark: the smallest real CDK app, one SQS queue (same App options as ``make synth``)."""

import os

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import Stack
from aws_cdk import aws_sqs as sqs

from stacks.app_options import new_app

app = new_app()
stack = Stack(app, "trivial")
sqs.Queue(stack, "Queue")
app.synth()
