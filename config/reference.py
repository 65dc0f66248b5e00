"""Generate the settings reference (Markdown tables) from the configuration models.

One section per kind of file a user writes, each a table of every setting with its type, default
and meaning (the docstring under the field). ``cli.settings`` composes the sections of
``docs/reference/settings.md`` (the environment, team and run sections here, the mix section from
``simulation.mix.model``); error messages link to a section by its anchor
(``config.settings_links``); a test fails when the committed file is stale.
"""

from __future__ import annotations

import ast
import enum
import inspect
import textwrap
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, BeforeValidator
from pydantic_core import PydanticUndefined

from config.model import EnvironmentConfig
from config.platform import RunConfig, TeamConfig
from config.settings_links import SETTINGS_REFERENCE, anchor_of


@dataclass(frozen=True)
class Section:
    """One kind of file: its heading (the anchor is the heading's, GitHub style), where the file
    lives, and the model whose fields are the table's rows, under ``prefix``."""

    title: str
    model: type[BaseModel]
    where: str
    prefix: str = ""

    @property
    def anchor(self) -> str:
        return "-".join(self.title.lower().split())


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args if a is not type(None)) + (
            " (optional)" if type(None) in args else ""
        )
    if origin is tuple:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"map of {_type_name(args[0])} to {_type_name(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " \\| ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    return getattr(annotation, "__name__", str(annotation)).replace("IPv4Network", "CIDR")


def _default(field: Any) -> str:
    if field.default is PydanticUndefined and field.default_factory is None:
        return "**required**"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, tuple):
        value = [
            v.value
            if isinstance(v, enum.Enum)
            else str(v)
            if not isinstance(v, BaseModel)
            else v.model_dump(mode="json")
            for v in value
        ]
    if isinstance(value, dict):
        value = {k.value if isinstance(k, enum.Enum) else k: v for k, v in value.items()}
    return f"`{value}`" if value not in (None, "", [], {}) else "—"


def _describe(text: str | None) -> str:
    return (text or "").replace("\n", " ").replace("``", "`").replace("|", "\\|")


def field_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string literal right under its annotation), own and inherited."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        (body,) = ast.parse(textwrap.dedent(inspect.getsource(cls))).body
        assert isinstance(body, ast.ClassDef)
        for field, doc in zip(body.body, [*body.body[1:], None], strict=True):
            if not (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)):
                continue
            docs.pop(field.target.id, None)  # a field declared again means only what its own docstring says
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str):
                docs[field.target.id] = inspect.cleandoc(doc.value.value)
    return docs


def _rows(model: type[BaseModel], prefix: str, *, skip: frozenset[type[BaseModel]] = frozenset()) -> list[str]:
    """Every field of ``model`` as a row, then the fields of its sections, depth first by level;
    sections of a model in ``skip`` (documented in a section of their own) are not repeated."""
    rows, nested = [], []
    docs = field_docstrings(model)
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        meaning = field.description or docs.get(name)
        kind = _type_name(field.annotation)
        if any(isinstance(m, BeforeValidator) for m in field.metadata):  # a number stands for {choices: [n]}
            kind = f"number or {kind}"
        rows.append(f"| `{path}` | {kind} | {_default(field)} | {_describe(meaning)} |")
        inner, suffix = _inner_model(field.annotation)
        if inner is not None and inner in skip:
            rows[-1] = rows[-1][: -len(" |")] + f" Its fields: [{_title(anchor_of(inner))}](#{anchor_of(inner)}). |"
        elif inner is not None:
            nested.append((inner, f"{path}{suffix}"))
    for inner, inner_prefix in nested:
        rows += _rows(inner, inner_prefix, skip=skip)
    return rows


def _title(anchor: str | None) -> str:
    return (anchor or "").replace("-", " ").capitalize()


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) in (typing.Annotated, typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0]
    return annotation


def _inner_model(annotation: Any) -> tuple[type[BaseModel] | None, str]:
    """The section model a field holds (directly, in a list or as a map's values) and how its
    fields' paths continue (``.``, ``[].``, ``.<key>.``)."""
    annotation = _strip(annotation)
    suffix = "."
    if typing.get_origin(annotation) is tuple:
        annotation, suffix = _strip(typing.get_args(annotation)[0]), "[]."
    elif typing.get_origin(annotation) is dict:
        annotation, suffix = _strip(typing.get_args(annotation)[1]), ".<name>."
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, suffix
    return None, suffix


ENVIRONMENT_FILES = Section(
    "Environment files",
    EnvironmentConfig,
    "`environments/<name>.yaml` (`make synth ENV=<name>`), or any file passed as `CONFIG=<path>`.",
)
TEAM_ENTRIES = Section(
    "Team entries",
    TeamConfig,
    "Each entry of `platform.teams` in an environment file, by team name; the team's runs are the files "
    "under `teams/<team>/`.",
    prefix="platform.teams.<name>.",
)
RUN_FILES = Section(
    "Run files",
    RunConfig,
    "`teams/<team>/<run>.yaml`: one gang run of a team listed in the environment's `platform.teams`; the file "
    "name is the run name (a DNS label of at most 40 characters).",
)
CONFIG_SECTIONS = (ENVIRONMENT_FILES, TEAM_ENTRIES, RUN_FILES)
"""The sections of the files ``config`` reads; the mix section is ``simulation``'s."""

_HEADER = ["| setting | type | default | meaning |", "|---|---|---|---|"]


def section_markdown(section: Section, *, skip: frozenset[type[BaseModel]]) -> str:
    assert anchor_of(section.model) == section.anchor, f"config.settings_links: {section.model.__name__}"
    doc = inspect.cleandoc(section.model.__doc__ or "")
    rows = _rows(section.model, section.prefix, skip=skip - {section.model})
    return "\n".join([f"## {section.title}", "", section.where, "", _describe(doc), "", *_HEADER, *rows])


def reference_markdown(sections: Sequence[Section]) -> str:
    """The whole ``docs/reference/settings.md``: a contents list, then one section per kind of file."""
    skip = frozenset(s.model for s in sections)
    contents = [f"- [{s.title}](#{s.anchor})" for s in sections]
    body = "\n\n".join(section_markdown(s, skip=skip) for s in sections)
    return "\n".join(
        [
            "# Settings reference",
            "",
            f"Generated from the configuration models by `make settings` (`{SETTINGS_REFERENCE}`); do not edit.",
            "Every file is read strictly: unknown keys are errors, and values are never converted between types.",
            "Errors name the field and link to its section here.",
            "",
            *contents,
            "",
            body,
            "",
        ]
    )
