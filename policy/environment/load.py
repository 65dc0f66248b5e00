"""Load an environment: the typed model (``config.load``), then the cross-field rules that need plans.

The one entry point for an environment file: everything after it trusts the model it returns.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from config.errors import ConfigError
from config.load import DEFAULT_ENVIRONMENT, display_path, environment_model, environment_path, read_yaml, utc_today
from config.model import EnvironmentConfig
from policy.environment.validate import validate_environment


def load_environment(
    *, name: str | None = None, path: Path | str | None = None, today: date | None = None
) -> EnvironmentConfig:
    """Load by environment name (``environments/<name>.yaml``) or by file path; default ``dev``.

    ``today``: the UTC date rules about time compare against (a Capacity Block that has ended);
    default the current one, so a given file and date always give the same verdict.
    """
    file = Path(path) if path is not None else environment_path(name or DEFAULT_ENVIRONMENT)
    source = display_path(file)
    try:
        return parse_environment(read_yaml(file), source=source, today=today)
    except ConfigError as error:
        raise error.with_source(source) from None


def parse_environment(data: Any, *, source: str = "", today: date | None = None) -> EnvironmentConfig:
    """An environment from a file's data: strict model, then every cross-field rule."""
    env = environment_model(data)
    validate_environment(env, today=today if today is not None else utc_today())
    return env
