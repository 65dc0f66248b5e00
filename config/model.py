"""The environment model: one YAML file per environment, parsed into these types.

Shape and types are checked here (unknown keys are errors); rules that span fields
live in ``policy.environment.validate``. Both run once, in ``config.load``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from ipaddress import IPv4Network
from typing import Annotated

from pydantic import Field

from addons.cluster_autoscaler.settings import ClusterAutoscalerConfig
from addons.karpenter.settings import KarpenterConfig, KarpenterPoolConfig
from addons.nvidia_dra_driver.settings import DraDriverConfig
from config.ephemeral import EphemeralConfig
from config.model_base import AccountId, DnsLabel, LabelKey, LabelValue, Model, ZoneName, text
from config.observability import ObservabilityConfig
from config.platform import PlatformConfig


class EndpointAccess(StrEnum):
    PUBLIC_AND_PRIVATE = "public_and_private"
    PRIVATE = "private"


class CapacityType(StrEnum):
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    CAPACITY_BLOCK = "capacity_block"


class PoolScaling(StrEnum):
    """How a managed node group's nodes come into being."""

    STATIC = "static"
    """``min_size = desired_size = max_size``: every node exists before a gang arrives."""
    AUTOSCALED = "autoscaled"
    """Cluster Autoscaler adds nodes for pending pods, between ``min_size`` and ``max_size``."""


class CapacityProvider(StrEnum):
    MANAGED_NODE_GROUP = "managed_node_group"
    KARPENTER = "karpenter"


