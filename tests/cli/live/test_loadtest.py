"""The load test says what it is doing while it runs: elapsed time, gangs submitted, pending and
scheduled, at its first poll, every ``progress_seconds`` and at the end, then what it deletes."""

from __future__ import annotations

from typing import Any

import cli.live.loadtest as loadtest_cli
from policy.environment.load import load_environment
from simulation.loadtest.plan import plan_load
from simulation.mix.load import MIXES_DIR, load_mix
from simulation.mix.sample import sample_jobs


class FakeKube:
    def __init__(self) -> None:
        self.created: list[str] = []

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.created.append(f"{path}/{body['metadata']['name']}")
        return body

    def get(self, path: str, **query: str) -> dict[str, Any]:
        return {"items": []}

    def delete(self, path: str) -> None:
        return


def test_progress_line() -> None:
    line = loadtest_cli.progress_line(elapsed=185.4, window=1200, submitted=12, total=40, pending=3)
    assert line == "loadtest: 3m05s of 20m00s: 12 of 40 gangs submitted, 3 pending, 9 scheduled"


def test_runner_reports_progress_while_it_runs_and_when_it_cleans_up() -> None:
    env = load_environment(name="dev")
    jobs = sample_jobs(env, load_mix(env, name="dev"), seed=1, horizon_seconds=120 / 0.05, mix_dir=MIXES_DIR)
    plan = plan_load(jobs, scale=0.05, minutes=2)
    now = [0.0]
    lines: list[str] = []

    def sleep(seconds: float) -> None:
        now[0] += seconds

    runner = loadtest_cli.LoadRunner(
        FakeKube(),  # type: ignore[arg-type]
        env,
        plan,
        test_id="abc123",
        poll_seconds=10,
        progress_seconds=60,
        clock=lambda: now[0],
        sleep=sleep,
        progress=lines.append,
    )
    runner.run()
    ticks = [line.split(":", 2)[1].strip() for line in lines if "gangs submitted" in line]
    assert ticks == ["0m00s of 2m00s", "1m00s of 2m00s", "2m00s of 2m00s"]
    assert lines[-2].endswith(
        f"{runner.submitted} of {len(plan.submissions)} gangs submitted, {runner.submitted} pending, 0 scheduled"
    )
    assert lines[-1].startswith("loadtest: deleting the ") and lines[-1].endswith(" objects test abc123 created")
