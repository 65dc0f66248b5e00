"""The two shapes of IAM document the stacks write beside an add-on's own: a role one AWS service
assumes, and a policy that allows a few actions on named resources."""

from __future__ import annotations

from typing import Any

from policy.iam.pod_identity import VERSION


def service_trust_policy(service: str) -> dict[str, Any]:
    """Trust of a role that ``service`` (``scheduler.amazonaws.com``, ``ec2.amazonaws.com``) assumes."""
    return {
        "Version": VERSION,
        "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}],
    }


def allow_policy(actions: str | list[str], resources: str | list[str]) -> dict[str, Any]:
    """One statement allowing ``actions`` on ``resources``, and nothing else."""
    return {"Version": VERSION, "Statement": [{"Effect": "Allow", "Action": actions, "Resource": resources}]}
