"""Label and taint keys kubelet and Karpenter accept on a pool's nodes."""

from __future__ import annotations

import pytest

from config.validate_labels import label_key_problem, reserved_label_problem


@pytest.mark.parametrize("key", ["team", "example.com/team", "node.kubernetes.io/gpu-pool", "a.b-c/x_y.z"])
def test_valid_keys_pass(key: str) -> None:
    assert label_key_problem(key) is None


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("bad key", "the name after the prefix"),
        ("-team", "the name after the prefix"),
        ("Example.COM/team", "the prefix before '/' is not a DNS subdomain"),
        ("example.com/" + "x" * 64, "the name after the prefix"),
    ],
)
def test_invalid_keys_say_what_is_wrong(key: str, problem: str) -> None:
    found = label_key_problem(key)
    assert found is not None and found.startswith(problem)


def test_kubelet_keeps_its_namespaces_but_lets_pools_use_node_kubernetes_io() -> None:
    refused = reserved_label_problem("kubernetes.io/role")
    assert refused is not None and "kubelet refuses node labels in the kubernetes.io namespace" in refused
    assert reserved_label_problem("node.kubernetes.io/gpu-pool") is None
    assert reserved_label_problem("example.com/team") is None


def test_karpenter_label_domains_are_its_own() -> None:
    refused = reserved_label_problem("karpenter.sh/custom")
    assert refused is not None and "Karpenter's own" in refused
