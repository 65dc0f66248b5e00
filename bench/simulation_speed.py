"""Simulation speed: one simulated week of ``prod-example`` at 2,500 / 5,000 / 10,000 / 20,000 gang
arrivals, gang mode and per-pod baseline, in one process (ratios from one run; machines are noisy).

The mix's Poisson rates are scaled so the week holds the wanted number of arrivals; the target
is 10,000 arrivals in under 10 s (gang mode), with time per arrival flat as arrivals grow.
Run: ``.venv/bin/python -m bench.simulation_speed`` (``--arrivals 10000`` for one size).
"""

from __future__ import annotations

import argparse
import time

from policy.environment.load import load_environment
from simulation.engine.cluster import cluster_model
from simulation.engine.event_loop import Mode, Simulation
from simulation.mix.load import MIXES_DIR, load_mix
from simulation.mix.model import ArrivalProcess, MixConfig
from simulation.mix.sample import sample_jobs
from simulation.whatif import sample_seconds, windows

WEEK_SECONDS = 168 * 3600.0


def scaled(mix: MixConfig, *, arrivals: int, seed: int) -> MixConfig:
    """``mix`` with every Poisson rate multiplied so one week holds about ``arrivals`` gangs."""
    env = load_environment(name="prod-example")
    base = sample_jobs(env, mix, seed=seed, horizon_seconds=WEEK_SECONDS, mix_dir=MIXES_DIR)
    poisson = {c.name for c in mix.classes if c.arrival.process is ArrivalProcess.POISSON}
    fixed = sum(1 for j in base if j.job_class not in poisson)
    expected = sum((c.arrival.per_hour or 0) * 168 for c in mix.classes if c.name in poisson)
    factor = max(0.0, arrivals - fixed) / expected
    classes = tuple(
        c.model_copy(update={"arrival": c.arrival.model_copy(update={"per_hour": (c.arrival.per_hour or 0) * factor})})
        if c.name in poisson
        else c
        for c in mix.classes
    )
    return mix.model_copy(update={"classes": classes})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arrivals", type=int, action="append", help="arrivals per week (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    env = load_environment(name="prod-example")
    mix = load_mix(env, name="prod-example")
    cluster = cluster_model(env)
    print("arrivals  mode      gangs  started  seconds  ms/arrival  (one simulated week of prod-example)")
    rows = []
    for arrivals in args.arrivals or [2500, 5000, 10000, 20000]:
        jobs = sample_jobs(
            env,
            scaled(mix, arrivals=arrivals, seed=args.seed),
            seed=args.seed,
            horizon_seconds=WEEK_SECONDS,
            mix_dir=MIXES_DIR,
        )
        for mode in Mode:
            start = time.perf_counter()
            result = Simulation(
                cluster,
                jobs,
                mode=mode,
                horizon_seconds=WEEK_SECONDS,
                sample_seconds=sample_seconds(WEEK_SECONDS),
                windows=windows(mix),
            ).run()
            seconds = time.perf_counter() - start
            started = sum(1 for j in result.jobs if j.scheduled_seconds is not None)
            rows.append((arrivals, mode, len(jobs), seconds))
            per_arrival_ms = 1000 * seconds / len(jobs)
            print(
                f"{arrivals:8d}  {mode.value:8s}  {len(jobs):5d}  {started:7d}  {seconds:7.2f}  {per_arrival_ms:10.3f}"
            )
    for mode in Mode:
        mine = [r for r in rows if r[1] is mode]
        base = mine[0][3] / mine[0][2]
        ratios = ", ".join(f"{r[0]}: {r[3] / r[2] / base:.2f}" for r in mine)
        print(f"{mode.value}: time per arrival relative to {mine[0][0]} arrivals -> {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
