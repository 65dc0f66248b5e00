"""Floor for the render benchmark: a one-DeviceClass cdk8s-plus-37 app written as YAML, as ``make render`` writes."""

import os
import sys

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from pathlib import Path

import yaml
from cdk8s import App, Chart
from cdk8s_plus_37 import k8s

chart = Chart(App(), "device-classes", disable_resource_name_hashes=True)
k8s.KubeDeviceClass(
    chart,
    "H100",
    metadata=k8s.ObjectMeta(name="h100-80gb.gpu-platform.io"),
    spec=k8s.DeviceClassSpec(
        selectors=[k8s.DeviceSelector(cel=k8s.CelDeviceSelector(expression="device.driver == 'gpu.nvidia.com'"))]
    ),
)
target = Path(sys.argv[1] if len(sys.argv) > 1 else "dist-floor")
target.mkdir(parents=True, exist_ok=True)
(target / "device-classes.yaml").write_text(yaml.safe_dump_all(chart.to_json(), sort_keys=True), encoding="utf-8")
