"""Time to live for an ephemeral environment's stack: a tag, and optionally a self-deleting clean-up.

The pipeline destroys its cluster itself (``if: always()``); this is the backstop for
runs that never got that far (a cancelled job, a lost runner).
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration, RemovalPolicy, Stack, Tags
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from config.ephemeral import EphemeralConfig
from policy.environment.runs import TTL_TAG

HANDLER_SOURCE = Path(__file__).with_name("stack_ttl_handler.py")
CHECK_EVERY = Duration.minutes(15)


class StackTimeToLive(Construct):
    """Tags the stack ``ttl-hours`` and, with ``cleanup``, deletes it once it is older than that.

    Every 15 minutes an EventBridge rule runs a small Lambda (inline code from
    ``stack_ttl_handler.py``) that compares the stack's CreationTime with ``ttl_hours`` and
    calls DeleteStack. Its role may only describe and delete this one stack and write its
    own log group; CloudFormation deletes with the role the stack was deployed with.
    """

    def __init__(self, scope: Construct, construct_id: str, *, ephemeral: EphemeralConfig) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        Tags.of(stack).add(TTL_TAG, str(ephemeral.ttl_hours))
        if not ephemeral.cleanup:
            return
        log_group = logs.LogGroup(
            self, "Logs", retention=logs.RetentionDays.ONE_WEEK, removal_policy=RemovalPolicy.DESTROY
        )
        role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Deletes {stack.stack_name} once it is older than {ephemeral.ttl_hours} hours",
            inline_policies={
                "DeleteOwnStack": iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(
                            actions=["cloudformation:DescribeStacks", "cloudformation:DeleteStack"],
                            resources=[stack.stack_id],
                        ),
                        iam.PolicyStatement(
                            actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                            resources=[log_group.log_group_arn],
                        ),
                    ]
                )
            },
        )
        self.function = lambda_.Function(
            self,
            "Function",
            runtime=lambda_.Runtime.PYTHON_3_14,
            handler="index.handler",
            code=lambda_.Code.from_inline(HANDLER_SOURCE.read_text(encoding="utf-8")),
            description=f"Deletes this stack {ephemeral.ttl_hours} hours after it was created",
            environment={"STACK_ID": stack.stack_id, "TTL_HOURS": str(ephemeral.ttl_hours)},
            timeout=Duration.seconds(30),
            memory_size=128,
            role=role,
            log_group=log_group,
        )
        self.rule = events.Rule(
            self,
            "Schedule",
            description=f"Checks every {CHECK_EVERY.to_minutes()} minutes whether this stack outlived its TTL",
            schedule=events.Schedule.rate(CHECK_EVERY),
            targets=[targets.LambdaFunction(self.function, retry_attempts=2)],
        )
