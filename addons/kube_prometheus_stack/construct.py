"""kube-prometheus-stack on the system nodes, with the storage its Prometheus volume needs.

Order, as CloudFormation dependencies: the EKS Pod Identity agent and the EBS CSI driver add-on
(with its own role) after the system nodes; the platform's gp3 StorageClass; then the chart
(``wait``: its CRDs are established and Prometheus, Alertmanager, Grafana and the operator are
ready before anything that uses ``monitoring.coreos.com`` is applied). A new EKS cluster has no
CSI driver and no default StorageClass, so without the first two the Prometheus volume claim
would stay Pending and the chart's wait would time out.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Duration, Validations
from aws_cdk import aws_aps as aps
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct, IConstruct

from addons.kube_prometheus_stack.pin import KUBE_PROMETHEUS_STACK, MONITORING_NAMESPACE
from addons.kube_prometheus_stack.values import PROMETHEUS_SERVICE_ACCOUNT, STORAGE_CLASS, kube_prometheus_stack_values
from config.model import EnvironmentConfig
from policy.iam.documents import allow_policy
from policy.iam.pod_identity import pod_identity_trust_policy
from stacks.helm import pinned_chart
from stacks.jsii_types import as_icluster
from stacks.pod_identity import pod_identity_agent

EBS_CSI_ADDON = "aws-ebs-csi-driver"
EBS_CSI_SERVICE_ACCOUNT = "ebs-csi-controller-sa"
"""The add-on's controller service account in ``kube-system`` (EKS user guide, "Amazon EBS CSI driver")."""
EBS_CSI_POLICY = "service-role/AmazonEBSCSIDriverPolicy"
HELM_TIMEOUT = Duration.minutes(12)
"""Below the kubectl handler's 15-minute Lambda limit."""


def storage_class(*, long_lived: bool) -> dict[str, object]:
    """Encrypted gp3 volumes bound where the pod lands; long-lived environments keep a released volume."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": STORAGE_CLASS},
        "provisioner": "ebs.csi.aws.com",
        "parameters": {"type": "gp3", "encrypted": "true"},
        "reclaimPolicy": "Retain" if long_lived else "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": True,
    }


class PrometheusMonitoring(Construct):
    """The pinned kube-prometheus-stack release (``observability.prometheus: install``)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        env: EnvironmentConfig,
        system_nodes: IConstruct,
        workspace: aps.CfnWorkspace | None,
    ) -> None:
        super().__init__(scope, construct_id)
        Validations.of(self).acknowledge(
            Acknowledgment(
                id=f"AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{EBS_CSI_POLICY}]",
                reason="The EBS CSI driver add-on's role uses the AWS managed policy the EKS user guide prescribes.",
            )
        )
        agent = pod_identity_agent(self, cluster, system_nodes=system_nodes)
        csi_role = iam.CfnRole(
            self,
            "EbsCsiRole",
            assume_role_policy_document=pod_identity_trust_policy(),
            managed_policy_arns=[iam.ManagedPolicy.from_aws_managed_policy_name(EBS_CSI_POLICY).managed_policy_arn],
        )
        self.csi_driver = eks.CfnAddon(
            self,
            "EbsCsiDriver",
            addon_name=EBS_CSI_ADDON,
            cluster_name=cluster.cluster_name,
            resolve_conflicts="OVERWRITE",
            pod_identity_associations=[
                eks.CfnAddon.PodIdentityAssociationProperty(
                    role_arn=csi_role.attr_arn, service_account=EBS_CSI_SERVICE_ACCOUNT
                )
            ],
        )
        self.csi_driver.node.add_dependency(agent)
        self.csi_driver.node.add_dependency(system_nodes)
        self.storage_class = eks.KubernetesManifest(
            self,
            "StorageClass",
            cluster=as_icluster(cluster),
            manifest=[storage_class(long_lived=env.long_lived)],
            overwrite=True,
        )
        self.storage_class.node.add_dependency(self.csi_driver)

        remote_write_url = None
        dependencies: list[IConstruct] = [system_nodes, self.storage_class, self.csi_driver]
        if workspace is not None:
            remote_write_url = f"{workspace.attr_prometheus_endpoint}api/v1/remote_write"
            dependencies.append(self._remote_write_identity(cluster, workspace, agent))
        self.chart = pinned_chart(
            self,
            "Chart",
            cluster=cluster,
            pin=KUBE_PROMETHEUS_STACK,
            values=kube_prometheus_stack_values(env, remote_write_url=remote_write_url),
            create_namespace=True,
            wait_timeout=HELM_TIMEOUT,
        )
        for dependency in dependencies:
            self.chart.node.add_dependency(dependency)

    def _remote_write_identity(
        self, cluster: eks.Cluster, workspace: aps.CfnWorkspace, agent: eks.CfnAddon
    ) -> eks.CfnPodIdentityAssociation:
        """Prometheus' service account may ``aps:RemoteWrite`` to this workspace only (EKS Pod Identity)."""
        role = iam.CfnRole(
            self,
            "RemoteWriteRole",
            assume_role_policy_document=pod_identity_trust_policy(),
            policies=[
                iam.CfnRole.PolicyProperty(
                    policy_name="remote-write",
                    policy_document=allow_policy("aps:RemoteWrite", workspace.attr_arn),
                )
            ],
        )
        association = eks.CfnPodIdentityAssociation(
            self,
            "RemoteWriteIdentity",
            cluster_name=cluster.cluster_name,
            namespace=MONITORING_NAMESPACE,
            service_account=PROMETHEUS_SERVICE_ACCOUNT,
            role_arn=role.attr_arn,
        )
        association.node.add_dependency(agent)
        return association
