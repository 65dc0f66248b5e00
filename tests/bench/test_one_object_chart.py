"""The render benchmark's floor writes one DeviceClass as YAML, the way ``make render`` writes its files."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest
import yaml


def test_it_writes_one_device_class_to_the_given_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "floor"
    monkeypatch.setattr(sys, "argv", ["one_object_chart", str(target)])
    runpy.run_module("bench.one_object_chart", run_name="__main__")
    assert [p.name for p in target.iterdir()] == ["device-classes.yaml"]
    (device_class,) = list(yaml.safe_load_all((target / "device-classes.yaml").read_text()))
    assert device_class == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "h100-80gb.gpu-platform.io"},
        "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]},
    }
