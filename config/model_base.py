"""Shared field types and the base model of every configuration section."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

PATTERN_WORDS: dict[str, str] = {}
"""Every pattern a field is checked against, with the values it allows in words: a refusal names
those words (``config.load``), never the regular expression."""


def text(pattern: str, words: str, *, max_length: int | None = None) -> StringConstraints:
    """A string field matching ``pattern``; ``words`` says what it allows ("use <words>")."""
    PATTERN_WORDS[pattern] = words
    return StringConstraints(pattern=pattern, max_length=max_length)


_DNS_LABEL_WORDS = (
    "1-63 lower-case letters, digits or '-', starting and ending with a letter or digit (e.g. team-vision)"
)
DnsLabel = Annotated[str, text(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", _DNS_LABEL_WORDS, max_length=63)]
LabelKey = Annotated[
    str,
    text(
        r"^([a-z0-9.-]{1,253}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$",
        "an optional DNS prefix of lower-case letters, digits, '-' and '.' followed by '/', then a name of "
        "1-63 letters, digits, '-', '_' or '.' starting and ending with a letter or digit (e.g. example.com/team)",
    ),
]
LabelValue = Annotated[
    str,
    text(
        r"^(|[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$",
        "an empty value, or 1-63 letters, digits, '-', '_' or '.' starting and ending with a letter or digit",
    ),
]
ZoneName = Annotated[
    str,
    text(
        r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$", "an availability zone name: the region's name and a letter (e.g. us-west-2a)"
    ),
]
AccountId = Annotated[str, text(r"^\d{12}$", "the 12 digits of an AWS account id, quoted (e.g. '111122223333')")]


class Model(BaseModel):
    """Base for every config section: immutable, and unknown keys are errors.

    A field's meaning is the docstring under it; ``config.reference`` reads it for the settings
    table. Pydantic's ``use_attribute_docstrings`` would read every model's source at import, on
    every command, for a text only the table shows.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
