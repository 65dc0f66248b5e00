"""What users wait for, as ratios measured in one interleaved run (the machine is noisy).

1. The review loop: ``make render`` and ``make check`` of the default environment against a
   one-DeviceClass cdk8s-plus-37 app (the cdk8s floor).
2. Full synthesis (``make synth`` of the default environment, and ``app.py`` as ``cdk synth`` runs
   it) against a trivial one-queue CDK app and a bare Python eks-v2 cluster (one node group, one
   Helm chart, one cdk8s chart), and
   the JavaScript peer's whole synth of such a cluster (EKS Blueprints, ``bench/js_peer``; measured
   when ``make bench`` has installed it).
3. Fleet scale: ``render`` and ``check`` of generated, valid team runs (50, 200, 2,000 by
   default; ``--fleet`` adds 10,000), with per-run cost, marginal cost and the growth ratio.

``--accelerator``: instead, what each part of the accelerator (``accelerator.PARTS``) buys: ``render
dev`` and ``synth dev`` (and ``render <n>`` of ``--accelerator-fleet`` runs) with it on, off, on
without each part (``GPU_PLATFORM_ACCELERATOR_SKIP``), and on under ``python -O``, interleaved; each
variant's median over the accelerator on's (``docs/accelerator.md``).

Every figure is the time until the command *and every process it started* have exited
(``bench/measure.py``), sampled ``--repeat`` times with all commands interleaved; medians with
min-max ranges, and the peak resident memory of the command's own process and of the largest
process it started (for the Python commands, the jsii Node.js runtime).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from accelerator import PARTS, SKIP, SWITCH
from bench.measure import Sample, become_subreaper, run_tree
from bench.runs import fleet_environment, write_runs

ROOT = Path(__file__).resolve().parent.parent
JS_PEER = ROOT / "bench" / "js_peer"
JS_PEER_NAME = "JS peer: EKS Blueprints synth"
CDK_APP_NAME = "cdk synth's app (app.py) dev"
FLEET_SIZES = (50, 200, 2000)
LARGE_FLEET = 10_000


def _commands(py: str, out: Path) -> dict[str, list[str]]:
    return {
        "cdk8s floor (one DeviceClass)": [py, "-m", "bench.one_object_chart", str(out / "floor")],
        "render dev": [py, "-m", "cli.render", "--dist", str(out / "dist")],
        "check dev": [py, "-m", "cli.check"],
        "trivial CDK app (one queue)": [py, "-m", "bench.trivial_app"],
        "bare eks-v2 cluster": [py, "-m", "bench.bare_cluster"],
        "synth dev": [py, "-m", "cli.synth", "--cdk-out", str(out / "cdk.out"), "--dist", str(out / "dist")],
        # What `cdk synth`/`diff`/`deploy` wait for besides the CLI itself: cdk.json's app, as the CLI starts it.
        CDK_APP_NAME: [shutil.which("env") or "env", f"CDK_OUTDIR={out / 'cdk-app.out'}", py, str(ROOT / "app.py")],
    }


def _js_peer_command() -> dict[str, list[str]]:
    """The EKS Blueprints synth, when its pinned packages are installed (only ``make bench`` does)."""
    node = shutil.which("node")
    if node is None or not (JS_PEER / "node_modules").is_dir():
        print(
            f"skipped: {JS_PEER_NAME} (bench/js_peer/node_modules missing; install it with"
            " `npm ci --prefix bench/js_peer`, which `make bench` runs)",
            flush=True,
        )
        return {}
    return {JS_PEER_NAME: [node, str(JS_PEER / "app.js")]}


def _fleet_commands(py: str, out: Path, teams: Path, count: int) -> dict[str, list[str]]:
    config = str(out / "dev-fleet.yaml")  # dev without its selection of teams/ run files (bench.runs)
    return {
        f"render {count}": [
            py,
            "-m",
            "cli.render",
            "--config",
            config,
            "--teams",
            str(teams),
            "--dist",
            str(out / f"dist-{count}"),
        ],
        f"check {count}": [py, "-m", "cli.check", "--config", config, "--teams", str(teams)],
    }


ACCELERATOR_ON = "accelerator on"
DIRECT_CHANNEL_ALONE = ("early-kernel", "code-cache", "kernel-rewrites")
"""Left out together, so that this variant against the one without the direct channel (which takes
these with it: ``accelerator.NEEDS``) is what the direct channel alone buys."""


def _accelerator_variants() -> dict[str, tuple[dict[str, str], tuple[str, ...]]]:
    """Each variant's environment additions and interpreter flags."""
    on = {SWITCH: "on", SKIP: ""}
    variants: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
        ACCELERATOR_ON: (on, ()),
        "accelerator off": ({SWITCH: "off", SKIP: ""}, ()),
    }
    for part in PARTS:
        variants[f"on - {part}"] = (on | {SKIP: part}, ())
    variants[f"on - {'+'.join(DIRECT_CHANNEL_ALONE)}"] = (on | {SKIP: ",".join(DIRECT_CHANNEL_ALONE)}, ())
    variants["on + python -O"] = (on, ("-O",))
    return variants


