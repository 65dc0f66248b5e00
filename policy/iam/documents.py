"""The shapes every IAM document here is built from: a policy document of statements, a role one AWS
service assumes, and a policy that allows a few actions on named resources."""

from __future__ import annotations

from typing import Any

VERSION = "2012-10-17"
"""The IAM policy language version every document declares."""

Statement = dict[str, Any]


def policy_document(*statements: Statement) -> dict[str, Any]:
    return {"Version": VERSION, "Statement": list(statements)}


def service_trust_policy(service: str) -> dict[str, Any]:
    """Trust of a role that ``service`` (``scheduler.amazonaws.com``, ``ec2.amazonaws.com``) assumes."""
    return policy_document({"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"})


def allow_policy(actions: str | list[str], resources: str | list[str]) -> dict[str, Any]:
    """One statement allowing ``actions`` on ``resources``, and nothing else."""
    return policy_document({"Effect": "Allow", "Action": actions, "Resource": resources})
