"""A gang template kind lives in one place: ``policy/gangs/kinds/<kind>.py``.

The planner, the run checks, the renderer, the summary and the launcher wiring ask the run's kind
object (``policy.gangs.kinds.kind_of``); none of them branches on a ``GangTemplate`` member. Two
tests hold that: a scan of the source for branches on the enum, and a kind added to a copy of the
repository by its module and its enum value alone, which then parses, is refused, renders, plans
and summarizes like the shipped ones.
"""

from __future__ import annotations

import ast
import filecmp
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from config.platform import GangTemplate

REPO = Path(__file__).resolve().parents[2]
PACKAGES = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
REGISTRY = Path("policy/gangs/kinds")
"""Where the kinds live: the only place that may name a ``GangTemplate`` member."""
ENUM = Path("config/platform.py")


def _source_files(root: Path) -> list[Path]:
    files = [root / "app.py"]
    for package in PACKAGES:
        files += [p for p in sorted((root / package).rglob("*.py")) if "node_modules" not in p.parts]
    return [p for p in files if not p.relative_to(root).is_relative_to(REGISTRY)]


def _is_member(node: ast.AST, members: set[str]) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "GangTemplate"
        and node.attr in members
    )


def _names_template(node: ast.AST) -> bool:
    """``x.template`` or ``x.template.value``: a run's or plan's template."""
    if isinstance(node, ast.Attribute) and node.attr == "value":
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "template"


def template_branches(source: str, *, members: set[str], values: set[str]) -> list[tuple[int, str]]:
    """(line, what) of every place the source decides something by a template's name.

    Any ``GangTemplate.<MEMBER>`` counts (a comparison, a membership tuple, a mapping key, an argument),
    as do ``GangTemplate("<value>")`` and a ``.template`` compared with a template's value spelled as a
    string. A field default (``template: GangTemplate = GangTemplate.PYTORCH``) decides nothing and
    does not count.
    """
    tree = ast.parse(source)
    defaults = {
        id(statement.value)
        for klass in ast.walk(tree)
        if isinstance(klass, ast.ClassDef)
        for statement in klass.body
        if isinstance(statement, ast.AnnAssign) and statement.value is not None
    }
    found = []
    for node in ast.walk(tree):
        if _is_member(node, members) and id(node) not in defaults:
            assert isinstance(node, ast.Attribute)
            found.append((node.lineno, f"GangTemplate.{node.attr}"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "GangTemplate"
            and any(isinstance(a, ast.Constant) for a in node.args)
        ):
            found.append((node.lineno, "GangTemplate(<literal>)"))
        elif isinstance(node, ast.Compare) and any(_names_template(n) for n in (node.left, *node.comparators)):
            spelled = [
                c.value
                for operand in (node.left, *node.comparators)
                for c in ast.walk(operand)
                if isinstance(c, ast.Constant) and c.value in values
            ]
            if spelled:
                found.append((node.lineno, f"template compared with {spelled[0]!r}"))
    return sorted(found)


MEMBERS = set(GangTemplate.__members__)
VALUES = {t.value for t in GangTemplate}


def test_no_module_outside_the_kinds_branches_on_a_template() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for path in _source_files(REPO)
        for line, what in template_branches(path.read_text(), members=MEMBERS, values=VALUES)
    ]
    assert found == [], "ask the run's kind (policy.gangs.kinds.kind_of) instead:\n" + "\n".join(found)


def test_the_scan_finds_each_way_of_branching() -> None:
    source = textwrap.dedent(
        """
        class JobClass(Model):
            template: GangTemplate = GangTemplate.PYTORCH

        UNITS = {GangTemplate.MPI: "worker"}

        def f(run):
            if run.template is GangTemplate.MPI:
                return 1
            if run.template in (GangTemplate.PYTORCH, GangTemplate.SERVICE):
                return 2
            if run.template.value == "spark" or run.template == GangTemplate("mpi"):
                return 3
        """
    )
    assert template_branches(source, members=MEMBERS, values=VALUES) == [
        (5, "GangTemplate.MPI"),
        (8, "GangTemplate.MPI"),
        (10, "GangTemplate.PYTORCH"),
        (10, "GangTemplate.SERVICE"),
        (12, "GangTemplate(<literal>)"),
        (12, "template compared with 'mpi'"),
        (12, "template compared with 'spark'"),
    ]


RAY_KIND = '''\
"""``template: ray``: a Ray cluster, a CPU-only head and GPU workers that join it by name."""

from __future__ import annotations

from config.errors import ConfigError
from config.platform import GangTemplate, RunConfig
from policy.gangs.kinds.base import TemplateKind
from policy.gangs.launch import EnvVar, Launch, leader_address
from policy.gangs.shapes import GangPlan, Role

GCS_PORT = 6379


class Ray(TemplateKind):
    template = GangTemplate.RAY
    leader = "head"
    workers = "workers"
    leads_its_gang = False
    unit = "worker"

    def check_run(self, run: RunConfig, *, name: str) -> None:
        if not run.command:
            raise ConfigError("command", [], "a ray run names what its Pods start", "set command: [ray, start]")

    def discovery(self, plan: GangPlan) -> str:
        return f"head `{leader_address(plan)}:{GCS_PORT}`"

    def launch(self, plan: GangPlan, role: Role) -> Launch:
        env = (EnvVar("RAY_ADDRESS", f"{leader_address(plan)}:{GCS_PORT}"),)
        return Launch(plan.command, env, ports=(("gcs", GCS_PORT),))


KIND = Ray()
'''