def _accelerator(args: argparse.Namespace, env: dict[str, str]) -> int:
    """What each part of the accelerator buys (``--accelerator``)."""
    variants = _accelerator_variants()
    if args.variants:
        chosen = [name.strip() for name in args.variants.split(",")]
        unknown = sorted(set(chosen) - variants.keys())
        if unknown:
            print(
                f"error: --variants: no variant {', '.join(unknown)}; fix: use {', '.join(variants)}", file=sys.stderr
            )
            return 2
        variants = {name: variants[name] for name in variants if name in chosen or name == ACCELERATOR_ON}
    samples: dict[tuple[str, str], list[Sample]] = defaultdict(list)
    print(f"before: {_load()}", flush=True)
    order = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        out = Path(tmp)
        # Every variant reads bytecode compiled for it (python -O's own files too), written by a warm-up
        # run of each command that also fills the code cache; a PYTHONDONTWRITEBYTECODE set would
        # otherwise have python -O compile every module in every run.
        env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
            "PYTHONPYCACHEPREFIX": str(out / "pycache")
        }
        fleet = args.accelerator_fleet
        teams = write_runs(out / f"teams-{fleet}", count=fleet) if fleet else None
        fleet_environment(out / "dev-fleet.yaml")
        for additions, flags in variants.values():
            warm = out / "warm-up"
            for command in (["cli.render"], ["cli.synth", "--cdk-out", str(warm / "cdk.out")]):
                run_tree([sys.executable, *flags, "-m", *command, "--dist", str(warm)], env=env | additions)
        for round_index in range(max(args.repeat, args.fleet_repeat if fleet else 0)):
            plan = list(variants.items())
            order.shuffle(plan)  # no variant always first in a round: the machine's drift hits each alike
            for variant, (additions, flags) in plan:
                py = [sys.executable, *flags]
                commands = {}
                if round_index < args.repeat:
                    commands["render dev"] = [*py, "-m", "cli.render", "--dist", str(out / "dist")]
                    commands["synth dev"] = [
                        *py,
                        "-m",
                        "cli.synth",
                        "--cdk-out",
                        str(out / "cdk.out"),
                        "--dist",
                        str(out / "dist"),
                    ]
                if teams is not None and round_index < args.fleet_repeat:
                    commands |= {
                        name: [*py, *argv[1:]]
                        for name, argv in _fleet_commands(sys.executable, out, teams, fleet).items()
                        if name.startswith("render")
                    }
                for name, command in commands.items():
                    samples[(name, variant)].append(run_tree(command, env=env | additions))
                    print(
                        f"  {name} [{variant}]: {samples[(name, variant)][-1].seconds:.2f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    print(f"after:  {_load()}")
    for (name, variant), values in sorted(samples.items()):
        print(_line(f"{name} [{variant}]", values))
    names = sorted({name for name, _ in samples}, key=lambda n: (n != "render dev", n != "synth dev", n))
    print(f"{'variant':<44}" + "".join(f"{name:>22}" for name in names))
    for variant in variants:
        cells = []
        for name in names:
            wall = _median(samples[(name, variant)], lambda s: s.seconds)
            on = _median(samples[(name, ACCELERATOR_ON)], lambda s: s.seconds)
            cells.append(f"{wall:7.2f} s {wall / on:5.2f}x")
        print(f"{variant:<44}" + "".join(f"{cell:>22}" for cell in cells))
    print("(each variant's median wall time, and its ratio to the accelerator on: 1.05x = the part buys 5%)")
    return 0


def _median(samples: list[Sample], value: Callable[[Sample], float]) -> float:
    return statistics.median(value(s) for s in samples)


def _line(name: str, samples: list[Sample]) -> str:
    seconds = [s.seconds for s in samples]
    return (
        f"{name:<30} {statistics.median(seconds):7.2f} s  [{min(seconds):.2f}-{max(seconds):.2f}]"
        f"  (CPU {_median(samples, lambda s: s.cpu_seconds):.2f} s; command exits at"
        f" {_median(samples, lambda s: s.command_seconds):.2f} s;"
        f" peak RSS command {_median(samples, lambda s: s.main_rss_mib):.0f} MiB,"
        f" largest child {_median(samples, lambda s: s.helper_rss_mib):.0f} MiB)"
    )


def _growth(label: str, seconds: dict[int, float]) -> None:
    """Per-run cost (total / runs), marginal cost between sizes and how both grow with the fleet."""
    sizes = sorted(seconds)
    per_run = {n: seconds[n] / n for n in sizes}
    steps = list(itertools.pairwise(sizes))
    marginal = {(a, b): (seconds[b] - seconds[a]) / (b - a) for a, b in steps}
    print(f"{label:<16} per run   " + "  ".join(f"{n}: {per_run[n] * 1000:5.1f} ms" for n in sizes))
    print(f"{label:<16} marginal  " + "  ".join(f"{a}->{b}: {m * 1000:5.1f} ms" for (a, b), m in marginal.items()))
    if len(steps) >= 2 and 200 in per_run:
        largest = sizes[-1]
        print(
            f"{label:<16} growth    per run {largest} / 200 = {per_run[largest] / per_run[200]:.2f}x;"
            f" marginal {steps[-1][0]}->{largest} / {steps[0][0]}->{steps[0][1]}"
            f" = {marginal[steps[-1]] / marginal[steps[0]]:.2f}x  (1.00x = linear; target <= 1.1x)"
        )


def _load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="samples per command (interleaved)")
    parser.add_argument("--fleet", action="store_true", help=f"also {LARGE_FLEET:,} runs (several minutes each)")
    parser.add_argument("--fleet-repeat", type=int, default=1, help="samples of the 2,000 and 10,000 run sizes")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--only-fleet", action="store_true", help="skip the review loop and synthesis")
    only.add_argument("--only-review", action="store_true", help="only the review loop and synthesis (no fleet)")
    parser.add_argument("--accelerator", action="store_true", help="what each part of the accelerator buys")
    parser.add_argument(
        "--accelerator-fleet", type=int, default=0, help="with --accelerator: also render this many runs"
    )
    parser.add_argument(
        "--variants",
        default="",
        help="with --accelerator: only these variants (comma-separated) and the accelerator on",
    )
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the command being measured, too
    env = {**os.environ, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20", "PYTHONPATH": str(ROOT)}
    if not become_subreaper():
        print("warning: no child subreaper here; processes outliving a command are not timed", file=sys.stderr)
    if args.accelerator:
        return _accelerator(args, env)
    py = sys.executable
    sizes = () if args.only_review else (*FLEET_SIZES, LARGE_FLEET) if args.fleet else FLEET_SIZES
    samples: dict[str, list[Sample]] = defaultdict(list)
    peer = {} if args.only_fleet else _js_peer_command()
    print(f"before: {_load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        out = Path(tmp)
        env["CDK_OUTDIR"] = str(out / "floor.cdk.out")
        teams = {n: write_runs(out / f"teams-{n}", count=n) for n in sizes}
        fleet_environment(out / "dev-fleet.yaml")
        small = [n for n in sizes if n < 2000]
        for round_index in range(max(args.repeat, args.fleet_repeat)):  # interleaved: drift hits every command alike
            plan: dict[str, list[str]] = {}
            if round_index < args.repeat:
                if not args.only_fleet:
                    plan |= _commands(py, out) | peer
                for n in small:
                    plan |= _fleet_commands(py, out, teams[n], n)
            if round_index < args.fleet_repeat:
                for n in sizes:
                    if n not in small:
                        plan |= _fleet_commands(py, out, teams[n], n)
            for name, command in plan.items():
                samples[name].append(run_tree(command, env=env))
                print(f"  {name}: {samples[name][-1].seconds:.2f} s", file=sys.stderr, flush=True)
    print(f"after:  {_load()}")
    for name, values in samples.items():
        print(_line(name, values))
    median = {name: _median(values, lambda s: s.seconds) for name, values in samples.items()}
    if not args.only_fleet:
        floor = median["cdk8s floor (one DeviceClass)"]
        print(f"render dev / cdk8s floor       {median['render dev'] / floor:7.2f}x  (target <= 1.2x)")
        print(f"check dev / cdk8s floor        {median['check dev'] / floor:7.2f}x")
        bare = median["bare eks-v2 cluster"]
        print(f"synth dev / bare eks-v2 cluster{median['synth dev'] / bare:7.2f}x  (target <= 1.25x)")
        print(f"synth dev / trivial CDK app    {median['synth dev'] / median['trivial CDK app (one queue)']:7.2f}x")
        print(f"cdk synth app / bare cluster   {median[CDK_APP_NAME] / bare:7.2f}x")
        if JS_PEER_NAME in median:
            js_peer = median[JS_PEER_NAME]
            print(f"render dev / JS peer synth     {median['render dev'] / js_peer:7.2f}x  (target < 1.0x)")
            print(f"synth dev / JS peer synth      {median['synth dev'] / js_peer:7.2f}x")
    measured = tuple(n for n in sizes if f"render {n}" in median)
    cpu = {name: _median(values, lambda s: s.cpu_seconds) for name, values in samples.items()}
    for verb in ("render", "check") if measured else ():
        for clock, figures in (("wall", median), ("CPU", cpu)):
            _growth(f"{verb} ({clock})", {n: figures[f"{verb} {n}"] for n in measured})
    return 0


if __name__ == "__main__":
    sys.exit(main())
