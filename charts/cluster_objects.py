"""Cluster-scoped platform objects: the DeviceClass catalogue and the PriorityClass tiers."""

from __future__ import annotations

from cdk8s_plus_37 import k8s
from constructs import Construct

from catalog.device_classes import DEVICE_CLASSES
from catalog.labels import DOMAIN
from catalog.priority_tiers import TIERS
from charts.ordering import SYNC_WAVE, sync_wave
from config.platform import PlatformConfig
from policy.infrastructure.device_classes import selector_expression

MANAGED_BY = {"app.kubernetes.io/managed-by": "gpu-platform"}


class PlatformDeviceClasses(Construct):
    """One ``resource.k8s.io/v1`` DeviceClass per GPU shape the environment publishes.

    Never the driver's own class names, and no ``extendedResourceName``: the driver's
    ``gpu.nvidia.com`` class owns ``nvidia.com/gpu``, and the newest class claiming a name wins.
    """

    def __init__(self, scope: Construct, construct_id: str, *, platform: PlatformConfig) -> None:
        super().__init__(scope, construct_id)
        for shape in sorted(set(platform.device_classes)):
            spec = DEVICE_CLASSES[shape]
            k8s.KubeDeviceClass(
                self,
                shape.value,
                metadata=k8s.ObjectMeta(
                    name=spec.name,
                    labels={**MANAGED_BY, f"{DOMAIN}/device-shape": shape.value},
                    annotations={SYNC_WAVE: str(sync_wave("DeviceClass")), f"{DOMAIN}/description": spec.description},
                ),
                spec=k8s.DeviceClassSpec(
                    selectors=[k8s.DeviceSelector(cel=k8s.CelDeviceSelector(expression=selector_expression(spec)))],
                ),
            )


class PriorityTiers(Construct):
    """The PriorityClass of every tier; at most one is the global default."""

    def __init__(self, scope: Construct, construct_id: str, *, platform: PlatformConfig) -> None:
        super().__init__(scope, construct_id)
        for tier, spec in TIERS.items():
            k8s.KubePriorityClass(
                self,
                tier.value,
                metadata=k8s.ObjectMeta(
                    name=spec.priority_class,
                    labels={**MANAGED_BY, f"{DOMAIN}/tier": tier.value},
                    annotations={SYNC_WAVE: str(sync_wave("PriorityClass"))},
                ),
                value=spec.value,
                preemption_policy=spec.preemption_policy.value,
                global_default=platform.default_tier is tier,
                description=spec.description,
            )
