"""``make verify ENV=...``: check a deployed cluster serves what the environment declared.

Reads, through a kubeconfig: API discovery (``/apis``) for the versions the declared
gates need (``scheduling.k8s.io/v1beta1``, ``v1alpha3`` with CompositePodGroup,
``resource.k8s.io/v1``); the DRA driver's DeviceClasses; ResourceSlices on every DRA GPU
node; and the platform's DeviceClasses and PriorityClasses (``--device-classes``,
``--priority-classes``, or every such object in the rendered ``--expect-from dist/<env>``);
with ``observability.prometheus: existing``, the Prometheus Operator's group; and one row per
relied-on gate: its probe object (``policy.live.gate_probes``) created with ``dryRun=All`` (nothing
is stored, no Pod is created) and the gated field looked for in the response. Decisions
are ``policy/live/verify.py``. Only the environment's cluster is read (``cli.live.kube.target_cluster``).
Exit 1 when a check fails, 2 when the cluster cannot be reached or the context is another cluster's.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from catalog.labels import DEVICE_MANAGEMENT_DRA, DEVICE_MANAGEMENT_LABEL
from cli.environment_args import add_environment_args, load_selected
from cli.live.kube import Json, KubeApi, add_cluster_args, connect, find_kubeconfig, target_cluster
from cli.report import exit_code, first_line, render
from config.errors import ConfigError
from config.model import EnvironmentConfig
from policy.live.verify import DRA_DRIVER_NAME, Expectations, evaluate, expectations, platform_object_names

READS: dict[str, tuple[str, dict[str, str]]] = {
    "api_group_list": ("/apis", {}),
    "device_classes": ("/apis/resource.k8s.io/v1/deviceclasses", {}),
    "priority_classes": ("/apis/scheduling.k8s.io/v1/priorityclasses", {}),
    "nodes": ("/api/v1/nodes", {"labelSelector": f"{DEVICE_MANAGEMENT_LABEL}={DEVICE_MANAGEMENT_DRA}"}),
    "resource_slices": ("/apis/resource.k8s.io/v1/resourceslices", {"fieldSelector": f"spec.driver={DRA_DRIVER_NAME}"}),
}
"""What verification reads: argument name of ``policy.live.verify.evaluate`` -> (path, query)."""


def read(kube: KubeApi, name: str) -> Json | None:
    path, query = READS[name]
    return kube.get(path, **query)


def fetch(kube: KubeApi) -> dict[str, Json | None]:
    return {name: read(kube, name) for name in READS}


def dry_run_probes(kube: KubeApi, expect: Expectations) -> dict[str, Json | None]:
    """Gate -> the API server's answer to creating its probe with ``dryRun=All`` (``None``: API not served)."""
    from kubernetes.client.exceptions import ApiException

    answers: dict[str, Json | None] = {}
    for probe in expect.probes:
        path = probe.kind.path(str(probe.manifest["metadata"]["namespace"]))
        try:
            answers[probe.gate] = kube.request("POST", path, body=probe.manifest, query={"dryRun": "All"})
        except ApiException as error:
            if error.status != 404:
                raise
            answers[probe.gate] = None
    return answers


def rendered_objects(directory: Path) -> list[dict[str, Any]]:
    """Every object in the YAML files directly under ``directory`` (cluster-scoped platform objects)."""
    objects: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.yaml")):
        objects += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]
    return objects


def _names(values: list[str]) -> list[str]:
    return [n for v in values for n in v.split(",") if n]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_environment_args(parser)
    add_cluster_args(parser)
    parser.add_argument("--device-classes", action="append", default=[], help="platform DeviceClasses (a,b,...)")
    parser.add_argument("--priority-classes", action="append", default=[], help="platform PriorityClasses (a,b,...)")
    parser.add_argument("--expect-from", type=Path, help="expect every DeviceClass/PriorityClass rendered in this dir")
    parser.add_argument("--require-gpu-nodes", action="store_true", help="fail (not warn) when no DRA GPU node runs")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--after-deploy",
        action="store_true",
        help="make deploy's last step: without a kubeconfig say how to get one (exit 0); a failed check says the "
        "cluster is up and what to change",
    )
    return parser.parse_args(argv)


def _how_to_verify(env: EnvironmentConfig) -> int:
    """After a deploy with no kubeconfig context for the new cluster: how to get one (exit 0, the deploy worked)."""
    print(
        f"deployed {env.name}; to check what cluster {env.cluster.name} serves: aws eks update-kubeconfig "
        f"--name {env.cluster.name} --region {env.region}, then make verify ENV={env.name}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        env = load_selected(args)
    except ConfigError as error:
        return error.report()
    device_classes, priority_classes = _names(args.device_classes), _names(args.priority_classes)
    if args.expect_from is not None:
        rendered_classes, rendered_priorities = platform_object_names(rendered_objects(args.expect_from))
        device_classes += rendered_classes
        priority_classes += rendered_priorities
    kubeconfig = find_kubeconfig(args.kubeconfig, os.environ, Path.home())
    if kubeconfig is None or not kubeconfig.is_file():
        if args.after_deploy:
            return _how_to_verify(env)
        print(f"error: verify: no kubeconfig at {kubeconfig or '$KUBECONFIG or ~/.kube/config'}", file=sys.stderr)
        return 2
    try:
        target = target_cluster(kubeconfig, context=args.context, env=env, command="verify")
    except ConfigError as error:
        if args.after_deploy:  # the kubeconfig reaches another cluster: touch nothing, say how to reach this one
            return _how_to_verify(env)
        return error.report()
    expect = expectations(env, device_classes=device_classes, priority_classes=priority_classes)
    try:
        kube = connect(kubeconfig, target.context)
        observed = fetch(kube)
        dry_runs = dry_run_probes(kube, expect)
    except Exception as error:  # connection, TLS, auth: one line, not a traceback
        print(f"error: verify could not read the cluster: {first_line(error)}", file=sys.stderr)
        return 2
    checks = evaluate(
        expect,
        api_group_list=observed["api_group_list"],
        device_classes=observed["device_classes"],
        priority_classes=observed["priority_classes"],
        nodes=observed["nodes"],
        resource_slices=observed["resource_slices"],
        dry_runs=dry_runs,
        require_gpu_nodes=args.require_gpu_nodes,
    )
    title = {"environment": env.name, "cluster": env.cluster.name, "command": "verify"}
    print(render(title, checks, json_output=args.json, heading=f"verify {env.name} (cluster {env.cluster.name})"))
    code = exit_code(checks)
    if code and args.after_deploy:
        print(
            f"error: cluster {env.cluster.name} and its capacity are up (nothing was rolled back), but it does not "
            f"serve what {env.name} relies on; fix: change what the failed rows say, then make verify ENV={env.name}",
            file=sys.stderr,
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
