"""API-before-use: every object a stack applies has its API served by the time it is applied.

A property of the synthesized CloudFormation template, not of one example: every
``apiVersion/kind`` a KubernetesManifest applies (and every type a KubernetesObjectValue
reads or a KubernetesPatch patches) must be built into Kubernetes, or come from a CRD that a
resource it depends on installs (a Helm chart whose row in ``catalog.versions.CHART_API_GROUPS``
lists the group, or a manifest that contains the CustomResourceDefinition), or be an API the
environment states the cluster already serves. A manifest's own CRDs do not count for its other
objects: ``kubectl apply`` maps every kind of a file before the new CRD is established
("no matches for kind ... ensure CRDs are installed first").
"""

from policy.checks.api_order.check import Violation, api_before_use, assumed_api_groups
from policy.checks.api_order.template import KubeResource, kube_resources

__all__ = ["KubeResource", "Violation", "api_before_use", "assumed_api_groups", "kube_resources"]
