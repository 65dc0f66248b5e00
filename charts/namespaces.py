"""Team namespaces, labelled with what the admission policies enforce: team, gang management, tier grants."""

from __future__ import annotations

from cdk8s_plus_37 import k8s
from constructs import Construct

from catalog.labels import GANG_MANAGED_LABEL, TEAM_LABEL, tier_grant_label
from catalog.priority_tiers import Tier
from charts.ordering import SYNC_WAVE, sync_wave
from config.platform import PlatformConfig

GRANTED = "allowed"


def namespace_labels(platform: PlatformConfig) -> dict[str, dict[str, str]]:
    """Labels per namespace: every team namespace, plus the platform namespaces that may use critical."""
    labels: dict[str, dict[str, str]] = {}
    for team, config in sorted(platform.teams.items()):
        labels[config.namespace] = {
            TEAM_LABEL: team,
            GANG_MANAGED_LABEL: "true",
            **{tier_grant_label(t.value): GRANTED for t in sorted(set(config.tiers))},
        }
    for namespace in platform.platform_namespaces:
        labels.setdefault(namespace, {})[tier_grant_label(Tier.CRITICAL.value)] = GRANTED
    return labels


class PlatformNamespaces(Construct):
    """One Namespace per team (and platform namespace), carrying its grants as labels."""

    def __init__(self, scope: Construct, construct_id: str, *, platform: PlatformConfig) -> None:
        super().__init__(scope, construct_id)
        for name, labels in sorted(namespace_labels(platform).items()):
            k8s.KubeNamespace(
                self,
                name,
                metadata=k8s.ObjectMeta(
                    name=name,
                    labels={"app.kubernetes.io/managed-by": "gpu-platform", **labels},
                    annotations={SYNC_WAVE: str(sync_wave("Namespace"))},
                ),
            )
