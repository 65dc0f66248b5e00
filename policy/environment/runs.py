"""Per-run copies of an ephemeral environment, so parallel pipelines never share a name.

``for_run(env, run_id="gh123-1")`` returns the environment with its name, cluster name
and tags carrying the run id. Every physical name is derived from those two names
(stacks, the EKS cluster, node groups, queues), so two runs are disjoint by
construction. The copy goes through the same parsing and validation as any input.

Decisions, documented in docs/how-to/ci-clusters.md:

- A run id is only accepted for environments with an ``ephemeral`` section: a typo on
  the command line can never rename a long-lived cluster.
- The offline synth (``make synth ENV=ci``) works without a run id: it yields the
  reviewable template (``gpu-ci``) the tests and golden files use.
- The CDK CLI path (``app.py``: ``cdk deploy/diff/destroy``) refuses an ephemeral
  environment without a run id (``require_run_id``), so nobody deploys the shared
  template name by accident.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from addons.karpenter.plan import karpenter_pools, node_role_name
from config.errors import ConfigError
from config.model import CapacityProvider, EnvironmentConfig
from policy.environment.load import parse_environment
from policy.infrastructure.node_pools import node_group_plans

RUN_ID_MAX_LENGTH = 20
RUN_ID_PATTERN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ADMIN_ARN_PATTERN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:(role|user)/[\w+=,.@/-]+$")
RUN_ID_TAG = "run-id"
TTL_TAG = "ttl-hours"
ENVIRONMENT_TAG = "environment"
NAME_MAX_LENGTH = 63
"""Cluster, environment (a DNS label) and managed node group names all stop at 63 characters."""
IAM_ROLE_NAME_MAX_LENGTH = 64
"""IAM role names stop at 64 characters (the Karpenter node role is named after the cluster)."""

_RUN_ID_FIX = (
    f"use 1-{RUN_ID_MAX_LENGTH} lowercase letters, digits or '-', starting and ending with a letter or digit "
    "(e.g. gh1234567890-1)"
)


def check_run_id(run_id: str) -> str:
    """A run id is a short DNS-safe token; return it, or raise one ``ConfigError``."""
    if len(run_id) > RUN_ID_MAX_LENGTH:
        raise ConfigError("run_id", run_id, f"run id is longer than {RUN_ID_MAX_LENGTH} characters", _RUN_ID_FIX)
    if not RUN_ID_PATTERN.match(run_id):
        raise ConfigError("run_id", run_id, "run id is not a DNS-safe token", _RUN_ID_FIX)
    return run_id


def require_run_id(env: EnvironmentConfig, run_id: str | None) -> None:
    """Refuse an ephemeral environment without a run id (the deploy path)."""
    if env.ephemeral is not None and not run_id:
        raise ConfigError(
            "run_id",
            None,
            f"environment '{env.name}' is ephemeral: every deployment needs a run id to name its stacks and cluster",
            f"pass -c run_id=<id> (make deploy ENV={env.name} RUN_ID=<id>)",
        )


def for_run(env: EnvironmentConfig, *, run_id: str | None, admin_arns: Sequence[str] = ()) -> EnvironmentConfig:
    """The environment one pipeline run deploys: names suffixed with ``-<run_id>``, tags ``run-id``.

    ``admin_arns`` are extra cluster admins for this run only (the pipeline's own role, so
    verification and the smoke test can reach the API server). Without a run id the
    environment is returned unchanged.
    """
    if not run_id:
        if admin_arns:
            raise ConfigError(
                "admin_arn", list(admin_arns), "extra admins only apply to a run", "pass a run id as well, or drop it"
            )
        return env
    if env.ephemeral is None:
        raise ConfigError(
            "run_id",
            run_id,
            f"environment '{env.name}' is not ephemeral, so it has no per-run copies",
            "drop the run id, or add an ephemeral section to the environment",
        )
    check_run_id(run_id)
    for arn in admin_arns:
        if not ADMIN_ARN_PATTERN.match(arn):
            raise ConfigError(
                "admin_arn", arn, "not an IAM role or user ARN", "pass arn:aws:iam::<account>:role/<name>"
            )
    names = {"name": f"{env.name}-{run_id}", "cluster.name": f"{env.cluster.name}-{run_id}"}
    for field, name in names.items():
        _check_length(run_id, field, name)
    for pool in env.gpu_pools:  # before re-validation, so the message blames the run id
        if pool.provider is not CapacityProvider.MANAGED_NODE_GROUP:
            continue  # Karpenter's NodePools are not named after the cluster
        for plan in node_group_plans(pool, cluster_name=names["cluster.name"]):
            _check_length(run_id, f"gpu_pools.{pool.name} node group", plan.name)
    if karpenter_pools(env):
        _check_length(
            run_id, "the Karpenter node role", node_role_name(names["cluster.name"]), IAM_ROLE_NAME_MAX_LENGTH
        )
    data = env.model_dump(mode="json")
    data["name"] = names["name"]
    data["cluster"]["name"] = names["cluster.name"]
    data["cluster"]["admin_principal_arns"] = [
        *data["cluster"]["admin_principal_arns"],
        *(a for a in admin_arns if a not in env.cluster.admin_principal_arns),
    ]
    # The stack's own tags put ``environment`` first and let these win: cost reports keep
    # grouping every run under the environment it came from.
    data["tags"] = {**env.tags, ENVIRONMENT_TAG: env.name, RUN_ID_TAG: run_id}

    return parse_environment(data)


def _check_length(run_id: str, what: str, name: str, limit: int = NAME_MAX_LENGTH) -> None:
    if len(name) > limit:
        raise ConfigError(
            "run_id",
            run_id,
            f"{what} would be '{name}', {len(name)} characters (at most {limit})",
            f"use a run id of at most {len(run_id) - (len(name) - limit)} characters",
        )
