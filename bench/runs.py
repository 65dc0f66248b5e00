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
command: [python, train.py, --seed={index}]
"""


def write_runs(root: Path, *, count: int) -> Path:
    """Write ``count`` run files under ``root/<team>/`` and return ``root`` (a ``--teams`` directory).

    Every tenth run asks for the scarce ``deadline`` tier, so the competition check has
    hundreds of high-priority gangs to compare at fleet scale.
    """
    for team in (SCARCE_TEAM, TEAM):
        (root / team).mkdir(parents=True, exist_ok=True)
    for index in range(count):
        scarce = index % 10 == 0
        text = RUN.format(
            template=TEMPLATES[index % len(TEMPLATES)], tier="deadline" if scarce else "standard", index=index
        )
        team = SCARCE_TEAM if scarce else TEAM
        (root / team / f"run-{index:05d}.yaml").write_text(text, encoding="utf-8")
    return root
