"""``make loadtest ENV=<env> MIX=<mix> [SCALE=] [MINUTES=]``: the mix against a live cluster.

Submits the mix's gangs with time scaled by ``--scale`` (a mix second lasts that many real
seconds) for ``--minutes`` as real runs rendered by the templates, watches PodGroup conditions
and preemption events, and writes ``reports/<env>/<mix>-loadtest/``: the cluster's measurements
next to the simulation of the same scaled gangs. Everything it creates carries
``gpu-platform.io/loadtest=<id>`` and is deleted at the end, also on Ctrl-C or SIGTERM. It acts only
on the environment's cluster (``cli.live.kube.target_cluster``: the first line names it) and prints a
progress line (elapsed, submitted, pending, scheduled) at its first poll, every 30 s and at the end.
Without a kubeconfig it prints one line and exits 0, like ``make smoke``; exit 2 on bad
configuration or an unreachable cluster.
"""

from __future__ import annotations

import argparse
import re
import secrets
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.environment_args import add_environment_args, load_selected
from cli.live.kube import KubeApi, add_cluster_args, connect, kubeconfig_or_skip, target_cluster
from cli.report import first_line
from config.errors import ConfigError
from config.load import REPO_ROOT
from config.model import EnvironmentConfig
from simulation.engine.event_loop import Sample
from simulation.loadtest.observe import GangWatch, claim_failures, pending_by_priority_class, poll
from simulation.loadtest.plan import LOADTEST_LABEL, LoadPlan, due, render_submission

REPORTS_DIR = REPO_ROOT / "reports"
MIX_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
Clock = Callable[[], float]
Sleep = Callable[[float], None]


def _minutes(seconds: float) -> str:
    whole = max(0, int(seconds))
    return f"{whole // 60}m{whole % 60:02d}s"


def progress_line(*, elapsed: float, window: float, submitted: int, total: int, pending: int) -> str:
    """One progress line: elapsed of the window, gangs submitted, and of those pending and scheduled."""
    return (
        f"loadtest: {_minutes(elapsed)} of {_minutes(window)}: {submitted} of {total} gangs submitted, "
        f"{pending} pending, {submitted - pending} scheduled"
    )


def api_path(api_version: str, kind: str, namespace: str | None, name: str | None = None) -> str:
    root = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    scope = f"/namespaces/{namespace}" if namespace else ""
    return f"{root}{scope}/{kind.lower()}s" + (f"/{name}" if name else "")


