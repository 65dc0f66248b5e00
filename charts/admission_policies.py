"""Runtime admission policies: one ValidatingAdmissionPolicy and binding per rule in ``policy/gangs/admission.py``.

Policies fail closed (``failurePolicy: Fail``). Bindings refuse violations when
``platform.policy_enforcement`` is ``deny``; with ``warn_audit`` they only warn the client
and annotate the audit event, for rolling a policy out before enforcing it.
"""

from __future__ import annotations

from cdk8s_plus_37 import k8s
from constructs import Construct

from catalog.labels import DOMAIN
from charts.cluster_objects import MANAGED_BY
from charts.ordering import SYNC_WAVE, sync_wave
from config.platform import PlatformConfig
from policy.gangs.admission import OPERATIONS, AdmissionPolicy, Json, admission_policies, validation_actions
from policy.gangs.workload_api import needs_workload_api


def _selector(selector: Json | None) -> k8s.LabelSelector | None:
    if not selector:
        return None
    return k8s.LabelSelector(
        match_labels=dict(selector["matchLabels"]) if "matchLabels" in selector else None,
        match_expressions=[
            k8s.LabelSelectorRequirement(key=r["key"], operator=r["operator"], values=r.get("values"))
            for r in selector.get("matchExpressions", [])
        ]
        or None,
    )


def _match_constraints(policy: AdmissionPolicy) -> k8s.MatchResources:
    resource = policy.resource
    return k8s.MatchResources(
        match_policy="Equivalent",
        namespace_selector=_selector(policy.namespace_selector),
        resource_rules=[
            k8s.NamedRuleWithOperations(
                api_groups=[resource.group],
                api_versions=[resource.version],
                resources=[resource.plural],
                operations=list(OPERATIONS),
                scope="Namespaced",
            )
        ],
    )


def _spec(policy: AdmissionPolicy) -> k8s.ValidatingAdmissionPolicySpec:
    return k8s.ValidatingAdmissionPolicySpec(
        failure_policy="Fail",
        match_constraints=_match_constraints(policy),
        match_conditions=[k8s.MatchCondition(name=n, expression=e) for n, e in policy.match_conditions] or None,
        variables=[k8s.Variable(name=n, expression=e) for n, e in policy.variables] or None,
        validations=[
            k8s.Validation(
                expression=v.expression,
                message=v.message,
                message_expression=v.message_expression,
                reason=v.reason,
            )
            for v in policy.validations
        ],
    )


class GangAdmissionPolicies(Construct):
    """The platform's runtime rules for team submissions, each a policy plus its binding.

    Names are ``gpu-platform-<purpose>``; the binding carries the policy's name. Defaults:
    ``policy_enforcement: deny`` binds with ``[Deny]``.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, platform: PlatformConfig, gang_native: bool = True
    ) -> None:
        """``gang_native=False`` (the fallback form) leaves out the policies that judge gang kinds or gang
        fields: there are none to judge, and the one that wants GPU Pods in a gang would refuse them all."""
        super().__init__(scope, construct_id)
        actions = list(validation_actions(platform.policy_enforcement))
        for policy in admission_policies(platform):
            if not gang_native and needs_workload_api(policy):
                continue
            labels = {**MANAGED_BY, f"{DOMAIN}/admission-policy": policy.name}
            k8s.KubeValidatingAdmissionPolicy(
                self,
                policy.name,
                metadata=k8s.ObjectMeta(
                    name=policy.name,
                    labels=labels,
                    annotations={
                        SYNC_WAVE: str(sync_wave("ValidatingAdmissionPolicy")),
                        f"{DOMAIN}/description": policy.description,
                    },
                ),
                spec=_spec(policy),
            )
            k8s.KubeValidatingAdmissionPolicyBinding(
                self,
                f"{policy.name}-binding",
                metadata=k8s.ObjectMeta(
                    name=policy.name,
                    labels=labels,
                    annotations={SYNC_WAVE: str(sync_wave("ValidatingAdmissionPolicyBinding"))},
                ),
                spec=k8s.ValidatingAdmissionPolicyBindingSpec(policy_name=policy.name, validation_actions=actions),
            )
