"""EFA from config, as plain data: launch template interfaces, device plugin values, what gang pods get.

Sources: EC2 User Guide "Elastic Fabric Adapter" and "Maximize network bandwidth ... with multiple network
cards" (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html), EKS "Run machine
learning training on Amazon EKS with Elastic Fabric Adapter" (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalog.efa import EFA_LABEL, EFA_RESOURCE, EFA_SUPPORT
from catalog.instances import INSTANCE_TYPES
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.node_pools import efa_enabled, efa_interfaces_per_node, tolerations_for


@dataclass(frozen=True)
class NetworkInterfaceSpec:
    """One launch template network interface: the primary ``efa`` on card 0, then one per other card.

    No ``SubnetId``: a managed node group's launch template must not carry one (EKS
    ``LaunchTemplateSpecification``); each interface lands in the node group's subnet.
    """

    network_card_index: int
    device_index: int
    interface_type: str


def efa_network_interfaces(pool: GpuPoolConfig) -> list[NetworkInterfaceSpec]:
    """One EFA per network card: the primary (card 0, device 0) is ``efa`` (EFA with an IP address, as the
    primary must be); every other card's device 0 is ``efa-only`` where the type supports it (no IP address
    used), else ``efa``. The fewest cards over the pool's types, so every type can launch."""
    cards = efa_interfaces_per_node(pool)
    efa_only = all(EFA_SUPPORT[t].efa_only for t in pool.instance_types) if cards else False
    return [NetworkInterfaceSpec(card, 0, "efa" if card == 0 or not efa_only else "efa-only") for card in range(cards)]


def efa_pools(env: EnvironmentConfig) -> tuple[GpuPoolConfig, ...]:
    return tuple(p for p in env.gpu_pools if efa_enabled(p))


def efa_device_plugin_values(env: EnvironmentConfig) -> dict[str, Any]:
    """Values for chart ``aws-efa-k8s-device-plugin``: its DaemonSet only on EFA pools, tolerating their taints.
    The chart's own affinity (``supportedInstanceLabels``) lists every EFA type this kit knows."""
    taints = tuple(t for p in efa_pools(env) for t in p.taints)
    return {"nodeSelector": {EFA_LABEL: "true"}, "tolerations": tolerations_for(taints)}


@dataclass(frozen=True)
class EfaPodSettings:
    """What a GPU pod on EFA nodes needs: its share of the node's EFA devices and libfabric settings (every
    gang pod already gets a memory-backed ``/dev/shm``, which NCCL's shared-memory transport needs)."""

    efa_devices: int
    env: tuple[tuple[str, str], ...]


def efa_pod_settings(pools: list[GpuPoolConfig], *, gpus: int) -> EfaPodSettings | None:
    """EFA settings for a pod of ``gpus`` GPUs that only ``pools`` serve, or ``None`` when a serving pool has
    no EFA (the request would keep the pod off its nodes) or the pod has no GPU.

    - ``vpc.amazonaws.com/efa``: the pod's share of the node's interfaces, by its share of the node's GPUs.
    - ``FI_PROVIDER=efa`` and ``FI_EFA_FORK_SAFE=1`` (data loaders fork) as in the AWS EFA/NCCL guides;
      ``FI_EFA_USE_DEVICE_RDMA=1`` only where every type supports RDMA read (p4d, p5, p6; not g5).
    """
    if not gpus or not pools or not all(efa_enabled(p) for p in pools):
        return None
    types = [INSTANCE_TYPES[t] for p in pools for t in p.instance_types]
    devices = min(
        max(1, efa_interfaces_per_node(p) * gpus // max(INSTANCE_TYPES[t].gpus for t in p.instance_types))
        for p in pools
    )
    env = [("FI_EFA_FORK_SAFE", "1"), ("FI_PROVIDER", "efa")]
    if all(t.family not in _NO_RDMA_FAMILIES for t in types):
        env.append(("FI_EFA_USE_DEVICE_RDMA", "1"))
    return EfaPodSettings(efa_devices=devices, env=tuple(sorted(env)))


_NO_RDMA_FAMILIES = frozenset({"g5"})
"""Families on EFA without RDMA read (EC2 User Guide, EFA supported instance types by Nitro version)."""

__all__ = ["EFA_RESOURCE", "EfaPodSettings", "NetworkInterfaceSpec"]
