"""A failed run leaves the last good output untouched; a good one replaces it whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.output import replace_dir_on_success


def _good_output(target: Path) -> None:
    target.mkdir()
    (target / "old.yaml").write_text("last good\n")


def test_success_replaces_the_directory_whole(tmp_path: Path) -> None:
    target = tmp_path / "dist"
    _good_output(target)
    with replace_dir_on_success(target) as staging:
        (staging / "new.yaml").write_text("fresh\n")
    assert sorted(p.name for p in target.iterdir()) == ["new.yaml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]  # no staging or retired folder left


def test_a_failure_leaves_the_last_good_output_and_no_staging(tmp_path: Path) -> None:
    target = tmp_path / "dist"
    _good_output(target)
    with pytest.raises(RuntimeError), replace_dir_on_success(target) as staging:
        (staging / "half.yaml").write_text("partial\n")
        raise RuntimeError("render failed")
    assert (target / "old.yaml").read_text() == "last good\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]
