"""Generated team runs for the benchmark: valid for the ``dev`` environment, every template in turn."""

from __future__ import annotations

from pathlib import Path

SCARCE_TEAM = "llm-research"
"""The team of ``dev`` granted the scarce ``deadline`` tier."""
TEAM = "vision"
"""The team of ``dev`` that runs everything else (``standard`` tier)."""
TEMPLATES = ("pytorch", "mpi", "spark", "service")
RUN = """template: {template}
replicas: 3
gpus_per_replica: 1
device_class: l4
cpu_per_replica: 4
memory_gib_per_replica: 16
tier: {tier}
image: public.ecr.aws/example/bench:{index}
{command}
"""
COMMANDS = {
    "pytorch": "command: [train.py, --seed={index}]",  # torchrun starts the interpreter itself
    "mpi": "command: [python, train.py, --seed={index}]",
    "spark": "command: [/opt/spark/bin/spark-submit, --class, jobs.Bench, local:///opt/jobs.jar, '{index}']",
    "service": "command: [python, -m, bench.serve, --seed={index}]\nreadiness_command: [python, -m, bench.ready]",
}


def write_runs(root: Path, *, count: int) -> Path:
    """Write ``count`` run files under ``root/<team>/`` and return ``root`` (a ``--teams`` directory).

    Every tenth run asks for the scarce ``deadline`` tier, so the competition check has
    hundreds of high-priority gangs to compare at fleet scale.
    """
    for team in (SCARCE_TEAM, TEAM):
        (root / team).mkdir(parents=True, exist_ok=True)
    for index in range(count):
        scarce = index % 10 == 0
        template = TEMPLATES[index % len(TEMPLATES)]
        command = COMMANDS[template].format(index=index)
        text = RUN.format(template=template, tier="deadline" if scarce else "standard", index=index, command=command)
        team = SCARCE_TEAM if scarce else TEAM
        (root / team / f"run-{index:05d}.yaml").write_text(text, encoding="utf-8")
    return root


def fleet_environment(path: Path) -> Path:
    """``dev`` as an environment file at ``path`` whose teams take every run of a ``--teams`` directory.

    ``dev`` selects which of its run files under ``teams/`` it renders (``platform.teams.<team>.runs``);
    a directory of generated runs holds none of them, so the selection is left out.
    """
    import yaml

    from config.files import read_yaml_file
    from config.load import ENVIRONMENTS_DIR

    data = read_yaml_file(ENVIRONMENTS_DIR / "dev.yaml")
    for team in data["platform"]["teams"].values():
        team.pop("runs", None)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
