"""The trust policy of every controller role delivered through EKS Pod Identity."""

from __future__ import annotations

from policy.iam.pod_identity import pod_identity_trust_policy


def test_only_pod_identity_may_assume_the_role_and_tag_the_session() -> None:
    (statement,) = pod_identity_trust_policy()["Statement"]
    assert statement["Effect"] == "Allow"
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert sorted(statement["Action"]) == ["sts:AssumeRole", "sts:TagSession"]
