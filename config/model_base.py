"""Shared field types and the base model of every configuration section."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

DnsLabel = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", max_length=63)]
LabelKey = Annotated[
    str, StringConstraints(pattern=r"^([a-z0-9.-]{1,253}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
]
LabelValue = Annotated[str, StringConstraints(pattern=r"^(|[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$")]
ZoneName = Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$")]


class Model(BaseModel):
    """Base for every config section: immutable, and unknown keys are errors.

    A field's meaning is the docstring under it; ``config.reference`` reads it for the settings
    table. Pydantic's ``use_attribute_docstrings`` would read every model's source at import, on
    every command, for a text only the table shows.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
