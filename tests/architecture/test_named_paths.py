"""Every repository path the docs, comments and docstrings name exists.

A renamed or moved module must not leave a page, a comment or a refusal pointing at its old path
(``cli/warm.py`` after it became ``accelerator/pause_gc_and_exit.py``). A path counts when its first
segment is a top-level folder of the repository; placeholders (``addons/<name>/``), what the build
writes (``cdk.out/``, ``site/``, ``bench/out/``) and the paths tests make up in temporary folders
are not paths in the tree.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERATED = ("bench/out", "bench/js_peer/node_modules", "bench/js_peer/cdk.out", "cdk.out", "site")
"""What a build or an install writes, named by the docs and absent from a clone."""
IN_THE_EXPORTER_IMAGE = {
    "exporter/README.md: policy/gate_probes.py",
    "exporter/gang_exporter/state.py: policy/gate_probes.py",
}
"""Stale paths left in ``exporter/`` (now ``policy/live/gate_probes.py``): the folder is the exporter
image's build context, so an edit there changes the image's asset hash and every template that names it.
They are fixed with the image's next real change; this list must then shrink (the test says so)."""
TEXT_SUFFIXES = {".py", ".md", ".js", ".yaml", ".yml", ".toml", ".txt", ".sh", ""}


def top_level_folders(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "node_modules"}


def named_paths(text: str, top_level: set[str]) -> list[str]:
    """The repository paths in ``text``: ``policy/checks/``, ``cli/synth.py`` (a ``:line`` or ``#anchor`` dropped).

    A path starts a word (not after ``:``, as in ``arn:aws:iam::aws:policy/Name``, nor inside a longer
    path such as ``cluster-autoscaler/docs/x.md``) and holds no placeholder.
    """
    folders = "|".join(map(re.escape, sorted(top_level)))
    pattern = re.compile(rf"(?<![\w./:<>*-])((?:{folders})/[\w./-]*)(?![\w<>*{{./-])")
    return [m.group(1).rstrip(".,/") for m in pattern.finditer(text)]


def named_modules(text: str, top_level: set[str]) -> list[str]:
    """The project modules ``text`` runs as ``python -m <module>`` (``cli.synth``, ``bench.simulation_speed``)."""
    found = re.findall(r"python -m ([\w.]+\w)", text)
    return [module for module in found if module.split(".", 1)[0] in top_level]


def _module_exists(root: Path, module: str) -> bool:
    path = root.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__main__.py").is_file()


def scanned_files(root: Path) -> list[Path]:
    """The sources, docs and build files a person reads; tests are left out (their paths are made up)."""
    skip = {"tests", "dist", "node_modules", "site", "cdk.out", "__pycache__"}
    files = []
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or any(p in skip or p.startswith(".") for p in parts):
            continue
        if path.suffix == "" and path.name != "Makefile":
            continue
        files.append(path)
    return files


def missing_paths(root: Path) -> list[str]:
    top_level = top_level_folders(root)
    missing = set()
    for path in scanned_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        for named in named_paths(text, top_level):
            if named.startswith(GENERATED) or (root / named).exists():
                continue
            # A page's relative link (docs/index.md -> simulation/dev/REPORT.md) resolves beside it.
            if path.suffix == ".md" and (path.parent / named).exists():
                continue
            # mkdocs.yml's nav is relative to docs/.
            if path.name == "mkdocs.yml" and (root / "docs" / named).exists():
                continue
            missing.add(f"{path.relative_to(root).as_posix()}: {named}")
        for module in named_modules(text, top_level):
            if not _module_exists(root, module):
                missing.add(f"{path.relative_to(root).as_posix()}: python -m {module}")
    return sorted(missing)


def test_every_path_named_outside_the_tests_exists() -> None:
    assert len(scanned_files(REPO)) > 100
    missing = set(missing_paths(REPO))
    assert sorted(missing - IN_THE_EXPORTER_IMAGE) == []
    assert sorted(IN_THE_EXPORTER_IMAGE - missing) == [], "fixed: remove it from IN_THE_EXPORTER_IMAGE"


def test_the_scan_reports_a_stale_path_and_passes_over_what_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "synth.py").write_text(
        '"""Started by cli/warm.py; see ``cli/synth.py:12`` and cli/.\n\n'
        "Not paths: addons/<name>/pin.py, cli/out-<n>.txt, arn:aws:iam::aws:policy/cli/x,\n"
        "kubernetes/autoscaler/cli/y.md, cdk.out/x.\n"
        '"""\n'
    )
    (tmp_path / "README.md").write_text(
        "[run](cli/synth.py), `cli/render.py#main`, `python -m cli.synth`, `python -m cli.warm --now`,\n"
        "`python -m pytest`\n"
    )
    assert missing_paths(tmp_path) == [
        "README.md: cli/render.py",
        "README.md: python -m cli.warm",
        "cli/synth.py: cli/warm.py",
    ]
