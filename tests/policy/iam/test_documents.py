"""The service trust and allow-list documents: exactly one statement, nothing wider."""

from __future__ import annotations

from policy.iam.documents import allow_policy, service_trust_policy


def test_a_service_trust_lets_that_service_alone_assume_the_role() -> None:
    document = service_trust_policy("scheduler.amazonaws.com")
    assert document["Version"] == "2012-10-17"
    (statement,) = document["Statement"]
    assert statement == {
        "Effect": "Allow",
        "Principal": {"Service": "scheduler.amazonaws.com"},
        "Action": "sts:AssumeRole",
    }


def test_an_allow_policy_names_its_actions_and_resources_and_nothing_else() -> None:
    arns = ["arn:aws:eks:us-east-1:123456789012:nodegroup/c/g/*"]
    (statement,) = allow_policy("eks:UpdateNodegroupConfig", arns)["Statement"]
    assert statement == {"Effect": "Allow", "Action": "eks:UpdateNodegroupConfig", "Resource": arns}
