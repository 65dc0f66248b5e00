"""One what-if run: a mix on an environment for a seed, with gangs and the per-pod baseline."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from config.model import EnvironmentConfig
from policy.gates.rules import gang_scheduling_native
from simulation.engine.cluster import cluster_model
from simulation.engine.event_loop import Mode, Simulation, Window
from simulation.engine.jobs import JobRequest
from simulation.mix.model import MixConfig
from simulation.mix.sample import sample_jobs
from simulation.report.markdown import report_markdown
from simulation.report.measure import measurements

REPORT_JSON = "report.json"
REPORT_MD = "REPORT.md"
SAMPLES_PER_RUN = 500


def sample_seconds(horizon_seconds: float) -> float:
    """Sampling step of the time series: about ``SAMPLES_PER_RUN`` samples, whole minutes, at least one."""
    return max(60.0, 60.0 * round(horizon_seconds / SAMPLES_PER_RUN / 60))


def windows(mix: MixConfig) -> list[Window]:
    return [Window(w.pool, w.start_hours * 3600, w.end_hours * 3600) for w in mix.capacity_block_windows]


def run_modes(
    env: EnvironmentConfig,
    mix: MixConfig,
    jobs: list[JobRequest],
    *,
    horizon_seconds: float,
    progress: Callable[[Mode, float], None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Measurements of the gang run and the per-pod baseline of the same gangs."""
    cluster = cluster_model(env)
    step = sample_seconds(horizon_seconds)
    modes = {}
    for mode in (Mode.GANG, Mode.POD):
        tick = None if progress is None else (lambda t, m=mode: progress(m, t))
        result = Simulation(
            cluster,
            jobs,
            mode=mode,
            horizon_seconds=horizon_seconds,
            sample_seconds=step,
            windows=windows(mix),
            progress=tick,
        ).run()
        modes[mode.value] = measurements(result)
    return modes


def what_if(
    env: EnvironmentConfig,
    mix: MixConfig,
    *,
    mix_name: str,
    mix_dir: Path,
    seed: int,
    hours: float | None = None,
    progress: Callable[[Mode, float], None] | None = None,
) -> dict[str, Any]:
    horizon = (hours if hours is not None else mix.hours) * 3600
    jobs = sample_jobs(env, mix, seed=seed, horizon_seconds=horizon, mix_dir=mix_dir)
    title = {
        "environment": env.name,
        "mix": mix_name,
        "seed": seed,
        "hours": horizon / 3600,
        "command": "simulation",
        "gang_form": "native" if gang_scheduling_native(env.feature_gates.control_plane) else "fallback",
    }
    return {"title": title, "modes": run_modes(env, mix, jobs, horizon_seconds=horizon, progress=progress)}


def write_report(report: dict[str, Any], directory: Path) -> list[Path]:
    """``REPORT.md``, ``report.json`` and the plots into ``directory``."""
    from simulation.report.plots import write_plots

    directory.mkdir(parents=True, exist_ok=True)
    plots = write_plots(report, directory)
    (directory / REPORT_JSON).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (directory / REPORT_MD).write_text(report_markdown(report), encoding="utf-8")
    return [directory / REPORT_MD, directory / REPORT_JSON, *(directory / p for p in plots)]