class TaintEffect(StrEnum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class Taint(Model):
    key: LabelKey
    """Taint key."""
    value: LabelValue = ""
    """Taint value (empty: tolerated with ``Exists``)."""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE
    """Taint effect."""


GPU_TAINT = Taint(key="nvidia.com/gpu", value="true", effect=TaintEffect.NO_SCHEDULE)


class AutoModeConfig(Model):
    """EKS Auto Mode. Refused whenever the DRA driver is installed."""

    enabled: bool = False
    """Turn on EKS Auto Mode compute."""
    node_pools: tuple[str, ...] = ()
    """Built-in Auto Mode node pools (``general-purpose``, ``system``); any entry turns Auto Mode on."""

    @property
    def requested(self) -> bool:
        return self.enabled or bool(self.node_pools)


class ClusterConfig(Model):
    name: DnsLabel
    """EKS cluster name."""
    endpoint_access: EndpointAccess = EndpointAccess.PUBLIC_AND_PRIVATE
    """``public_and_private`` (public endpoint limited to ``public_access_cidrs``) or ``private``."""
    public_access_cidrs: tuple[IPv4Network, ...] = ()
    """CIDRs allowed to reach the public endpoint; required when it is public, refused when it is private."""
    acknowledge_public_endpoint_open_to_internet: bool = False
    """Allow a ``/0`` range in ``public_access_cidrs``: the API server then answers every address."""
    admin_principal_arns: tuple[
        Annotated[
            str,
            text(
                r"^arn:aws(-[a-z]+)*:iam::\d{12}:(role|user)/[\w+=,.@/-]+$",
                "an IAM role or user ARN: arn:aws:iam::<12-digit account>:role/<name> or ...:user/<name>",
            ),
        ],
        ...,
    ] = ()
    """IAM principals given cluster-admin through EKS access entries."""
    scheduler_bin_packing: bool = False
    """Score nodes ``MostAllocated`` on CPU and memory through ``KubeSchedulerConfig``, so pods pack
    onto fewer nodes and whole GPU nodes stay free for gangs (DRA devices are not part of the score)."""
    auto_mode: AutoModeConfig = AutoModeConfig()
    """EKS Auto Mode; refused while the DRA driver is enabled."""

    @property
    def internet_open_ranges(self) -> list[str]:
        """The ``/0`` ranges the public endpoint answers (none when the endpoint is private)."""
        if self.endpoint_access is not EndpointAccess.PUBLIC_AND_PRIVATE:
            return []
        return [str(c) for c in self.public_access_cidrs if c.prefixlen == 0]


class ExistingVpc(Model):
    vpc_id: Annotated[str, text(r"^vpc-[0-9a-f]{8,17}$", "a VPC id: vpc- and 8 or 17 hexadecimal digits")]
    """Id of the VPC to use."""
    private_subnet_ids: dict[
        ZoneName,
        Annotated[str, text(r"^subnet-[0-9a-f]{8,17}$", "a subnet id: subnet- and 8 or 17 hexadecimal digits")],
    ]
    """One private node subnet per zone (at least two zones, each subnet given once); the zones of this map
    are the VPC's zones."""


class NetworkConfig(Model):
    availability_zones: tuple[ZoneName, ...] = ()
    """Zones of the new VPC (at least two, each a zone of the region in ``catalog/regions.py``); refused with
    ``existing_vpc``, whose subnets give the zones."""
    vpc_cidr: IPv4Network = IPv4Network("10.0.0.0/16")
    """Address range of the new VPC: a /16 to /28 block, private (RFC 1918) or publicly routable, as EC2
    allows (``catalog/vpc.py``), with room for a /19 and a /24 subnet per zone."""
    nat_gateways: Annotated[int, Field(ge=1, le=6)] = 1
    """NAT gateways of the new VPC (one per zone for zone-independent egress; at most one per zone)."""
    existing_vpc: ExistingVpc | None = None
    """Use this VPC instead of creating one (no context lookup: subnets are listed)."""

    @property
    def zones(self) -> tuple[str, ...]:
        if self.existing_vpc is not None:
            return tuple(sorted(self.existing_vpc.private_subnet_ids))
        return self.availability_zones


class SystemNodeGroupConfig(Model):
    """The small CPU node group that runs controllers (DRA controller, Karpenter, exporters)."""

    instance_types: tuple[str, ...] = ("m7i.large",)
    """CPU instance types (see ``catalog/instances.py``)."""
    min_size: Annotated[int, Field(ge=0)] = 2
    """Minimum nodes (at least 1: the group holds CoreDNS and the platform's controllers)."""
    max_size: Annotated[int, Field(ge=1)] = 4
    """Maximum nodes."""
    desired_size: Annotated[int, Field(ge=0)] | None = None
    """Initial nodes; defaults to ``min_size``."""


class Capacity(Model):
    type: CapacityType = CapacityType.ON_DEMAND
    """How the pool's instances are bought."""
    reservation_id: (
        Annotated[str, text(r"^cr-[0-9a-f]{8,17}$", "a capacity reservation id: cr- and 8 or 17 hexadecimal digits")]
        | None
    ) = None
    """Capacity Block reservation (``cr-...``); required for ``capacity_block``."""
    ends_at: datetime | None = None
    """End of the Capacity Block (UTC); refused once that date is past. A schedule then scales the node group to 0 nodes
    ``scale_in_minutes_before_end`` before it, so no node is cut off mid-step by the block's end."""
    scale_in_minutes_before_end: Annotated[int, Field(ge=5, le=1440)] | None = None
    """How long before ``ends_at`` the group scales in (default 60): time for a job to checkpoint and stop."""
    placement_group: (
        Annotated[
            str, text(r"^[A-Za-z0-9._-]{1,255}$", "a placement group name: 1-255 letters, digits, '.', '_' or '-'")
        ]
        | None
    ) = None
    """Name of the cluster placement group the Capacity Block was reserved in, if any: only then may
    the pool's nodes launch into a placement group (into that one)."""


class GpuPoolConfig(Model):
    name: DnsLabel
    """Pool name; labels its nodes ``gpu-platform.io/pool``."""
    provider: CapacityProvider = CapacityProvider.MANAGED_NODE_GROUP
    """What launches the pool's nodes."""
    instance_types: Annotated[tuple[str, ...], Field(min_length=1)]
    """GPU instance types (see ``catalog/instances.py``)."""
    zones: Annotated[tuple[ZoneName, ...], Field(min_length=1)]
    """Zones of the pool; each must be a zone of the VPC."""
    zone_pinned: bool = True
    """One node group (Karpenter: NodePool) per zone, so a gang's topology domain is a whole node group."""
    min_size: Annotated[int, Field(ge=0)] = 0
    """Minimum nodes (per zone when ``zone_pinned``)."""
    max_size: Annotated[int, Field(ge=1)]
    """Maximum nodes (per zone when ``zone_pinned``); Karpenter turns it into cpu and GPU limits."""
    desired_size: Annotated[int, Field(ge=0)] | None = None
    """Initial nodes; defaults to ``min_size``. Per zone when ``zone_pinned``."""
    scaling: PoolScaling | None = None
    """Managed node groups: ``static`` (the default: ``min_size = max_size``, every node exists before a
    gang arrives) or ``autoscaled`` (Cluster Autoscaler between ``min_size`` and ``max_size``). Karpenter
    pools leave it out: ``karpenter.mode`` decides."""
    capacity: Capacity = Capacity()
    """On-demand, spot or a Capacity Block."""
    efa: bool | None = None
    """Elastic Fabric Adapter interfaces on every network card, the EFA security group and device plugin.
    Default: on when every instance type of the pool supports EFA (``catalog/efa.py``); a Karpenter pool
    also needs ``karpenter.mode: static``, listed instance types and one EFA layout
    (``policy.infrastructure.node_pools.karpenter_efa_problem``)."""
    placement_group: bool | None = None
    """A cluster placement group per zone for EFA pools. Default: on for EFA pools, except Capacity Blocks,
    whose nodes must launch into the block's own group (``capacity.placement_group``) or none."""
    root_volume_gib: Annotated[int, Field(ge=50, le=16384)] = 200
    """Encrypted gp3 root volume size."""
    labels: dict[LabelKey, LabelValue] = {}
    """Extra node labels. Keys kubelet refuses (``kubernetes.io``/``k8s.io`` namespaces outside
    ``node.kubernetes.io/`` and ``kubelet.kubernetes.io/``), Karpenter's domains and the platform's own
    (``gpu-platform.io/*``, ``nvidia.com/mig.config``) are refused."""
    taints: tuple[Taint, ...] = (GPU_TAINT,)
    """Node taints; by default ``nvidia.com/gpu=true:NoSchedule``."""
    dra: bool = True
    """Expose GPUs through the NVIDIA DRA driver (ResourceSlices)."""
    device_plugin: bool = False
    """Expose GPUs as ``nvidia.com/gpu`` through the device plugin. Never together with ``dra``."""
    mig_profile: str | None = None
    """MIG profile every GPU of the pool is partitioned into (e.g. ``1g.10gb``), applied by NVIDIA's MIG
    manager from the ``nvidia.com/mig.config`` node label; the pool then serves only MIG DeviceClasses
    of that profile. Empty: whole GPUs."""
    karpenter: KarpenterPoolConfig | None = None
    """Karpenter-only settings of a ``provider: karpenter`` pool; defaults when left out."""


class FeatureGatesConfig(Model):
    control_plane: tuple[str, ...] = ()
    """Gates the control plane provides. On EKS AWS sets them: this records what we rely on, and a gate
    EKS 1.37 does not serve (`catalog/eks_control_plane.py`) must also be listed in
    `acknowledge_served_beyond_eks`. Without GenericWorkload, gangs render in the fallback form."""
    acknowledge_served_beyond_eks: tuple[str, ...] = ()
    """Gates of `control_plane` that this cluster's control plane serves although EKS 1.37 does not
    (a self-managed control plane, or once AWS turns a gate on). Said at synth, in SUMMARY.md and in
    the `ServedBeyondEks` stack output; `make verify` checks them on the live cluster."""
    kubelet: tuple[str, ...] = ()
    """Gates set on GPU nodes' kubelets through the nodeadm ``NodeConfig``."""


class EnvironmentConfig(Model):
    name: DnsLabel
    """Environment name; names the stacks and ``dist/<name>/``."""
    account: AccountId | None = None
    """Target account. Leave empty for an environment-agnostic synth."""
    region: Annotated[str, text(r"^[a-z]{2}(-[a-z]+)+-\d$", "an AWS region name (e.g. us-west-2)")]
    """AWS region of the cluster."""
    long_lived: bool = False
    """Keeps the cluster, its secrets key and network when the stack is deleted (never after a failed first
    create), with EKS deletion protection turned on once the node groups exist."""
    ephemeral: EphemeralConfig | None = None
    """Short-lived, one copy per pipeline run (`-c run_id=...` names it); never with `long_lived`."""
    tags: dict[str, str] = {}
    """Tags on every resource, next to ``environment``, ``cluster`` and ``managed-by``."""
    cluster: ClusterConfig
    """The EKS control plane."""
    network: NetworkConfig
    """The VPC: created, or an existing one by id."""
    system_nodes: SystemNodeGroupConfig = SystemNodeGroupConfig()
    """The CPU node group for controllers."""
    gpu_pools: tuple[GpuPoolConfig, ...] = ()
    """GPU capacity, one entry per pool."""
    dra_driver: DraDriverConfig = DraDriverConfig()
    """The NVIDIA DRA driver release."""
    feature_gates: FeatureGatesConfig = FeatureGatesConfig()
    """Kubernetes feature gates the platform relies on (see ``catalog/feature_gates.py``)."""
    karpenter: KarpenterConfig = KarpenterConfig()
    """The Karpenter controller, installed when a GPU pool has ``provider: karpenter``."""
    cluster_autoscaler: ClusterAutoscalerConfig = ClusterAutoscalerConfig()
    """Cluster Autoscaler, installed when a managed node group pool has ``scaling: autoscaled``."""
    platform: PlatformConfig = PlatformConfig()
    """Platform-owned Kubernetes objects: DeviceClasses, priority tiers, teams."""
    observability: ObservabilityConfig = ObservabilityConfig()
    """Gang observability: the gang exporter, its alerts and Grafana dashboard."""
