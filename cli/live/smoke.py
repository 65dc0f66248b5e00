"""``make smoke ENV=...``: submit small gangs to a live cluster and report what happened.

Needs a kubeconfig (``--kubeconfig``, ``$KUBECONFIG`` or ``~/.kube/config``); without one it
prints one line saying so and exits 0, so it can sit in any pipeline. A context that reaches
another cluster than the environment's is refused before anything is sent
(``cli.live.kube.target_cluster``). The scenarios, the objects and every verdict are
``policy/live/smoke.py``; this module only talks to the API server. Each scenario runs in its
own namespace, deleted (with its pods) before the next starts; the smoke PriorityClasses and
DeviceTaintRule are deleted at the end.
Exit 1 when a scenario did something other than expected, 2 when the cluster cannot be
reached.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable

from catalog import versions
from cli.environment_args import add_environment_args, load_selected
from cli.live.kube import KubeApi, add_cluster_args, connect, kubeconfig_or_skip, target_cluster
from cli.live.verify import read
from cli.report import exit_code, first_line, render
from config.errors import ConfigError
from config.model import EnvironmentConfig
from policy.infrastructure.node_pools import tolerations_for
from policy.live.smoke import (
    GANG_LABEL,
    Observation,
    Outcome,
    Scenario,
    classify,
    collection_path,
    device_taint_rule_manifest,
    gang_manifests,
    gpus_per_zone,
    judge,
    merge,
    namespace_manifest,
    object_path,
    observe,
    plan_scenarios,
    priority_class_manifests,
    settled,
    skipped,
)
from policy.results import Check

Clock = Callable[[], float]
Sleep = Callable[[float], None]


class Runner:
    """Runs planned scenarios against one cluster."""

    def __init__(
        self,
        kube: KubeApi,
        *,
        prefix: str,
        tolerations: list[dict[str, str]],
        image: str = versions.SMOKE_TEST_IMAGE,
        poll_seconds: float = 3.0,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.kube, self.prefix, self.tolerations, self.image = kube, prefix, tolerations, image
        self.poll_seconds, self.clock, self.sleep = poll_seconds, clock, sleep

    def priority_class(self, level: str) -> str:
        return f"{self.prefix}-{level}"

    def run(self, scenarios: list[Scenario]) -> list[Check]:
        priority_classes = priority_class_manifests(self.prefix)
        checks: list[Check] = []
        try:
            for obj in priority_classes:
                self.kube.create(collection_path(obj["apiVersion"], obj["kind"]), obj)
            for scenario in scenarios:
                checks += [skipped(scenario)] if scenario.skipped else self.run_scenario(scenario)
        finally:
            for obj in priority_classes:
                self.kube.delete(object_path(obj))
        return checks

    def run_scenario(self, scenario: Scenario) -> list[Check]:
        namespace = f"{self.prefix}-{scenario.name}"[:63].rstrip("-")
        ns = namespace_manifest(namespace, self.prefix)
        taint = device_taint_rule_manifest(namespace) if scenario.taint_devices else None
        self.kube.create(collection_path("v1", "Namespace"), ns)
        try:
            if taint is not None:
                self.kube.create(collection_path(taint["apiVersion"], taint["kind"]), taint)
            observations = self.submit_and_watch(scenario, namespace)
            return [judge(scenario, g, observations.get(g.name, Observation())) for g in scenario.gangs]
        finally:
            if taint is not None:
                self.kube.delete(object_path(taint))
            self.kube.delete(object_path(ns))
            self.wait_gone(object_path(ns))

    def submit_and_watch(self, scenario: Scenario, namespace: str) -> dict[str, Observation]:
        observations: dict[str, Observation] = {}
        start = self.clock()
        for index, gang in enumerate(scenario.gangs):
            priority = self.priority_class(gang.priority)
            for obj in gang_manifests(
                namespace=namespace, gang=gang, priority_class=priority, tolerations=self.tolerations, image=self.image
            ):
                self.kube.create(collection_path(obj["apiVersion"], obj["kind"], namespace), obj)
            if gang.wait_for_scheduled and index + 1 < len(scenario.gangs):
                self.poll(scenario, namespace, observations, start, until=gang.name)
        self.poll(scenario, namespace, observations, start)
        return observations

    def poll(
        self,
        scenario: Scenario,
        namespace: str,
        observations: dict[str, Observation],
        start: float,
        *,
        until: str | None = None,
    ) -> None:
        """Observe every gang until ``settled`` (or, with ``until``, until that gang is scheduled)."""
        while True:
            events = (self.kube.get(collection_path("v1", "Event", namespace)) or {}).get("items") or []
            for gang in scenario.gangs:
                group = self.kube.get(
                    f"{collection_path('scheduling.k8s.io/v1beta1', 'PodGroup', namespace)}/{gang.name}"
                )
                pods = self.kube.get(collection_path("v1", "Pod", namespace), labelSelector=f"{GANG_LABEL}={gang.name}")
                current = observe(group, (pods or {}).get("items") or [], events)
                observations[gang.name] = merge(observations.get(gang.name), current)
            outcomes = {name: classify(o) for name, o in observations.items()}
            elapsed = self.clock() - start
            if until is not None:
                if outcomes.get(until) is Outcome.SCHEDULED or elapsed >= scenario.window_seconds:
                    return
            elif settled(scenario, outcomes, elapsed):
                return
            self.sleep(self.poll_seconds)

    def wait_gone(self, path: str, timeout_seconds: float = 180.0) -> None:
        """Wait until a deleted namespace is gone, so its pods' GPUs are free for the next scenario."""
        deadline = self.clock() + timeout_seconds
        while self.kube.get(path) is not None and self.clock() < deadline:
            self.sleep(self.poll_seconds)


