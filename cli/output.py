"""Atomic output: a run writes beside the target and swaps in only when it succeeded."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replace_dir_on_success(target: Path) -> Iterator[Path]:
    """Yield a fresh staging directory; on success it replaces ``target``, on failure it is dropped."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    swap_in(staging, target)


def swap_in(filled: Path, target: Path) -> None:
    """Put the completed directory ``filled`` (same filesystem) where ``target`` was."""
    retired = target.with_name(f".{target.name}.old")
    shutil.rmtree(retired, ignore_errors=True)
    if target.exists():
        target.rename(retired)
    filled.rename(target)
    shutil.rmtree(retired, ignore_errors=True)
