"""The exporter's command line: defaults the Deployment relies on, and repeatable DeviceClasses."""

from __future__ import annotations

from exporter.gang_exporter.__main__ import parse_args


def test_defaults_serve_on_8080_with_two_minute_preemption_episodes() -> None:
    args = parse_args([])
    assert (args.address, args.port) == ("0.0.0.0", 8080)
    assert args.preemption_episode_seconds == 120.0
    assert args.gpu_device_classes is None


def test_device_classes_repeat() -> None:
    args = parse_args(["--gpu-device-class", "gpu.nvidia.com", "--gpu-device-class", "mig-1g", "--port", "9100"])
    assert args.gpu_device_classes == ["gpu.nvidia.com", "mig-1g"]
    assert args.port == 9100
