"""Node labels and taints of a GPU pool: what kubelet, EKS or Karpenter would refuse, and what the
platform would overwrite, refused at synth in one line (``catalog/labels.py`` holds the rules' sources)."""

from __future__ import annotations

import re

from catalog.labels import (
    DOMAIN,
    EKS_LABEL_CHARACTERS,
    EKS_NODEGROUP_API,
    EKS_TAINTS_PER_NODE_GROUP,
    KARPENTER_LABEL_DOMAINS,
    KUBELET_LABEL_NAMESPACES,
    KUBELET_NODE_LABELS_DOC,
    KUBELET_SET_LABELS,
    MIG_CONFIG_LABEL,
    RESERVED_LABEL_DOMAINS,
)
from config.errors import ConfigError
from config.model import CapacityProvider, GpuPoolConfig

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_KEY_WORDS = (
    "write a key as an optional prefix and '/', then a name: the prefix a DNS subdomain of at most 253 "
    "characters (lower-case letters, digits and '-', in parts joined by '.'), the name 1-63 letters, digits, "
    "'-', '_' or '.' starting and ending with a letter or digit (e.g. example.com/team)"
)


def label_key_problem(key: str) -> str | None:
    """What is wrong with ``key`` as a Kubernetes label or taint key, or ``None``."""
    prefix, _, name = key.rpartition("/")
    if not name or len(name) > 63 or not re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?", name):
        return "the name after the prefix is not 1-63 letters, digits, '-', '_' or '.' between a letter or digit"
    if "/" in key and (len(prefix) > 253 or not all(_DNS_LABEL.fullmatch(part) for part in prefix.split("."))):
        return "the prefix before '/' is not a DNS subdomain"
    return None


def _in_domain(key: str, domains: tuple[str, ...]) -> str | None:
    prefix = key.rpartition("/")[0]
    return next((d for d in domains if prefix == d or prefix.endswith(f".{d}")), None)


def reserved_label_problem(key: str) -> str | None:
    """Why kubelet (or the cloud provider) keeps ``key`` for itself, or ``None`` when a pool may set it."""
    if key in KUBELET_SET_LABELS:
        return "kubelet and the cloud provider set this label from the node itself"
    domain = _in_domain(key, RESERVED_LABEL_DOMAINS)
    if domain is not None and _in_domain(key, KUBELET_LABEL_NAMESPACES) is None:
        return (
            f"kubelet refuses node labels in the {domain} namespace except under "
            f"{' and '.join(n + '/' for n in KUBELET_LABEL_NAMESPACES)} (--node-labels, {KUBELET_NODE_LABELS_DOC})"
        )
    domain = _in_domain(key, KARPENTER_LABEL_DOMAINS)
    if domain is not None:
        return f"label domain {domain} is Karpenter's own (its NodePool CRD refuses it)"
    return None


_OWN_KEY_FIX = "use a prefix of your own, e.g. example.com/<name>, or node.kubernetes.io/<name>"


def check_pool_labels(pool: GpuPoolConfig, where: str) -> None:
    managed = pool.provider is CapacityProvider.MANAGED_NODE_GROUP
    for key, value in sorted(pool.labels.items()):
        field = f"{where}.labels.{key}"
        problem = label_key_problem(key)
        if problem is not None:
            raise ConfigError(field, key, f"not a label key: {problem}", _KEY_WORDS)
        problem = reserved_label_problem(key)
        if problem is not None:
            raise ConfigError(field, key, problem, _OWN_KEY_FIX)
        if _in_domain(key, (DOMAIN,)) is not None or key == MIG_CONFIG_LABEL:
            raise ConfigError(
                field,
                key,
                f"the platform sets this label itself ({DOMAIN}/* from the pool, {MIG_CONFIG_LABEL} from mig_profile), "
                "so the value written here would never reach a node",
                "remove it (set mig_profile for MIG), or use a prefix of your own, e.g. example.com/<name>",
            )
        if managed and len(key) > EKS_LABEL_CHARACTERS:
            raise ConfigError(
                field,
                key,
                f"EKS node group label keys have at most {EKS_LABEL_CHARACTERS} characters, prefix included "
                f"({EKS_NODEGROUP_API})",
                f"shorten the key to at most {EKS_LABEL_CHARACTERS} characters",
            )
        if managed and not value:
            raise ConfigError(
                field,
                value,
                f"EKS node group label values have 1-{EKS_LABEL_CHARACTERS} characters ({EKS_NODEGROUP_API})",
                "give the label a value, e.g. 'true'",
            )
    _check_taints(pool, where)


def _check_taints(pool: GpuPoolConfig, where: str) -> None:
    managed = pool.provider is CapacityProvider.MANAGED_NODE_GROUP
    if managed and len(pool.taints) > EKS_TAINTS_PER_NODE_GROUP:
        raise ConfigError(
            f"{where}.taints",
            len(pool.taints),
            f"more than the {EKS_TAINTS_PER_NODE_GROUP} taints EKS allows per node group ({EKS_NODEGROUP_API})",
            f"keep at most {EKS_TAINTS_PER_NODE_GROUP} taints",
        )
    seen: dict[tuple[str, str], int] = {}
    for index, taint in enumerate(pool.taints):
        field = f"{where}.taints[{index}].key"
        problem = label_key_problem(taint.key)
        if problem is not None:
            raise ConfigError(field, taint.key, f"not a taint key: {problem}", _KEY_WORDS)
        domain = _in_domain(taint.key, RESERVED_LABEL_DOMAINS)
        if domain is not None:
            raise ConfigError(
                field,
                taint.key,
                f"taints in the {domain} namespace are Kubernetes' own (the node lifecycle controller adds and "
                "removes them, e.g. node.kubernetes.io/not-ready)",
                "use a prefix of your own, e.g. example.com/<name>",
            )
        if managed and len(taint.key) > EKS_LABEL_CHARACTERS:
            raise ConfigError(
                field,
                taint.key,
                f"EKS taint keys have at most {EKS_LABEL_CHARACTERS} characters, prefix included ({EKS_NODEGROUP_API})",
                f"shorten the key to at most {EKS_LABEL_CHARACTERS} characters",
            )
        identity = (taint.key, taint.effect.value)
        if identity in seen:
            raise ConfigError(
                f"{where}.taints[{index}]",
                f"{taint.key}:{taint.effect.value}",
                f"taints[{seen[identity]}] has the same key and effect; a node holds one taint per key and effect",
                "keep one of the two",
            )
        seen[identity] = index
