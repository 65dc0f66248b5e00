"""Read an environment file into an ``EnvironmentConfig``: the one place input enters."""

from __future__ import annotations

import json
import re
import types
import typing
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from config.errors import ConfigError, describe_kind
from config.files import read_yaml_file
from config.model import EnvironmentConfig
from config.settings_links import anchor_of, settings_link
from config.validate import validate_environment

REPO_ROOT = Path(__file__).resolve().parent.parent
ENVIRONMENTS_DIR = REPO_ROOT / "environments"
DEFAULT_ENVIRONMENT = "dev"


def environment_names() -> list[str]:
    return sorted(p.stem for p in ENVIRONMENTS_DIR.glob("*.yaml"))


ENVIRONMENT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
"""An environment is chosen by name (a DNS label, as ``name:`` in its file), never by a path."""


def environment_path(name: str) -> Path:
    if not ENVIRONMENT_NAME.match(name):
        raise ConfigError(
            "env",
            name,
            "an environment name is a name, never a path (lowercase letters, digits and '-')",
            f"use one of {', '.join(environment_names())}, or pass CONFIG=<path> for a file",
        )
    path = ENVIRONMENTS_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ConfigError(
            "env", name, "no such environment", f"use one of {', '.join(environment_names())} or pass config=<path>"
        )
    return path


def load_environment(*, name: str | None = None, path: Path | str | None = None) -> EnvironmentConfig:
    """Load by environment name (``environments/<name>.yaml``) or by file path; default ``dev``."""
    file = Path(path) if path is not None else environment_path(name or DEFAULT_ENVIRONMENT)
    source = _display(file)
    try:
        return parse_environment(_read_yaml(file), source=source)
    except ConfigError as error:
        raise error.with_source(source) from None


def parse_environment(data: Any, *, source: str = "") -> EnvironmentConfig:
    if not isinstance(data, dict):
        raise ConfigError(
            "<top>",
            describe_kind(data),
            "an environment file is a mapping",
            "start the file with 'name: <environment>'",
        )
    env = validate_strictly(EnvironmentConfig, data)
    validate_environment(env)
    return env


ModelT = TypeVar("ModelT", bound=BaseModel)


def _iso_date(value: object) -> str:
    """Dates and times from Python callers as ISO strings, as a quoted YAML value would give them."""
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not YAML data")


def validate_strictly(model: type[ModelT], data: dict[str, Any]) -> ModelT:
    """``data`` as ``model`` with no type coercion: ``"4"`` is not an integer, ``1`` is not ``true``.

    Validated as JSON so that strings still become enums and lists tuples, as YAML writes them.
    """
    try:
        document = json.dumps(data, allow_nan=False, default=_iso_date)
    except (TypeError, ValueError) as error:
        raise ConfigError("<top>", describe_kind(data), f"not plain data ({error})", "pass YAML or JSON data") from None
    try:
        return model.model_validate_json(document, strict=True)
    except ValidationError as error:
        raise _from_pydantic(error, model) from None


def _display(file: Path) -> str:
    try:
        return str(file.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(file)


def _read_yaml(file: Path) -> Any:
    return read_yaml_file(file)


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top>"


def _model_at(loc: tuple[int | str, ...], root: type[BaseModel]) -> type[BaseModel] | None:
    """The model class that owns the mapping at ``loc`` (to list its allowed keys)."""
    model: Any = root
    keyed = False  # the mapping at this point is a map of names to sections: the next part is a name
    for part in loc:
        if isinstance(part, int):
            continue
        if keyed:
            keyed = False
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)) or part not in model.model_fields:
            return None
        annotation = model.model_fields[part].annotation
        keyed = typing.get_origin(annotation) is dict
        model = _inner_model(annotation)
    return model if isinstance(model, type) and issubclass(model, BaseModel) and not keyed else None


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is dict:
        return _inner_model(typing.get_args(annotation)[1])
    if origin in (typing.Union, types.UnionType, tuple, list, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _inner_model(arg)
            if found is not None:
                return found
    return None


def _reference(loc: tuple[int | str, ...], root: type[BaseModel]) -> str:
    """The settings reference section for the field at ``loc``: the innermost model along it that
    has a section of its own (a team entry inside an environment file), else the file's."""
    for end in range(len(loc), 0, -1):
        owner = _model_at(loc[:end], root)
        if owner is not None and anchor_of(owner) is not None:
            return settings_link(owner)
    return settings_link(root)


def _from_pydantic(error: ValidationError, root: type[BaseModel] = EnvironmentConfig) -> ConfigError:
    first = error.errors()[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and ("[" in p or "function" in p)))
    field = _path(loc)
    value = first.get("input")
    kind = first["type"]
    ctx = first.get("ctx") or {}
    reference = _reference(loc[:-1], root)
    if kind == "extra_forbidden":
        owner = _model_at(loc[:-1], root)
        allowed = ", ".join(sorted(owner.model_fields)) if owner else f"see {reference}"
        return ConfigError(field, value, "unknown key", f"remove it or use one of: {allowed}")
    if kind == "missing":
        return ConfigError(field, None, "required key is missing", f"add '{loc[-1]}' (see {reference})")
    if kind == "enum":
        return ConfigError(field, value, "not an allowed value", f"use one of {ctx.get('expected')}")
    if kind == "string_pattern_mismatch":
        return ConfigError(field, value, "malformed value", f"match the pattern {ctx.get('pattern')}")
    if kind in _EXPECTED:
        return ConfigError(field, value, f"{describe_kind(value)} where {_EXPECTED[kind]} belongs", _TYPE_FIX)
    return ConfigError(field, value, first["msg"], f"correct the value (see {reference})")


_EXPECTED = {
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
}
_TYPE_FIX = "write the value in that type (quote a string; no implicit conversion)"
