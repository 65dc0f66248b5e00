"""EFA from config, as plain data: launch template and EC2NodeClass interfaces, device plugin values, what
gang pods get on each pool (devices, huge pages, libfabric settings) and which pools a run is pinned to.

Sources: EC2 User Guide "Elastic Fabric Adapter" and "Maximize network bandwidth ... with multiple network
cards" (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html), EKS "Run machine
learning training on Amazon EKS with Elastic Fabric Adapter" (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html)
and "Manage EFA devices on Amazon EKS" (https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalog.efa import EFA_HUGEPAGES_PER_NODE_MIB, EFA_RESOURCE, EFA_SUPPORT
from catalog.instances import INSTANCE_TYPES
from config.model import EnvironmentConfig, GpuPoolConfig
from policy.infrastructure.capacity import MIG_SLICES_PER_GPU
from policy.infrastructure.node_pools import efa_enabled, efa_interfaces_per_node, max_nodes


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


@dataclass(frozen=True)
class EfaPodSettings:
    """What a GPU pod on EFA nodes needs: its share of the node's EFA devices and of the huge pages the EFA
    driver pre-allocates, and libfabric settings (every gang pod already gets a memory-backed ``/dev/shm``,
    which NCCL's shared-memory transport needs)."""

    efa_devices: int
    hugepages_mib: int
    """``hugepages-2Mi`` the pod requests (requests = limits, as Kubernetes requires for huge pages)."""
    env: tuple[tuple[str, str], ...]


def pool_efa_settings(pool: GpuPoolConfig, *, gpus: int) -> EfaPodSettings | None:
    """EFA settings for a pod of ``gpus`` devices (GPUs, or MIG slices on a MIG pool) on ``pool``'s nodes;
    ``None`` without EFA, without devices, or when the pod's share of the node is less than one interface.

    - ``vpc.amazonaws.com/efa``: the pod's share of the node's interfaces, by its share of the node's
      devices, rounded down. The device plugin gives each interface to one pod only, so a pod with less
      than one interface's share (one GPU of a 4-GPU, 1-EFA g6.12xlarge; a MIG slice) requests none:
      otherwise one such pod would keep every other EFA pod off the node. Rounding down, the pods that
      fill a node never ask for more interfaces than it has.
    - ``hugepages-2Mi``: the same share of AWS's full-node request (``EFA_HUGEPAGES_PER_NODE_MIB``), in
      whole 2 MiB pages; a node holds ``EFA_PREALLOCATED_HUGEPAGES`` pages, so every share fits.
    - ``FI_PROVIDER=efa`` and ``FI_EFA_FORK_SAFE=1`` (data loaders fork) as in the AWS EFA/NCCL guides;
      ``FI_EFA_USE_DEVICE_RDMA=1`` only where every type of the pool supports RDMA read (the instance
      table's ``efa_rdma_read``).
    """
    if not gpus or not efa_enabled(pool):
        return None
    types = [INSTANCE_TYPES[t] for t in pool.instance_types]
    node_devices = max(t.gpus for t in types) * _slices_per_gpu(pool)
    share = min(gpus, node_devices)
    devices = efa_interfaces_per_node(pool) * share // node_devices
    if not devices:
        return None
    hugepages = max(2, EFA_HUGEPAGES_PER_NODE_MIB * share // node_devices // 2 * 2)
    env = [("FI_EFA_FORK_SAFE", "1"), ("FI_PROVIDER", "efa")]
    if all(t.efa_rdma_read for t in types):
        env.append(("FI_EFA_USE_DEVICE_RDMA", "1"))
    return EfaPodSettings(efa_devices=devices, hugepages_mib=hugepages, env=tuple(sorted(env)))


def _slices_per_gpu(pool: GpuPoolConfig) -> int:
    """Devices each GPU of the pool publishes: its MIG slices on a MIG pool, else 1."""
    return MIG_SLICES_PER_GPU[pool.mig_profile.split(".", 1)[0]] if pool.mig_profile else 1


@dataclass(frozen=True)
class EfaPlacement:
    """Where a run's GPU pods go and what EFA they request there."""

    settings: EfaPodSettings | None
    pools: tuple[str, ...]
    """Pools the GPU pods are pinned to (node affinity on the pool label); empty: every serving pool, as
    they all give the pods the same settings."""
    left_out: tuple[tuple[str, EfaPodSettings | None], ...] = ()
    """Serving pools the pin keeps the run off, with what a pod would have requested there."""


def efa_placement(pools: list[GpuPoolConfig], *, gpus: int) -> EfaPlacement:
    """A run's EFA request per the pool it lands on, never the smallest over its pools.

    Pools whose nodes give a pod of ``gpus`` GPUs the same EFA settings (devices, huge pages, RDMA) form one
    group. One group: no pin. Several: the run is pinned to one group by node affinity, so every pod asks
    for what its node has. The chosen group: EFA before none, then the most GPUs the group's pools can
    hold, then the most EFA devices per pod, then config order.
    """
    groups: dict[EfaPodSettings | None, list[GpuPoolConfig]] = {}
    for pool in pools:
        groups.setdefault(pool_efa_settings(pool, gpus=gpus), []).append(pool)
    if len(groups) <= 1:
        return EfaPlacement(settings=next(iter(groups), None), pools=())

    def rank(item: tuple[EfaPodSettings | None, list[GpuPoolConfig]]) -> tuple[bool, int, int]:
        settings, members = item
        capacity = sum(max_nodes(p) * max(INSTANCE_TYPES[t].gpus for t in p.instance_types) for p in members)
        return settings is not None, capacity, settings.efa_devices if settings else 0

    chosen, members = max(groups.items(), key=rank)  # max keeps the first of equals: config order
    return EfaPlacement(
        settings=chosen,
        pools=tuple(p.name for p in members),
        left_out=tuple((p.name, s) for s, group in groups.items() if s != chosen for p in group),
    )


def karpenter_network_interfaces(pool: GpuPoolConfig) -> list[dict[str, Any]]:
    """EC2NodeClass ``spec.networkInterfaces`` of a Karpenter EFA pool, as the EKS User Guide's example
    (``device-management-efa``, P6-B200): the primary ``interface`` (ENA, IP traffic) on card 0 device 0,
    then one ``efa-only`` per network card (card 0 at device 1). The CRD allows exactly these two types,
    requires that primary and at most one EFA per card. Empty without EFA (Karpenter then attaches
    ``efa`` interfaces only for pods that request ``vpc.amazonaws.com/efa``)."""
    cards = efa_interfaces_per_node(pool)
    if not cards:
        return []
    primary = {"deviceIndex": 0, "interfaceType": "interface", "networkCardIndex": 0}
    efa = [
        {"deviceIndex": 1 if card == 0 else 0, "interfaceType": "efa-only", "networkCardIndex": card}
        for card in range(cards)
    ]
    return [primary, *efa]


__all__ = ["EFA_RESOURCE", "EfaPlacement", "EfaPodSettings", "NetworkInterfaceSpec"]
