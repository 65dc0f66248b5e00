"""Runtime admission rules for what teams submit, as ValidatingAdmissionPolicy CEL kept as plain data.

``charts/admission_policies.py`` renders these policies; tests evaluate the rendered strings
through ``review``, which follows the API server's order: resource rules and namespace
selector, matchConditions, variables, validations, then messageExpression on failure.

Every policy matches one resource, so its CEL type-checks cleanly against that kind's
schema (the API server reports field errors per matched kind in ``status.typeChecking``).
Every policy judges CREATE, and UPDATE only when ``spec`` changed: relabelling, annotating
or removing finalizers from objects admitted before a policy or a grant changed is never
refused. Upstream: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from catalog.device_classes import DEVICE_CLASSES, DRIVER_EXTENDED_RESOURCE
from catalog.labels import DOMAIN, GANG_MANAGED_LABEL, TEAM_LABEL, tier_grant_label
from catalog.priority_tiers import TIERS
from config.platform import PlatformConfig, PolicyEnforcement
from policy.gangs.workload_rules import MAX_DEPTH

PREFIX = "gpu-platform"
TIER_GRANTED = "allowed"
"""Value of a namespace's ``gpu-platform.io/tier-<tier>`` label that grants the tier."""
PLATFORM_DEVICE_CLASS_SUFFIX = f".{DOMAIN}"
OPERATIONS = ("CREATE", "UPDATE")

Json = Mapping[str, Any]


@dataclass(frozen=True)
class Resource:
    """One API resource a policy matches (the preferred version; ``matchPolicy: Equivalent`` covers the rest)."""

    group: str
    version: str
    plural: str
    kind: str


POD = Resource("", "v1", "pods", "Pod")
JOB = Resource("batch", "v1", "jobs", "Job")
WORKLOAD = Resource("scheduling.k8s.io", "v1beta1", "workloads", "Workload")
POD_GROUP = Resource("scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup")
COMPOSITE_POD_GROUP = Resource("scheduling.k8s.io", "v1alpha3", "compositepodgroups", "CompositePodGroup")
CLAIM_TEMPLATE = Resource("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate")
CLAIM = Resource("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim")
RESOURCES = {(r.group, r.kind): r for r in (POD, JOB, WORKLOAD, POD_GROUP, COMPOSITE_POD_GROUP, CLAIM_TEMPLATE, CLAIM)}


@dataclass(frozen=True)
class Validation:
    expression: str
    message: str
    """Static text, used when ``message_expression`` is unset or fails."""
    message_expression: str | None = None
    reason: str = "Forbidden"


@dataclass(frozen=True)
class AdmissionPolicy:
    """A ValidatingAdmissionPolicy's content: what it matches, when it judges, what it checks."""

    name: str
    description: str
    resource: Resource
    validations: tuple[Validation, ...]
    namespace_selector: Json | None = None
    """A LabelSelector in manifest form (``matchLabels``/``matchExpressions``); none matches every namespace."""
    match_conditions: tuple[tuple[str, str], ...] = ()
    """(name, expression) pairs; all must be true for the policy to judge the request."""
    variables: tuple[tuple[str, str], ...] = ()
    """(name, expression) pairs, readable as ``variables.<name>`` by later variables and validations."""


def validation_actions(enforcement: PolicyEnforcement) -> tuple[str, ...]:
    """Binding actions: refuse violations, or (while rolling out) warn the client and record an audit event."""
    return ("Deny",) if enforcement is PolicyEnforcement.DENY else ("Warn", "Audit")


