"""Configuration of Karpenter: the controller (top-level ``karpenter:``) and its GPU pools.

A Karpenter pool is an ordinary ``gpu_pools`` entry with ``provider: karpenter``: its name,
instance types, zones, labels, taints, root volume and device management mean what they
mean for a managed node group, so gang templates, the DRA driver and the device plugin
treat both providers alike. What only Karpenter has lives in the pool's ``karpenter:``
section. Cross-field rules are in ``addons.karpenter.rules``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints

from addons.karpenter.pin import KARPENTER_AMI_RELEASE, KARPENTER_VERSION
from config.model_base import AccountId, Model, text


class KarpenterMode(StrEnum):
    DYNAMIC = "dynamic"
    STATIC = "static"


class KarpenterCapacityType(StrEnum):
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED = "reserved"

    @property
    def label_value(self) -> str:
        """The ``karpenter.sh/capacity-type`` value."""
        return self.value.replace("_", "-")


TagKey = Annotated[str, StringConstraints(min_length=1, max_length=128)]
TagValue = Annotated[str, StringConstraints(min_length=1, max_length=256)]


class CapacityReservationSelector(Model):
    """One ``capacityReservationSelectorTerms`` entry: a reservation by id, or every reservation with these tags."""

    id: (
        Annotated[str, text(r"^cr-[0-9a-z]+$", "a capacity reservation id: cr- and lower-case letters or digits")]
        | None
    ) = None
    """Reservation id (``cr-...``): an On-Demand Capacity Reservation or a Capacity Block."""
    tags: dict[TagKey, TagValue] = {}
    """Select reservations by tags instead of by id."""
    owner_account: AccountId | None = None
    """Account that owns tag-selected reservations shared with this one (only with ``tags``)."""


class KarpenterPoolConfig(Model):
    """What only a Karpenter pool has. Defaults suit training: nodes are never expired or
    rolled under a running job, and empty nodes go after ``consolidate_after_minutes``."""

    mode: KarpenterMode = KarpenterMode.DYNAMIC
    """`dynamic`: nodes follow pending pods, up to `max_size`. `static`: hold exactly `max_size` nodes
    (NodePool `replicas`, alpha in Karpenter), for big gangs and Capacity Blocks."""
    instance_families: tuple[str, ...] = ()
    """Let Karpenter pick any size of these GPU families (`instance_types` must belong to them);
    empty: exactly `instance_types`."""
    capacity_types: Annotated[tuple[KarpenterCapacityType, ...], Field(min_length=1)] = (
        KarpenterCapacityType.ON_DEMAND,
    )
    """Purchase options Karpenter may use; with several it prefers reserved, then spot, then on-demand."""
    capacity_reservations: tuple[CapacityReservationSelector, ...] = ()
    """Capacity reservations and Capacity Blocks to launch into; required with capacity type `reserved`."""
    consolidate_after_minutes: Annotated[int, Field(ge=0, le=10080)] = 30
    """How long a node must stay empty before Karpenter removes it (`consolidationPolicy: WhenEmpty`)."""


class KarpenterConfig(Model):
    """The Karpenter controller; installed only when a GPU pool has ``provider: karpenter``."""

    version: str = KARPENTER_VERSION
    """Karpenter release (controller and CRD charts); must be a row of `addons/karpenter/pin.py`."""
    ami_release: Annotated[
        str, text(r"^v\d{8}$", "an amazon-eks-ami release: v and a date as 8 digits (e.g. v20260930)")
    ] = KARPENTER_AMI_RELEASE
    """amazon-eks-ami release (`vYYYYMMDD`) of Karpenter nodes, used as the `al2023@<release>` alias."""
    acknowledge_unsupported_kubernetes: bool = False
    """Run a Karpenter release whose support range excludes the cluster's Kubernetes minor (synth warns)."""
    acknowledge_unverified_release: bool = False
    """Run a Karpenter release whose compatibility row in `addons/karpenter/pin.py` is assumed, not yet
    checked against upstream (synth warns)."""