def pod_tolerations(env: EnvironmentConfig) -> list[dict[str, str]]:
    taints = tuple(t for pool in env.gpu_pools if pool.dra for t in pool.taints)
    return tolerations_for(taints)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_environment_args(parser)
    add_cluster_args(parser)
    parser.add_argument("--scenarios", default="", help="comma-separated subset of the scenarios (default: all)")
    parser.add_argument("--gang-size", type=int, default=2, help="pods in the gang that should start (default 2)")
    parser.add_argument("--window-seconds", type=int, default=300, help="how long a gang may take to start")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        env = load_selected(args)
    except ConfigError as error:
        return error.report()
    kubeconfig = kubeconfig_or_skip(args.kubeconfig, command="smoke")
    if kubeconfig is None:
        return 0
    try:
        target = target_cluster(kubeconfig, context=args.context, env=env, command="smoke")
    except ConfigError as error:
        return error.report()
    prefix = f"smoke-{env.tags.get('run-id') or secrets.token_hex(3)}"
    try:
        kube = connect(kubeconfig, target.context)
        gpus = gpus_per_zone(read(kube, "nodes"), read(kube, "resource_slices"))
        scenarios = plan_scenarios(
            gates=frozenset(env.feature_gates.control_plane),
            gpus=gpus,
            gang_size=args.gang_size,
            window_seconds=args.window_seconds,
        )
        wanted = {s for s in args.scenarios.split(",") if s}
        scenarios = [s for s in scenarios if not wanted or s.name in wanted]
        checks = Runner(kube, prefix=prefix, tolerations=pod_tolerations(env)).run(scenarios)
    except Exception as error:  # connection, TLS, auth, API errors: one line, not a traceback
        print(f"error: smoke test on {env.cluster.name} failed: {first_line(error)}", file=sys.stderr)
        return 2
    title = {"environment": env.name, "cluster": env.cluster.name, "command": "smoke", "gpus_per_zone": gpus}
    print(render(title, checks, json_output=args.json, heading=f"smoke {env.name} (cluster {env.cluster.name})"))
    return exit_code(checks)


if __name__ == "__main__":
    sys.exit(main())