class LoadRunner:
    """Submits a plan on time, polls what happened, and deletes what it created."""

    def __init__(
        self,
        kube: KubeApi,
        env: EnvironmentConfig,
        plan: LoadPlan,
        *,
        test_id: str,
        poll_seconds: float = 5.0,
        progress_seconds: float = 30.0,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.kube, self.env, self.plan, self.test_id = kube, env, plan, test_id
        self.poll_seconds, self.clock, self.sleep = poll_seconds, clock, sleep
        self.progress_seconds = progress_seconds
        self.progress = progress or (lambda line: print(line, file=sys.stderr, flush=True))
        self.last_progress: float | None = None
        self.created: list[str] = []
        self.watches: dict[str, GangWatch] = {}
        self.samples: list[Sample] = []
        self.failures: dict[str, int] = {}
        self.device_class_of_pod: dict[str, str] = {}
        self.submitted = 0
        self.pending = 0

    def namespaces(self) -> list[str]:
        return sorted({s.job.namespace for s in self.plan.submissions})

    def run(self) -> None:
        try:
            start = self.clock()
            while True:
                elapsed = self.clock() - start
                for submission in due(self.plan, submitted=self.submitted, elapsed_seconds=elapsed):
                    for obj in render_submission(self.env, submission, test_id=self.test_id):
                        meta = obj["metadata"]
                        self.kube.create(api_path(obj["apiVersion"], obj["kind"], meta.get("namespace")), obj)
                        self.created.append(
                            api_path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])
                        )
                        if obj["kind"] == "Pod":
                            self.device_class_of_pod[meta["name"]] = submission.job.device_class.value
                    self.submitted += 1
                self.observe(elapsed)
                done = elapsed >= self.plan.window_seconds
                self.report_progress(elapsed, final=done)
                if done:
                    return
                self.sleep(self.poll_seconds)
        finally:
            self.clean_up()

    def observe(self, elapsed: float) -> None:
        selector = f"{LOADTEST_LABEL}={self.test_id}"
        groups: list[Any] = []
        pods: list[Any] = []
        events: list[Any] = []
        for namespace in self.namespaces():
            groups += (
                self.kube.get(api_path("scheduling.k8s.io/v1beta1", "PodGroup", namespace), labelSelector=selector)
                or {}
            ).get("items") or []
            pods += (self.kube.get(api_path("v1", "Pod", namespace), labelSelector=selector) or {}).get("items") or []
            events += (self.kube.get(api_path("v1", "Event", namespace)) or {}).get("items") or []
        poll(self.watches, groups, pods, events)
        self.failures = claim_failures(events, self.device_class_of_pod)
        pending = pending_by_priority_class(self.plan, self.watches, submitted=self.submitted)
        self.pending = sum(pending.values())
        self.samples.append(Sample(elapsed, pending, {}, {}))

    def report_progress(self, elapsed: float, *, final: bool = False) -> None:
        """A progress line at the first poll, every ``progress_seconds`` after it, and at the end."""
        if not final and self.last_progress is not None and elapsed - self.last_progress < self.progress_seconds:
            return
        self.last_progress = elapsed
        self.progress(
            progress_line(
                elapsed=elapsed,
                window=self.plan.window_seconds,
                submitted=self.submitted,
                total=len(self.plan.submissions),
                pending=self.pending,
            )
        )

    def clean_up(self) -> None:
        """Delete everything created, newest first; absent objects are fine."""
        if self.created:
            self.progress(f"loadtest: deleting the {len(self.created)} objects test {self.test_id} created")
        for path in reversed(self.created):
            self.kube.delete(path)
        self.created = []


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_environment_args(parser)
    add_cluster_args(parser)
    parser.add_argument("--mix", help="mix name (mixes/<name>.yaml); default: the environment's name")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--scale", type=float, default=0.05, help="real seconds per mix second (default 0.05)")
    parser.add_argument("--minutes", type=float, default=20.0, help="length of the test in real minutes (default 20)")
    parser.add_argument("--out", help="report directory (default reports/<env>/<mix>-loadtest/)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from simulation.mix.load import MIXES_DIR, load_mix

    try:
        env = load_selected(args)
        mix_name = args.mix or env.name
        if not MIX_NAME.match(mix_name):
            raise ConfigError("--mix", mix_name, "a mix name is a name, never a path", "use a name from mixes/")
        mix = load_mix(env, name=mix_name)
        for flag, value in (("--scale", args.scale), ("--minutes", args.minutes)):
            if value <= 0:
                raise ConfigError(flag, value, "not a positive number", f"pass e.g. {flag.strip('-').upper()}=1")
    except ConfigError as error:
        return error.report()
    kubeconfig = kubeconfig_or_skip(args.kubeconfig, command="loadtest")
    if kubeconfig is None:
        return 0
    try:
        target = target_cluster(kubeconfig, context=args.context, env=env, command="loadtest")
    except ConfigError as error:
        return error.report()
    from simulation.engine.cluster import cluster_model
    from simulation.engine.event_loop import Simulation
    from simulation.loadtest.observe import live_result
    from simulation.loadtest.plan import plan_load
    from simulation.mix.sample import sample_jobs
    from simulation.report.measure import measurements
    from simulation.whatif import write_report

    horizon = args.minutes * 60 / args.scale
    jobs = sample_jobs(env, mix, seed=args.seed, horizon_seconds=horizon, mix_dir=MIXES_DIR)
    plan = plan_load(jobs, scale=args.scale, minutes=args.minutes)
    test_id = f"{env.tags.get('run-id') or secrets.token_hex(3)}"
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        runner = LoadRunner(connect(kubeconfig, target.context), env, plan, test_id=test_id)
        runner.run()
    except KeyboardInterrupt:
        print(f"loadtest: interrupted; deleted what test {test_id} created", file=sys.stderr)
        return 130
    except Exception as error:  # connection, TLS, auth, API errors: one line, not a traceback
        print(f"error: load test on {env.cluster.name} failed: {first_line(error)}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
    live = live_result(
        plan, runner.watches, runner.samples, submitted=runner.submitted, allocation_failures=runner.failures
    )
    simulated = Simulation(
        cluster_model(env), [s.job for s in plan.submissions], horizon_seconds=plan.window_seconds
    ).run()
    report = {
        "title": {
            "environment": env.name,
            "mix": mix_name,
            "seed": args.seed,
            "hours": plan.window_seconds / 3600,
            "command": f"load test, scale {args.scale:g}",
        },
        "labels": {"gang": "live cluster", "pod": "simulation"},
        "skipped": [{"gang": name, "reason": reason} for name, reason in plan.skipped],
        "modes": {"gang": measurements(live), "pod": measurements(simulated)},
    }
    out = Path(args.out) if args.out else REPORTS_DIR / env.name / f"{mix_name}-loadtest"
    written = write_report(report, out)
    print(
        f"loadtest {env.name}/{mix_name}: {runner.submitted} gangs submitted, {len(plan.skipped)} skipped; {written[0]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
