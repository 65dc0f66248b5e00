"""The docs site builds strictly (a broken link, anchor or nav entry fails it), and the README stays short.

``make docs`` runs ``mkdocs build --strict``; these tests run the same build into a temporary directory.
Without mkdocs installed (``requirements-docs.txt``, which ``make test`` installs) the build tests skip with
the reason; ``GPU_PLATFORM_REQUIRE_DOCS=1`` (``.ci/run``) turns that skip into a failure.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from config.load import REPO_ROOT

REPO = REPO_ROOT
README = REPO / "README.md"
README_MAX_LINES = 170
REQUIRE_DOCS_ENV = "GPU_PLATFORM_REQUIRE_DOCS"


@pytest.fixture(scope="module")
def mkdocs() -> list[str]:
    if importlib.util.find_spec("mkdocs") is None:
        reason = "mkdocs is not installed (pip install -r requirements-docs.txt, or make test)"
        if os.environ.get(REQUIRE_DOCS_ENV) == "1":
            pytest.fail(f"{reason}; {REQUIRE_DOCS_ENV}=1")
        pytest.skip(reason)
    return [sys.executable, "-m", "mkdocs"]


def _build(mkdocs: list[str], config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*mkdocs, "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _copy_of_the_site_sources(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    return root


def test_the_docs_site_builds_strictly(mkdocs: list[str], tmp_path: Path) -> None:
    result = _build(mkdocs, REPO / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "settings.html").is_file()


@pytest.mark.parametrize(
    ("link", "complaint"),
    [
        ("[gone](concepts/no-such-page.md)", "no-such-page.md"),
        ("[gone](concepts/gangs.md#no-such-section)", "no-such-section"),
    ],
    ids=["page", "anchor"],
)
def test_a_broken_link_fails_the_build(mkdocs: list[str], tmp_path: Path, link: str, complaint: str) -> None:
    root = _copy_of_the_site_sources(tmp_path)
    index = root / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + f"\n{link}\n", encoding="utf-8")
    result = _build(mkdocs, root / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0, result.stderr
    assert complaint in result.stderr


def test_a_page_left_out_of_the_nav_fails_the_build(mkdocs: list[str], tmp_path: Path) -> None:
    root = _copy_of_the_site_sources(tmp_path)
    (root / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    result = _build(mkdocs, root / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0, result.stderr
    assert "orphan.md" in result.stderr


def test_readme_is_short_and_states_the_test_command() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "make test" in text
    assert "make synth" in text


def test_readme_links_into_docs_resolve() -> None:
    """The README is not part of the site, so mkdocs does not check its links: this does."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)]*)?\)", text)
    assert targets
    assert [t for t in targets if not (REPO / t).is_file()] == []
