"""Baseline for the synth benchmark: the smallest real CDK app, one SQS queue."""

import os

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App, Stack
from aws_cdk import aws_sqs as sqs

app = App()
stack = Stack(app, "trivial")
sqs.Queue(stack, "Queue")
app.synth()
