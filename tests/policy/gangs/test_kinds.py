"""The template-kind registry: one kind per GangTemplate, and what each kind answers."""

from __future__ import annotations

from config.platform import GangTemplate
from policy.environment.load import load_environment
from policy.environment.teams import load_team_runs
from policy.gangs.kinds import KINDS, kind_of
from policy.gangs.kinds.base import TemplateKind
from policy.gangs.kinds.mpi import KIND as MPI
from policy.gangs.kinds.pytorch import KIND as PYTORCH
from policy.gangs.kinds.service import KIND as SERVICE
from policy.gangs.kinds.spark import KIND as SPARK
from policy.gangs.plan import plan_gang


def test_every_template_has_exactly_its_kind() -> None:
    assert list(KINDS) == list(GangTemplate)
    assert all(isinstance(kind, TemplateKind) and kind.template is template for template, kind in KINDS.items())
    assert [KINDS[t] for t in GangTemplate] == [PYTORCH, MPI, SPARK, SERVICE]


def test_only_mpi_needs_an_ssh_key_and_only_pytorch_runs_as_an_indexed_job() -> None:
    assert [k.template for k in KINDS.values() if k.needs_ssh_key] == [GangTemplate.MPI]
    assert [k.template for k in KINDS.values() if k.indexed_job] == [GangTemplate.PYTORCH]


def test_launcher_kinds_add_their_leader_on_top_of_the_replicas() -> None:
    assert PYTORCH.leads_its_gang and SERVICE.leads_its_gang
    assert not MPI.leads_its_gang and not SPARK.leads_its_gang


def test_kind_of_answers_for_a_template_a_run_and_a_plan() -> None:
    env = load_environment(name="dev")
    team_run = next(r for r in load_team_runs(env) if r.run.template is GangTemplate.MPI)
    plan = plan_gang(env, team=team_run.team, run_name=team_run.name, run=team_run.run)
    assert kind_of(GangTemplate.MPI) is MPI
    assert kind_of(team_run.run) is MPI
    assert kind_of(plan) is MPI
