"""``make freshness``: the committed dist/ is what a fresh render writes, file for file."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli.freshness import stale_files
from config.load import REPO_ROOT


def test_a_copy_of_the_committed_output_is_fresh_and_each_difference_is_named(tmp_path: Path) -> None:
    committed = tmp_path / "dist"
    shutil.copytree(REPO_ROOT / "dist" / "dev", committed / "dev")
    assert stale_files(["dev"], committed) == []

    summary = committed / "dev" / "SUMMARY.md"
    summary.write_text(summary.read_text() + "edited by hand\n")
    (committed / "dev" / "extra.yaml").write_text("kind: ConfigMap\n")
    assert stale_files(["dev"], committed) == ["dev/SUMMARY.md", "dev/extra.yaml"]


def test_an_environment_without_committed_output_is_missing(tmp_path: Path) -> None:
    assert stale_files(["dev"], tmp_path) == ["dev/ (missing)"]
