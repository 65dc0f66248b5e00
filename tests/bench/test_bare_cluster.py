"""The synth benchmark's floor: one eks-v2 cluster like the kit's, with one node group, Helm chart and cdk8s chart."""

from __future__ import annotations

import json
import runpy
from collections import Counter
from pathlib import Path

import pytest


def test_it_synthesizes_the_smallest_cluster_like_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CDK_OUTDIR", str(tmp_path))
    runpy.run_module("bench.bare_cluster", run_name="__main__")
    template = json.loads((tmp_path / "bare-cluster.template.json").read_text())
    resources = template["Resources"].values()
    kinds = Counter(r["Type"] for r in resources)
    assert kinds["AWS::EKS::Cluster"] == kinds["AWS::EKS::Nodegroup"] == kinds["Custom::AWSCDK-EKS-HelmChart"] == 1
    assert kinds["Custom::AWSCDK-EKS-KubernetesResource"] == 1  # the cdk8s chart
    assert kinds["AWS::EC2::VPC"] == 1
    ((cluster,),) = [[r["Properties"] for r in resources if r["Type"] == "AWS::EKS::Cluster"]]
    assert cluster["Version"] == "1.37"
    ((group,),) = [[r["Properties"] for r in resources if r["Type"] == "AWS::EKS::Nodegroup"]]
    assert (group["AmiType"], group["InstanceTypes"]) == ("AL2023_x86_64_NVIDIA", ["g6.xlarge"])
    ((manifest,),) = [[r["Properties"] for r in resources if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"]]
    assert '"kind":"PriorityClass"' in manifest["Manifest"] and "gpu-standard" in manifest["Manifest"]
