"""The load test's decisions on recorded API payloads, its clean-up, and its skip without a cluster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.live import loadtest as loadtest_cli
from policy.environment.load import load_environment
from simulation.loadtest.observe import (
    GangWatch,
    claim_failures,
    live_result,
    pending_by_priority_class,
    poll,
    seconds_to_scheduled,
)
from simulation.loadtest.plan import LOADTEST_IMAGE, LOADTEST_LABEL, due, plan_load, render_submission
from simulation.mix.load import MIXES_DIR, load_mix
from simulation.mix.sample import sample_jobs
from simulation.report.measure import measurements
from tests.helpers.environments import workload_aware

PAYLOADS = json.loads((Path(__file__).parent / "payloads" / "loadtest-poll.json").read_text())


def dev_plan(scale: float = 0.05, minutes: float = 20):  # type: ignore[no-untyped-def]
    env = load_environment(name="dev")
    mix = load_mix(env, name="dev")
    jobs = sample_jobs(env, mix, seed=1, horizon_seconds=minutes * 60 / scale, mix_dir=MIXES_DIR)
    return env, jobs, plan_load(jobs, scale=scale, minutes=minutes)


def test_plan_compresses_time_but_keeps_shapes() -> None:
    _, jobs, plan = dev_plan()
    by_name = {j.name: j for j in jobs}
    for submission in plan.submissions:
        original = by_name[submission.job.name]
        assert submission.job.required == original.required
        assert submission.submit_seconds == pytest.approx(original.arrival_seconds * 0.05)
        assert submission.submit_seconds < plan.window_seconds
        if original.duration_seconds is None:  # standing load holds to the end of the test
            assert submission.hold_seconds == pytest.approx(plan.window_seconds - submission.submit_seconds, abs=1)
    assert [s.submit_seconds for s in plan.submissions] == sorted(s.submit_seconds for s in plan.submissions)


def test_due_submits_in_time_order() -> None:
    _, _, plan = dev_plan()
    first = due(plan, submitted=0, elapsed_seconds=0)
    assert first and all(s.submit_seconds == 0 for s in first)
    later = due(plan, submitted=len(first), elapsed_seconds=plan.window_seconds)
    assert len(first) + len(later) == len(plan.submissions)


@pytest.mark.parametrize("native", [True, False], ids=["workload-aware", "fallback"])
def test_submissions_render_as_the_templates_with_a_container_holding_the_devices(native: bool) -> None:
    _, _, plan = dev_plan()
    # The gang form follows the control plane: PodGroups on dev's workload-aware twin, none on shipped dev.
    env = workload_aware("dev") if native else load_environment(name="dev")
    submission = next(s for s in plan.submissions if s.job.job_class == "llm-standard")
    objects = render_submission(env, submission, test_id="abc123")
    kinds = [o["kind"] for o in objects]
    assert "Pod" in kinds and "ResourceClaimTemplate" in kinds
    assert ("PodGroup" in kinds) is native and ("Workload" in kinds) is native
    assert all(o["metadata"]["labels"][LOADTEST_LABEL] == "abc123" for o in objects)
    pods = [o for o in objects if o["kind"] == "Pod"]
    for pod in pods:
        (container,) = pod["spec"]["containers"]
        assert container["image"] == LOADTEST_IMAGE
        assert container["command"] == ["sleep", str(submission.hold_seconds)]
        assert ("schedulingGroup" in pod["spec"]) is native
    assert len(pods) == len(submission.job.required) + len(submission.job.optional)


def test_poll_reads_scheduling_and_preemption_episodes() -> None:
    watches: dict[str, GangWatch] = {}
    poll(watches, PAYLOADS["podgroups"], PAYLOADS["pods"], PAYLOADS["events"])
    assert seconds_to_scheduled(watches["llm-standard-00000"]) == 42
    assert seconds_to_scheduled(watches["notebooks-00001"]) is None
    assert watches["notebooks-00001"].preemptions == 2  # e1 and e2 are one episode
    # The next poll no longer shows the deleted pod; what was seen stays.
    poll(watches, PAYLOADS["podgroups"], [], PAYLOADS["events"])
    assert watches["notebooks-00001"].preemptions == 2
    assert watches["llm-standard-00000"].observation.pods_bound == 1  # type: ignore[union-attr]


def test_claim_failures_by_requested_device_class() -> None:
    assert claim_failures(PAYLOADS["events"], {"notebooks-00001-77aa01bc-worker-0": "l4"}) == {"l4": 3}


def test_live_result_reports_like_the_simulation() -> None:
    _, _, plan = dev_plan()
    watches: dict[str, GangWatch] = {}
    poll(watches, PAYLOADS["podgroups"], PAYLOADS["pods"], PAYLOADS["events"])
    submitted = len(plan.submissions)
    pending = pending_by_priority_class(plan, watches, submitted=submitted)
    assert sum(pending.values()) == submitted - sum(
        1 for s in plan.submissions if seconds_to_scheduled(watches.get(s.job.name)) is not None
    )
    report = measurements(live_result(plan, watches, [], submitted=submitted, allocation_failures={"l4": 3}))
    assert report["groups"] == submitted
    assert report["gang_resourceclaim_allocation_failures_total"] == [{"device_class": "l4", "value": 3}]


class FakeKube:
    def __init__(self) -> None:
        self.created: list[str] = []
        self.deleted: list[str] = []

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.created.append(f"{path}/{body['metadata']['name']}")
        return body

    def get(self, path: str, **query: str) -> dict[str, Any]:
        return {"items": []}

    def delete(self, path: str) -> None:
        self.deleted.append(path)


def test_runner_cleans_up_everything_it_created_also_when_interrupted() -> None:
    env, _, plan = dev_plan(minutes=1)
    kube = FakeKube()
    ticks = iter([0.0, 0.0, 30.0])

    def sleep(seconds: float) -> None:
        if not kube.created or next(ticks, None) is None:
            raise KeyboardInterrupt

    runner = loadtest_cli.LoadRunner(kube, env, plan, test_id="abc123", clock=lambda: 0.0, sleep=sleep)  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        runner.run()
    assert kube.created
    assert kube.deleted == list(reversed(kube.created))


def test_loadtest_skips_without_a_kubeconfig(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert loadtest_cli.main(["--env", "dev"]) == 0
    assert capsys.readouterr().out == (
        "loadtest: skipped: no kubeconfig at --kubeconfig, $KUBECONFIG or ~/.kube/config, "
        "so there is no cluster to test\n"
    )


def test_fails_loadtest_scale_not_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert loadtest_cli.main(["--env", "dev", "--scale", "0"]) == 2
    assert capsys.readouterr().err == "error: --scale: not a positive number (got 0.0); fix: pass e.g. SCALE=1\n"
