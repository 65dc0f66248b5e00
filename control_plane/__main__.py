"""``make control-plane [CONFIG=eks|workload-aware]``: build (cached) and run a local control plane.

Runs in the foreground and prints the kubeconfig to use; Ctrl-C (or SIGTERM) stops every program
and removes the temporary directory. ``--build-only`` builds and exits; ``--start-and-stop`` starts,
prints the start time and stops (what CI and the timings in docs/control-plane.md use). Errors are one line.
"""

from __future__ import annotations

import argparse
import sys
import time

from control_plane.build import build
from control_plane.configs import ConfigName, configuration
from control_plane.errors import ControlPlaneError
from control_plane.pins import ETCD, KUBERNETES
from control_plane.run import ControlPlane


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m control_plane", description=__doc__)
    parser.add_argument("--config", default=ConfigName.EKS.value, choices=[c.value for c in ConfigName])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--build-only", action="store_true", help="build (or find cached) binaries and exit")
    mode.add_argument("--start-and-stop", action="store_true", help="start, report the start time, stop")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    config = configuration(args.config)
    try:
        started = time.monotonic()
        print(
            f"control-plane: building {KUBERNETES.module}@{KUBERNETES.version}, {ETCD.module}@{ETCD.version} (cached)"
        )
        binaries = build()
        print(f"control-plane: binaries in {binaries.directory} ({time.monotonic() - started:.1f} s)")
        if args.build_only:
            return 0
        started = time.monotonic()
        plane = ControlPlane(binaries, config).start()
    except ControlPlaneError as error:
        print(f"error: control-plane: {error}", file=sys.stderr)
        return 2
    try:
        print(f"control-plane: {config.name.value} ready at {plane.server} in {time.monotonic() - started:.1f} s")
        print(f"control-plane: gates: {', '.join(config.gates) or '(defaults)'}")
        print(f"control-plane: kubeconfig {plane.kubeconfig}  (export KUBECONFIG={plane.kubeconfig})")
        if args.start_and_stop:
            return 0
        print("control-plane: Ctrl-C stops it")
        while all(p.poll() is None for p in plane.processes.values()):
            time.sleep(1)
        dead = [name for name, p in plane.processes.items() if p.poll() is not None]
        print(f"error: control-plane: {', '.join(dead)} exited; see {plane.dir}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        plane.stop()
        print("control-plane: stopped")


if __name__ == "__main__":
    sys.exit(main())
