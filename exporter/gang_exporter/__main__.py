"""Entrypoint: ``python -m gang_exporter``."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
import time
from collections.abc import Sequence

from kubernetes import client, config
from prometheus_client import CollectorRegistry, PlatformCollector, ProcessCollector

from .collector import GangCollector
from .kube import SharedState, informers_for, start
from .server import make_app, serve
from .state import DEFAULT_GPU_DEVICE_CLASSES, DEFAULT_GPU_RESOURCE, GangState


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gang_exporter", description=__doc__)
    parser.add_argument("--address", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument(
        "--gpu-resource",
        default=DEFAULT_GPU_RESOURCE,
        help="extended resource counted as GPUs (Node allocatable, Pod requests)",
    )
    parser.add_argument(
        "--gpu-device-class",
        action="append",
        dest="gpu_device_classes",
        help="DeviceClass counted as GPUs in ResourceClaims (repeatable)",
    )
    parser.add_argument("--preemption-episode-seconds", type=float, default=120.0)
    parser.add_argument(
        "--retention-seconds", type=float, default=900.0, help="keep counters of deleted PodGroups this long"
    )
    parser.add_argument("--log-level", default="INFO")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        config.load_incluster_config()
    except config.ConfigException:
        config.load_kube_config()

    state = SharedState(
        GangState(
            started_at=time.time(),
            gpu_resource=args.gpu_resource,
            gpu_device_classes=args.gpu_device_classes or DEFAULT_GPU_DEVICE_CLASSES,
            preemption_episode_seconds=args.preemption_episode_seconds,
            retention_seconds=args.retention_seconds,
        )
    )
    informers = informers_for(client.ApiClient(), state)

    registry = CollectorRegistry(auto_describe=False)
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    registry.register(GangCollector(state.snapshot, lambda: [i.status() for i in informers]))
    serve(make_app(registry, lambda: all(i.synced for i in informers)), args.address, args.port)

    stop = threading.Event()

    def shutdown(*_: object) -> None:
        stop.set()
        for informer in informers:
            informer.stop()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    start(informers)
    stop.wait()


if __name__ == "__main__":
    main()
