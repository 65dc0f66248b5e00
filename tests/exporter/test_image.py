"""The exporter image: what its Dockerfile fetches, and that everything it copies exists.

No Docker engine runs here, so the build is checked statically: the only step that
reaches a network is ``pip install`` of fully pinned requirements from the package index.
"""

from __future__ import annotations

import re
from pathlib import Path

EXPORTER = Path(__file__).resolve().parents[2] / "exporter"
NETWORK_TOOLS = re.compile(r"\b(curl|wget|git|apt-get|apk|npm|go get)\b")


def _instructions() -> list[tuple[str, str]]:
    text = (EXPORTER / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def test_only_pinned_pip_requirements_touch_the_network() -> None:
    runs = [args for op, args in _instructions() if op == "RUN"]
    assert [r for r in runs if NETWORK_TOOLS.search(r)] == []
    (install,) = [r for r in runs if "pip install" in r]
    assert "-r /app/requirements.txt" in install
    requirements = [r for r in (EXPORTER / "requirements.txt").read_text().splitlines() if r and not r.startswith("#")]
    assert requirements and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.!+-]*", r) for r in requirements)


def test_copied_sources_exist_and_the_image_runs_as_non_root() -> None:
    instructions = _instructions()
    for op, args in instructions:
        if op == "COPY":
            assert (EXPORTER / args.split()[0]).exists(), args
    users = [args for op, args in instructions if op == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert instructions[0] == ("FROM", "python:3.11-slim")