def _lit(text: str) -> str:
    """A CEL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _string_list(values: list[str]) -> str:
    return "[" + ", ".join(_lit(v) for v in values) + "]"


def _map(entries: dict[str, str]) -> str:
    return "{" + ", ".join(f"{_lit(k)}: {_lit(v)}" for k, v in entries.items()) + "}"


JUDGE_CREATE_OR_SPEC_CHANGE = (
    "created-or-spec-changed",
    "request.operation == 'CREATE' || object.spec != oldObject.spec",
)
TEAM_NAMESPACES: Json = {"matchExpressions": [{"key": TEAM_LABEL, "operator": "Exists"}]}
GANG_MANAGED_NAMESPACES: Json = {"matchLabels": {GANG_MANAGED_LABEL: "true"}}

_SCARCE = {spec.priority_class: tier_grant_label(tier.value) for tier, spec in TIERS.items() if spec.scarce}
_OPEN = [spec.priority_class for spec in TIERS.values() if not spec.scarce]
_PLATFORM_CLASSES = [spec.priority_class for spec in TIERS.values()]


def _named_class(node: str, var: str) -> str:
    return f"(has({node}.priorityClassName) && {node}.priorityClassName == {var})"


def _workload_uses(var: str) -> str:
    """Whether any template of a Workload's tree (flat, or composites up to the depth limit) names class ``var``.

    The 1.37 API server hands admission a composite Workload with ``podGroupTemplates: null`` (the key is
    there, so ``has()`` is true, and ``exists`` on null is an error that denies the request): every list is
    also checked to be a list (`!= null` would do on the server, but not in the kit's CEL engine).
    """

    def templates(parent: str, level: int, indent: str) -> str:
        item = f"t{level}"
        return (
            f"(has({parent}.podGroupTemplates) && type({parent}.podGroupTemplates) == list\n"
            f"{indent}  && {parent}.podGroupTemplates.exists({item},\n"
            f"{indent}  {_named_class(item, var)}))"
        )

    def composites(parent: str, level: int, indent: str) -> str:
        item = f"c{level}"
        inner = indent + "  "
        parts = [_named_class(item, var), templates(item, level, inner)]
        if level < MAX_DEPTH - 1:  # the PodGroup leaves are the last level
            parts.append(composites(item, level + 1, inner))
        body = f"\n{inner}|| ".join(parts)
        return (
            f"(has({parent}.compositePodGroupTemplates) && type({parent}.compositePodGroupTemplates) == list\n"
            f"{inner}&& {parent}.compositePodGroupTemplates.exists({item},\n"
            f"{inner}{body}))"
        )

    return f"({templates('object.spec', 0, '  ')}\n  || {composites('object.spec', 1, '  ')})"


_USES_CLASS = {
    POD: _named_class("object.spec", "pc"),
    JOB: _named_class("object.spec.template.spec", "pc"),
    WORKLOAD: _workload_uses("pc"),
    POD_GROUP: _named_class("object.spec", "pc"),
    COMPOSITE_POD_GROUP: _named_class("object.spec", "pc"),
}
_CLASS_FIELD = {
    POD: "spec.priorityClassName",
    JOB: "spec.template.spec.priorityClassName",
    WORKLOAD: "the templates' priorityClassName",
    POD_GROUP: "spec.priorityClassName",
    COMPOSITE_POD_GROUP: "spec.priorityClassName",
}


def _tier_grant_policy(resource: Resource) -> AdmissionPolicy:
    scarce = ", ".join(_SCARCE)
    fix = (
        f"fix: use a tier every namespace may use ({', '.join(_OPEN)}) in {_CLASS_FIELD[resource]}, "
        "or have the platform team grant the tier to the team (platform.teams.<team>.tiers)"
    )
    return AdmissionPolicy(
        name=f"{PREFIX}-tier-grants-{resource.plural}",
        description=(
            f"{resource.kind}s may use the scarce priority classes ({scarce}) only in namespaces "
            f"labelled {tier_grant_label('<tier>')}={TIER_GRANTED}."
        ),
        resource=resource,
        match_conditions=(JUDGE_CREATE_OR_SPEC_CHANGE,),
        variables=(
            ("tierGrantLabels", _map(_SCARCE)),
            (
                "namespaceLabels",
                "has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {}",
            ),
            (
                "ungrantedClasses",
                "variables.tierGrantLabels.filter(pc,\n"
                f"  {_USES_CLASS[resource]}\n"
                "  && !(variables.tierGrantLabels[pc] in variables.namespaceLabels\n"
                f"    && variables.namespaceLabels[variables.tierGrantLabels[pc]] == '{TIER_GRANTED}'))",
            ),
        ),
        validations=(
            Validation(
                expression="size(variables.ungrantedClasses) == 0",
                message=(
                    f"{resource.kind} uses a scarce priority class ({scarce}) that its namespace is not granted "
                    f"(namespace label {tier_grant_label('<tier>')}={TIER_GRANTED}); {fix}"
                ),
                message_expression=(
                    f"'{resource.kind} uses priority class ' + variables.ungrantedClasses.join(', ')\n"
                    "+ ', which namespace ' + request.namespace + ' is not granted (it lacks the label '\n"
                    f"+ variables.ungrantedClasses.map(pc, variables.tierGrantLabels[pc] + '={TIER_GRANTED}')"
                    ".join(', ')\n"
                    f"+ {_lit('); ' + fix)}"
                ),
            ),
        ),
    )


def _job_gang_policy() -> AdmissionPolicy:
    gang = "object.spec.scheduling.schedulingPolicy.gang"
    fix = (
        "fix: set spec.scheduling.schedulingPolicy.gang.minCount <= spec.parallelism "
        "(or leave minCount unset: it defaults to parallelism)"
    )
    return AdmissionPolicy(
        name=f"{PREFIX}-job-gang-min-count",
        description=(
            "A gang Job's spec.scheduling.schedulingPolicy.gang.minCount must not exceed spec.parallelism "
            "(1 when unset): a gang larger than the Job never starts."
        ),
        resource=JOB,
        match_conditions=(
            JUDGE_CREATE_OR_SPEC_CHANGE,
            (
                "gang-min-count-set",
                "has(object.spec.scheduling) && has(object.spec.scheduling.schedulingPolicy)\n"
                f"&& has(object.spec.scheduling.schedulingPolicy.gang) && has({gang}.minCount)",
            ),
        ),
        variables=(
            ("minCount", f"{gang}.minCount"),
            ("parallelism", "has(object.spec.parallelism) ? object.spec.parallelism : 1"),
        ),
        validations=(
            Validation(
                expression="variables.minCount <= variables.parallelism",
                message=f"Job gang minCount is larger than spec.parallelism, so the gang never starts; {fix}",
                message_expression=(
                    "'Job gang minCount ' + string(variables.minCount) + ' is larger than spec.parallelism '\n"
                    f"+ string(variables.parallelism) + {_lit(', so the gang never starts; ' + fix)}"
                ),
                reason="Invalid",
            ),
        ),
    )


def _team_gang_job_policy() -> AdmissionPolicy:
    """Gang Jobs in team namespaces carry a platform tier, or the PodGroup their controller makes is refused."""
    classes = ", ".join(_PLATFORM_CLASSES)
    pod = "object.spec.template.spec"
    fix = f" is not a platform tier; fix: set spec.template.spec.priorityClassName to one of {classes}"
    return AdmissionPolicy(
        name=f"{PREFIX}-team-gang-jobs",
        description=(
            "Gang Jobs (spec.scheduling) in team namespaces use a platform tier on their pod template "
            f"({classes}): the Job controller copies it into the PodGroup it creates."
        ),
        resource=JOB,
        namespace_selector=TEAM_NAMESPACES,
        match_conditions=(JUDGE_CREATE_OR_SPEC_CHANGE, ("gang-job", "has(object.spec.scheduling)")),
        validations=(
            Validation(
                expression=(
                    f"has({pod}.priorityClassName)\n&& {pod}.priorityClassName in {_string_list(_PLATFORM_CLASSES)}"
                ),
                message=(
                    "gang Job does not use a platform priority tier; "
                    f"fix: set spec.template.spec.priorityClassName to one of {classes}"
                ),
                message_expression=(
                    "'gang Job priority class '\n"
                    f"+ (has({pod}.priorityClassName) ? {pod}.priorityClassName : '(unset)')\n"
                    f"+ {_lit(fix)}"
                ),
            ),
        ),
    )


def _team_pod_group_policy() -> AdmissionPolicy:
    classes = ", ".join(_PLATFORM_CLASSES)
    ref = "object.spec.workloadRef"
    return AdmissionPolicy(
        name=f"{PREFIX}-team-podgroups",
        description=(
            "PodGroups in team namespaces reference the Workload template they come from "
            f"(spec.workloadRef) and use a platform tier ({classes})."
        ),
        resource=POD_GROUP,
        namespace_selector=TEAM_NAMESPACES,
        match_conditions=(JUDGE_CREATE_OR_SPEC_CHANGE,),
        validations=(
            Validation(
                expression=(
                    f"has({ref}) && has({ref}.workloadName) && {ref}.workloadName != ''\n"
                    f"&& has({ref}.templateName) && {ref}.templateName != ''"
                ),
                message=(
                    "PodGroup does not reference a Workload; fix: set spec.workloadRef.workloadName and "
                    "spec.workloadRef.templateName to the Workload and the podGroupTemplate it is created from"
                ),
                message_expression=(
                    "'PodGroup in team namespace ' + request.namespace + ' does not reference a Workload; '\n"
                    "+ 'fix: set spec.workloadRef.workloadName and spec.workloadRef.templateName '\n"
                    "+ 'to the Workload and the podGroupTemplate it is created from'"
                ),
            ),
            Validation(
                expression=(
                    "has(object.spec.priorityClassName)\n"
                    f"&& object.spec.priorityClassName in {_string_list(_PLATFORM_CLASSES)}"
                ),
                message=(
                    "PodGroup does not use a platform priority tier; "
                    f"fix: set spec.priorityClassName to one of {classes}"
                ),
                message_expression=(
                    "'PodGroup priority class '\n"
                    "+ (has(object.spec.priorityClassName) ? object.spec.priorityClassName : '(unset)')\n"
                    f"+ {_lit(' is not a platform tier; fix: set spec.priorityClassName to one of ' + classes)}"
                ),
            ),
        ),
    )


def _gpu_container(item: str) -> str:
    resources = f"{item}.resources"
    return (
        f"has({resources}) && ((has({resources}.limits) && '{DRIVER_EXTENDED_RESOURCE}' in {resources}.limits)\n"
        f"    || (has({resources}.requests) && '{DRIVER_EXTENDED_RESOURCE}' in {resources}.requests))"
    )


def _gang_gpu_pod_policy() -> AdmissionPolicy:
    fix = (
        "fix: set spec.schedulingGroup.podGroupName to the gang's PodGroup, "
        "or submit a Job with spec.scheduling (its controller creates the PodGroup)"
    )
    return AdmissionPolicy(
        name=f"{PREFIX}-gang-gpu-pods",
        description=(
            f"GPU Pods (spec.resourceClaims, or {DRIVER_EXTENDED_RESOURCE}) in gang-managed namespaces "
            "join a PodGroup, so they start with their gang instead of holding GPUs alone."
        ),
        resource=POD,
        namespace_selector=GANG_MANAGED_NAMESPACES,
        match_conditions=(
            JUDGE_CREATE_OR_SPEC_CHANGE,
            (
                "uses-gpus",
                "(has(object.spec.resourceClaims) && size(object.spec.resourceClaims) > 0)\n"
                f"|| object.spec.containers.exists(c,\n  {_gpu_container('c')})\n"
                f"|| (has(object.spec.initContainers) && object.spec.initContainers.exists(c,\n"
                f"  {_gpu_container('c')}))",
            ),
        ),
        validations=(
            Validation(
                expression=(
                    "has(object.spec.schedulingGroup) && has(object.spec.schedulingGroup.podGroupName)\n"
                    "&& object.spec.schedulingGroup.podGroupName != ''"
                ),
                message=f"GPU Pod in a gang-managed namespace does not join a PodGroup; {fix}",
                message_expression=(
                    "'GPU Pod in gang-managed namespace ' + request.namespace + ' does not join a PodGroup; '\n"
                    f"+ {_lit(fix)}"
                ),
            ),
        ),
    )


def _device_class_policy(resource: Resource, devices: str, published: list[str]) -> AdmissionPolicy:
    suffix = PLATFORM_DEVICE_CLASS_SUFFIX
    fix = f"fix: use a platform DeviceClass ({', '.join(published) or f'*{suffix}'})"
    return AdmissionPolicy(
        name=f"{PREFIX}-device-classes-{resource.plural}",
        description=(
            f"{resource.kind}s in team namespaces request devices only from platform DeviceClasses "
            f"(names ending in {suffix}), never the driver's own classes."
        ),
        resource=resource,
        namespace_selector=TEAM_NAMESPACES,
        match_conditions=(JUDGE_CREATE_OR_SPEC_CHANGE,),
        variables=(
            ("requests", f"has({devices}) && has({devices}.requests) ? {devices}.requests : []"),
            (
                "foreignRequests",
                "variables.requests.filter(r,\n"
                f"  (has(r.exactly) && !r.exactly.deviceClassName.endsWith('{suffix}'))\n"
                "  || (has(r.firstAvailable)\n"
                f"    && r.firstAvailable.exists(s, !s.deviceClassName.endsWith('{suffix}'))))",
            ),
        ),
        validations=(
            Validation(
                expression="size(variables.foreignRequests) == 0",
                message=f"{resource.kind} requests devices from a DeviceClass outside the platform catalogue; {fix}",
                message_expression=(
                    f"'{resource.kind} requests ' + variables.foreignRequests.map(r, r.name + ' ('\n"
                    "  + (has(r.exactly) ? r.exactly.deviceClassName\n"
                    "    : r.firstAvailable.map(s, s.deviceClassName).join(' | '))\n"
                    "  + ')').join(', ')\n"
                    f"+ {_lit(' use DeviceClasses outside the platform catalogue; ' + fix)}"
                ),
            ),
        ),
    )


def admission_policies(platform: PlatformConfig) -> tuple[AdmissionPolicy, ...]:
    """Every runtime policy, in a stable order; the DeviceClass messages list the environment's classes."""
    published = sorted(DEVICE_CLASSES[shape].name for shape in set(platform.device_classes))
    return (
        *(_tier_grant_policy(r) for r in (POD, JOB, WORKLOAD, POD_GROUP, COMPOSITE_POD_GROUP)),
        _job_gang_policy(),
        _team_gang_job_policy(),
        _team_pod_group_policy(),
        _gang_gpu_pod_policy(),
        _device_class_policy(CLAIM_TEMPLATE, "object.spec.spec.devices", published),
        _device_class_policy(CLAIM, "object.spec.devices", published),
    )


@dataclass(frozen=True)
class Verdict:
    """What one policy decided about one request."""

    judged: bool
    """False when the resource, namespace or a matchCondition excluded the request."""
    failures: tuple[str, ...] = ()
    """The message of every failed validation."""

    @property
    def allowed(self) -> bool:
        return not self.failures


def _selects(selector: Json | None, labels: Json) -> bool:
    if not selector:
        return True
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for requirement in selector.get("matchExpressions", []):
        key, operator, values = requirement["key"], requirement["operator"], requirement.get("values", [])
        present = key in labels
        holds = {
            "Exists": present,
            "DoesNotExist": not present,
            "In": present and labels[key] in values,
            "NotIn": not present or labels[key] not in values,
        }[operator]
        if not holds:
            return False
    return True


def _matches_resource(spec: Json, obj: Json, operation: str) -> bool:
    group = obj["apiVersion"].rpartition("/")[0]
    resource = RESOURCES.get((group, obj["kind"]))
    if resource is None:
        return False
    return any(
        group in rule["apiGroups"] and resource.plural in rule["resources"] and operation in rule["operations"]
        for rule in spec["matchConstraints"]["resourceRules"]
    )


def review(
    spec: Json, obj: Json, *, namespace: Json | None, old: Json | None = None, operation: str = "CREATE"
) -> Verdict:
    """Evaluate a rendered policy ``spec`` on a request for ``obj`` as the API server does (no authorizer).

    ``namespace`` is the Namespace object holding ``obj``. A CEL error raises: with
    ``failurePolicy: Fail`` it would refuse the request, and here it is a policy bug.
    """
    if not _matches_resource(spec, obj, operation):
        return Verdict(judged=False)
    namespace_labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
    if not _selects(spec["matchConstraints"].get("namespaceSelector"), namespace_labels):
        return Verdict(judged=False)
    group, _, version = obj["apiVersion"].rpartition("/")
    metadata = obj.get("metadata", {})
    request = {
        "operation": operation,
        "namespace": metadata.get("namespace", ""),
        "name": metadata.get("name", ""),
        "kind": {"group": group, "version": version, "kind": obj["kind"]},
    }
    from policy.cel import evaluate  # the CEL engine is for review and tests, not for rendering

    context: dict[str, Any] = {"object": obj, "oldObject": old, "request": request, "namespaceObject": namespace}
    for condition in spec.get("matchConditions", []):
        if not evaluate(condition["expression"], context):
            return Verdict(judged=False)
    variables: dict[str, Any] = {}
    for variable in spec.get("variables", []):
        variables[variable["name"]] = evaluate(variable["expression"], {**context, "variables": variables})
    context["variables"] = variables
    failures = []
    for validation in spec["validations"]:
        if not evaluate(validation["expression"], context):
            expression = validation.get("messageExpression")
            failures.append(str(evaluate(expression, context)) if expression else validation["message"])
    return Verdict(judged=True, failures=tuple(failures))
