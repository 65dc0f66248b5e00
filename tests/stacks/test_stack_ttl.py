"""An ephemeral stack's time to live: the tag always, the self-deleting clean-up only when asked for."""

from __future__ import annotations

import json

import pytest
from aws_cdk import Stack
from aws_cdk.assertions import Template

from policy.environment.load import load_environment
from policy.environment.runs import TTL_TAG
from stacks.stack_ttl import CHECK_EVERY, HANDLER_SOURCE, StackTimeToLive
from tests.helpers.small_stacks import new_stack, only, resources


def _build(**ephemeral: object) -> tuple[Stack, Template]:
    """ci's ``ephemeral`` section with ``ephemeral`` changed."""
    shipped = load_environment(name="ci").ephemeral
    assert shipped is not None
    stack = new_stack()
    StackTimeToLive(stack, "TimeToLive", ephemeral=shipped.model_copy(update=ephemeral))
    return stack, Template.from_stack(stack)


@pytest.fixture(scope="module")
def cleanup() -> Template:
    return _build(ttl_hours=6)[1]


def test_without_cleanup_only_the_tag_is_added() -> None:
    stack, template = _build(ttl_hours=3, cleanup=False)
    assert template.to_json().get("Resources", {}) == {}
    assert stack.tags.tag_values() == {TTL_TAG: "3"}


def test_cleanup_runs_the_handler_every_15_minutes_with_retries(cleanup: Template) -> None:
    assert CHECK_EVERY.to_minutes() == 15
    rule_id, rule = only(cleanup, "AWS::Events::Rule")
    assert rule["Properties"]["ScheduleExpression"] == "rate(15 minutes)"
    (target,) = rule["Properties"]["Targets"]
    assert target["RetryPolicy"] == {"MaximumRetryAttempts": 2}
    function_id, function = only(cleanup, "AWS::Lambda::Function")
    assert target["Arn"] == {"Fn::GetAtt": [function_id, "Arn"]}
    properties = function["Properties"]
    assert (properties["Runtime"], properties["Handler"]) == ("python3.14", "index.handler")
    assert (properties["Timeout"], properties["MemorySize"]) == (30, 128)
    assert properties["Code"]["ZipFile"] == HANDLER_SOURCE.read_text(encoding="utf-8")
    assert properties["Environment"]["Variables"] == {"STACK_ID": {"Ref": "AWS::StackId"}, "TTL_HOURS": "6"}
    assert rule_id != function_id


def test_cleanup_logs_for_a_week_and_may_write_only_its_own_log_group(cleanup: Template) -> None:
    group_id, group = only(cleanup, "AWS::Logs::LogGroup")
    assert group["Properties"]["RetentionInDays"] == 7
    assert group["DeletionPolicy"] == "Delete"
    _, role = only(cleanup, "AWS::IAM::Role")
    (policy,) = role["Properties"]["Policies"]
    assert policy["PolicyName"] == "DeleteOwnStack"
    logs = policy["PolicyDocument"]["Statement"][1]
    assert logs["Resource"] == {"Fn::GetAtt": [group_id, "Arn"]}
    assert "6 hours" in role["Properties"]["Description"]
    assert resources(cleanup, "AWS::IAM::Policy") == {}, json.dumps(resources(cleanup, "AWS::IAM::Policy"))
