"""Render N generated team runs for the dev environment in one process (benchmark helper).

Usage: python -m bench.render_runs N  -> prints seconds spent parsing + rendering + dumping.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

RUN = """template: {template}
replicas: {replicas}
gpus_per_replica: 1
device_class: l4
cpu_per_replica: 4
memory_gib_per_replica: 16
image: public.ecr.aws/example/bench:{index}
command: [python, train.py, --seed={index}]
"""
TEMPLATES = ("pytorch", "mpi", "spark", "service")


def main() -> int:
    count = int(sys.argv[1])
    from charts.render import output_files, render_environment
    from config import load_environment
    from config.teams import load_team_runs

    env = load_environment(name="dev")
    with tempfile.TemporaryDirectory() as root:
        team_dir = Path(root) / "vision"
        team_dir.mkdir()
        for index in range(count):
            text = RUN.format(template=TEMPLATES[index % 4], replicas=3, index=index)
            (team_dir / f"run-{index:04d}.yaml").write_text(text)
        start = time.perf_counter()
        runs = [r for r in load_team_runs(env, teams_dir=Path(root)) if r.team == "vision"]
        files = output_files(env, render_environment(env, team_runs=runs))
        elapsed = time.perf_counter() - start
    assert sum(path.startswith("teams/") for path in files) == count
    print(f"{elapsed:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
