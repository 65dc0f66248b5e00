"""The settings reference reads each field's docstring, own and inherited."""

from __future__ import annotations

from config.model_base import Model
from config.reference import field_docstrings


class _Base(Model):
    size: int = 1
    """How many."""
    name: str = "x"
    """What it is called."""


class _Child(_Base):
    name: str = "y"
    """Its own name."""
    plain: bool = False


def test_own_docstrings_win_and_fields_without_one_have_none() -> None:
    assert field_docstrings(_Child) == {"size": "How many.", "name": "Its own name."}
