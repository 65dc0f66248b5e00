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
    """Base for every config section: immutable, and unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
