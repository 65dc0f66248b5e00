"""Bounds the services enforce at deploy time, as data: each row names where the bound is documented.

Config refuses a value outside these at synth (``config.validate_limits``), so a deploy never
fails on them. A quota that can be raised is marked ``adjustable``: the bound is the default,
and the fix says to ask for an increase first.
"""

from __future__ import annotations

from dataclasses import dataclass

EKS_QUOTAS = "https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html"
AWS_TAGS = "https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html#tag-conventions"


@dataclass(frozen=True)
class ServiceLimit:
    value: int
    what: str
    source: str
    adjustable: bool = False


NODES_PER_MANAGED_NODE_GROUP = ServiceLimit(450, "nodes per managed node group", EKS_QUOTAS)
PUBLIC_ACCESS_CIDRS_PER_CLUSTER = ServiceLimit(40, "public endpoint CIDR ranges per cluster", EKS_QUOTAS)
TAGS_PER_RESOURCE = ServiceLimit(50, "user tags per resource", AWS_TAGS)
TAG_KEY_CHARACTERS = ServiceLimit(128, "characters in a tag key", AWS_TAGS)
TAG_VALUE_CHARACTERS = ServiceLimit(256, "characters in a tag value", AWS_TAGS)
RESERVED_TAG_PREFIX = "aws:"
"""Tag keys AWS reserves for itself (any case); users cannot create them (AWS_TAGS)."""
TAG_PUNCTUATION = frozenset("_.:/=+-@ ")
"""Besides letters, digits and spaces in UTF-8, the characters tag keys and values may hold (AWS_TAGS)."""

PLATFORM_TAG_COUNT = 4
"""Tags the stacks add to every resource: environment, cluster, managed-by, and run-id on CI runs."""
