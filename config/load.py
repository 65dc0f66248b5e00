"""Read an environment file into the typed ``EnvironmentConfig`` model: the one reader of input files."""

from __future__ import annotations

import json
import re
import types
import typing
import unicodedata
from datetime import UTC, date, datetime
from ipaddress import AddressValueError, IPv4Network, NetmaskValueError
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from config.errors import ConfigError, describe_kind
from config.files import read_yaml_file
from config.model import EnvironmentConfig
from config.model_base import PATTERN_WORDS
from config.settings_links import anchor_of, settings_link

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


def environment_model(data: Any) -> EnvironmentConfig:
    """The typed model of an environment file's data: each field checked on its own, strictly.

    The cross-field rules that need plans run above the model (``policy.environment.load``).
    """
    if not isinstance(data, dict):
        raise ConfigError(
            "<top>",
            describe_kind(data),
            "an environment file is a mapping",
            "start the file with 'name: <environment>'",
        )
    return validate_strictly(EnvironmentConfig, data)


def utc_today() -> date:
    """Today's date in UTC: the one clock reading validation makes."""
    return datetime.now(UTC).date()


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
    refuse_control_characters(data)
    try:
        return model.model_validate_json(document, strict=True)
    except ValidationError as error:
        raise from_pydantic(error, model) from None


_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
"""Control characters (C0, C1, DEL), format characters (bidirectional overrides, zero-width) and
line or paragraph separators: none belongs in a value that reaches YAML output, a shell or a command."""


def control_character(text: str) -> str | None:
    """The first invisible or control character of ``text`` as ``U+XXXX``, or ``None``."""
    for char in text:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None


def refuse_control_characters(data: Any, loc: tuple[int | str, ...] = ()) -> None:
    """Refuse any key or string value of ``data`` that holds a control character, naming where."""
    if isinstance(data, str):
        found = control_character(data)
        if found is not None:
            raise ConfigError(
                _path(loc),
                data,
                f"holds the control character {found}",
                "write printable text only: give each command argument its own list entry, and keep scripts "
                "in the image",
            )
    elif isinstance(data, dict):
        for key, value in data.items():
            refuse_control_characters(key, loc)
            refuse_control_characters(value, (*loc, key))
    elif isinstance(data, (list, tuple)):
        for index, value in enumerate(data):
            refuse_control_characters(value, (*loc, index))


def display_path(file: Path) -> str:
    try:
        return str(file.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(file)


def read_yaml(file: Path) -> Any:
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


def from_pydantic(error: ValidationError, root: type[BaseModel] = EnvironmentConfig) -> ConfigError:
    """The first error pydantic found, in our words: the values a field allows, never pydantic's text or a pattern."""
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
    if kind in ("enum", "literal_error"):
        return ConfigError(field, value, "not an allowed value", f"use one of {ctx.get('expected')}")
    if kind == "string_pattern_mismatch":
        words = PATTERN_WORDS.get(str(ctx.get("pattern")), "the form docs/reference/settings.md describes")
        return ConfigError(field, value, "not in the allowed form", f"use {words}")
    if kind in ("string_too_long", "too_long"):
        most = ctx.get("max_length")
        unit = "characters" if kind == "string_too_long" else "entries"
        return ConfigError(field, value, f"more than {most} {unit}", f"use at most {most} {unit}")
    if kind in ("string_too_short", "too_short"):
        least = ctx.get("min_length")
        unit = "characters" if kind == "string_too_short" else "entries"
        if least == 1:
            empty = "an empty string" if kind == "string_too_short" else "an empty list"
            return ConfigError(
                field, value, empty, "give at least one" + (" character" if unit == "characters" else "")
            )
        return ConfigError(field, value, f"fewer than {least} {unit}", f"use at least {least} {unit}")
    if kind in _BOUNDS:
        key, missed = _BOUNDS[kind]
        return ConfigError(field, value, f"{missed} {ctx.get(key)}", f"use {_bounds(loc, root, ctx)}")
    if kind.startswith("datetime") or kind.startswith("date_"):
        return ConfigError(
            field,
            value,
            "not a date and time",
            "write it quoted, in ISO 8601 with its zone, e.g. '2027-01-15T11:30:00Z'",
        )
    if kind == "value_error" and _is_cidr_error(ctx.get("error")):
        return _cidr_error(field, value)
    if kind in _EXPECTED:
        return ConfigError(field, value, f"{describe_kind(value)} where {_EXPECTED[kind]} belongs", _TYPE_FIX)
    return ConfigError(field, value, "not a valid value for this setting", f"correct the value (see {reference})")


_BOUNDS = {
    "greater_than_equal": ("ge", "less than"),
    "greater_than": ("gt", "not more than"),
    "less_than_equal": ("le", "more than"),
    "less_than": ("lt", "not less than"),
}
"""pydantic's bound errors: the ``ctx`` key of the bound, and how the value misses it."""


def _bounds(loc: tuple[int | str, ...], root: type[BaseModel], ctx: dict[str, Any]) -> str:
    """The values the number field at ``loc`` allows, in words, from its ``Field`` constraints (or, for a
    list entry, from the one bound pydantic reports)."""
    owner = _model_at(loc[:-1], root) if loc and isinstance(loc[-1], str) else None
    metadata: list[Any] = [SimpleNamespace(**ctx)]
    whole = isinstance(next(iter(ctx.values()), 0), int)
    if owner is not None and isinstance(loc[-1], str):
        field = owner.model_fields[loc[-1]]
        metadata = _metadata(field.annotation) + list(field.metadata)
        whole = _number_type(field.annotation) is int
    found: dict[str, Any] = {}
    for meta in metadata:
        for key in ("ge", "gt", "le", "lt"):
            if getattr(meta, key, None) is not None:
                found[key] = getattr(meta, key)
    words = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}
    parts = [f"{words[key]} {found[key]}" for key in words if key in found]
    noun = "a whole number" if whole else "a number"
    if "ge" in found and "le" in found:
        return f"{noun} from {found['ge']} to {found['le']}"
    return f"{noun} of {' and '.join(parts)}" if parts else noun


def _number_type(annotation: Any) -> type | None:
    if annotation in (int, float):
        return annotation  # type: ignore[no-any-return]
    for arg in typing.get_args(annotation):
        found = _number_type(arg)
        if found is not None:
            return found
    return None


def _metadata(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        # A ``Field(...)`` inside ``Annotated`` keeps its bounds in its own ``metadata``.
        return [m for meta in annotation.__metadata__ for m in (meta, *getattr(meta, "metadata", ()))]
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _metadata(arg)]
    return []


def _is_cidr_error(error: object) -> bool:
    return isinstance(error, (AddressValueError, NetmaskValueError)) or "host bits set" in str(error)


def _cidr_error(field: str, value: object) -> ConfigError:
    try:
        network = IPv4Network(str(value), strict=False)
    except ValueError:
        return ConfigError(
            field,
            value,
            "not an IPv4 CIDR block",
            "write four numbers 0-255 joined by '.', then '/' and a prefix length 0-32, e.g. 10.0.0.0/16",
        )
    return ConfigError(
        field,
        value,
        f"the address has bits set after its /{network.prefixlen} prefix",
        f"write the block's first address: {network}",
    )


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
