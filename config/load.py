"""Read an environment file into an ``EnvironmentConfig``: the one place input enters."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from config.errors import ConfigError
from config.model import EnvironmentConfig
from config.validate import validate_environment

REPO_ROOT = Path(__file__).resolve().parent.parent
ENVIRONMENTS_DIR = REPO_ROOT / "environments"
DEFAULT_ENVIRONMENT = "dev"


def environment_names() -> list[str]:
    return sorted(p.stem for p in ENVIRONMENTS_DIR.glob("*.yaml"))


def environment_path(name: str) -> Path:
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
            type(data).__name__,
            "an environment file is a mapping",
            "start the file with 'name: <environment>'",
        )
    try:
        env = EnvironmentConfig.model_validate(data)
    except ValidationError as error:
        raise _from_pydantic(error) from None
    validate_environment(env)
    return env


def _display(file: Path) -> str:
    try:
        return str(file.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(file)


def _read_yaml(file: Path) -> Any:
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(
            "config", str(file), f"cannot read file ({error.strerror})", "pass the path of an existing environment file"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f"line {mark.line + 1}" if mark is not None else "file"
        problem = getattr(error, "problem", None) or "invalid YAML"
        raise ConfigError(
            line,
            text.splitlines()[mark.line].strip() if mark else "",
            f"YAML: {problem}",
            "fix the YAML syntax at that line",
        ) from None


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top>"


def _model_at(loc: tuple[int | str, ...], root: type[BaseModel]) -> type[BaseModel] | None:
    """The model class that owns the mapping at ``loc`` (to list its allowed keys)."""
    model: Any = root
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)) or part not in model.model_fields:
            return None
        model = _inner_model(model.model_fields[part].annotation)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, tuple, list, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _inner_model(arg)
            if found is not None:
                return found
    return None


def _from_pydantic(error: ValidationError, root: type[BaseModel] = EnvironmentConfig) -> ConfigError:
    first = error.errors()[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and ("[" in p or "function" in p)))
    field = _path(loc)
    value = first.get("input")
    kind = first["type"]
    ctx = first.get("ctx") or {}
    if kind == "extra_forbidden":
        owner = _model_at(loc[:-1], root)
        allowed = ", ".join(sorted(owner.model_fields)) if owner else "see README settings"
        return ConfigError(field, value, "unknown key", f"remove it or use one of: {allowed}")
    if kind == "missing":
        return ConfigError(field, None, "required key is missing", f"add '{loc[-1]}' (see README settings)")
    if kind == "enum":
        return ConfigError(field, value, "not an allowed value", f"use one of {ctx.get('expected')}")
    if kind == "string_pattern_mismatch":
        return ConfigError(field, value, "malformed value", f"match the pattern {ctx.get('pattern')}")
    return ConfigError(field, value, first["msg"], "correct the value (see README settings)")