PROBE = """\
import json

from charts.render import render_team_run
from charts.summary import summary_markdown
from config.errors import ConfigError
from config.platform import TeamRun
from policy.environment.load import load_environment
from policy.environment.teams import parse_run
from policy.gangs.kinds import KINDS
from simulation.engine.jobs import gang_pods

env = load_environment(name="dev")
RUN = {
    "template": "ray", "replicas": 3, "gpus_per_replica": 1, "device_class": "l4", "cpu_per_replica": 4,
    "memory_gib_per_replica": 16, "image": "public.ecr.aws/example/ray:1.0", "command": ["ray", "start"],
}


def refusal(**changes):
    try:
        parse_run(env, "vision", "tune", RUN | changes)
    except ConfigError as error:
        return str(error)
    return None


run = parse_run(env, "vision", "tune", RUN)
objects, plan = render_team_run(None, env, TeamRun("vision", "tune", "teams/vision/tune.yaml", run))
pods = [o for o in objects if o["kind"] == "Pod"]
print(json.dumps({
    "kinds": list(KINDS),
    "roles": [[r.name, r.replicas, r.gpus] for r in plan.roles],
    "objects": sorted({o["kind"] for o in objects}),
    "pods": {
        p["metadata"]["name"]: {e["name"]: e.get("value") for e in p["spec"]["containers"][0]["env"]} for p in pods
    },
    "summary": summary_markdown(env, [plan]),
    "simulated": [len(part) for part in gang_pods(plan.groups)[:2]],
    "refusals": {
        "replicas": refusal(replicas=0),
        "processes_per_pod": refusal(processes_per_pod=2),
        "command": refusal(command=[]),
    },
}))
"""


@pytest.fixture
def copy_of_repository(tmp_path: Path) -> Path:
    """The packages, environments and team runs: what a render reads."""
    for folder in (*PACKAGES, "environments", "teams"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    shutil.copy(REPO / "app.py", tmp_path / "app.py")
    return tmp_path


def _touched(copy: Path) -> set[str]:
    """Files of ``copy`` that differ from the repository's, or that it alone has."""
    touched = set()
    for path in copy.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(copy)
            original = REPO / relative
            if not original.is_file() or not filecmp.cmp(path, original, shallow=False):
                touched.add(str(relative))
    return touched


def test_adding_a_kind_touches_only_its_module_and_the_enum(copy_of_repository: Path) -> None:
    copy = copy_of_repository
    enum = copy / ENUM
    text = enum.read_text()
    assert '    SERVICE = "service"\n' in text
    enum.write_text(text.replace('    SERVICE = "service"\n', '    SERVICE = "service"\n    RAY = "ray"\n'))
    (copy / REGISTRY / "ray.py").write_text(RAY_KIND)

    assert _touched(copy) == {str(ENUM), str(REGISTRY / "ray.py")}

    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=copy,
        env={**os.environ, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.splitlines()[-1])

    assert seen["kinds"] == ["pytorch", "mpi", "spark", "service", "ray"]
    # The head comes on top of the workers, CPU-only, like an MPI launcher or a Spark driver.
    assert seen["roles"] == [["head", 1, 0], ["worker", 3, 1]]
    assert {"Pod", "Service", "ResourceClaimTemplate"} <= set(seen["objects"])
    assert "ConfigMap" not in seen["objects"] and "StatefulSet" not in seen["objects"]
    head = next(name for name in seen["pods"] if "-head-" in name)
    address = seen["pods"][head]["RAY_ADDRESS"]
    assert address.startswith(f"{head}.") and address.endswith(":6379")
    assert all(env["RAY_ADDRESS"] == address and env["GANG_ROLE"] for env in seen["pods"].values())
    # SUMMARY.md's launch table asks the kind; a ray run needs no SSH key Secret first.
    assert f"| vision | tune | 1 | 4 | head `{address}` |" in seen["summary"]
    assert "mpi-ssh-key" not in seen["summary"]
    assert seen["simulated"] == [3, 0]
    assert seen["refusals"] == {
        "replicas": "replicas: a ray run needs at least one worker (got 0); fix: set replicas >= 1",
        "processes_per_pod": "processes_per_pod: the ray template never reads it (only pytorch and mpi runs do) "
        "(got 2); fix: remove processes_per_pod from the run, or use template: pytorch",
        "command": "command: a ray run names what its Pods start (got []); fix: set command: [ray, start]",
    }

    scan = [
        f"{path.relative_to(copy)}:{line}: {what}"
        for path in _source_files(copy)
        for line, what in template_branches(path.read_text(), members=MEMBERS | {"RAY"}, values=VALUES | {"ray"})
    ]
    assert scan == []
