"""What the cluster stack deploys from a render, as plain data (no cdk8s: ``make synth`` hands it
from its renderer process to the CloudFormation synthesis, which then never loads cdk8s)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Objects = list[dict[str, Any]]


@dataclass(frozen=True)
class DeployedObjects:
    cluster_files: Mapping[str, Objects]
    """Cluster-scoped platform objects per ``dist/`` file (namespaces, DeviceClasses, PriorityClasses, policies)."""
    observability: Objects
    """The gang exporter's objects as ``dist/`` has them (``DIST_IMAGE``); empty when observability is off."""
