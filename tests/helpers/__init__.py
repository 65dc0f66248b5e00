"""Helpers the test modules share. Here: refusals as the one line a user reads. Beside it:

- ``yaml_files``: committed YAML read with libyaml; ``chart_values``: chart keys against a pinned
  chart's ``values.yaml``; ``cfn_lint``: the pinned cfn-lint over a template;
- ``environments``: the shipped environments' workload-aware twins; ``small_stacks``: one construct
  synthesized in a small stack; ``fake_registry``: container registries served locally; ``node``:
  the Node.js the accelerator's tests run.

Fixtures live in ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from config.errors import ConfigError
from config.model import EnvironmentConfig


def refusal(action: Callable[..., object], *args: Any, **kwargs: Any) -> str:
    """The one-line refusal ``action(*args, **kwargs)`` raises; fails the test when it raises none."""
    with pytest.raises(ConfigError) as caught:
        action(*args, **kwargs)
    return caught.value.line()


def env_from(data: dict[str, Any]) -> EnvironmentConfig:
    """An environment from a file's data, through every rule (the model, then the cross-field rules)."""
    from policy.environment.load import parse_environment

    return parse_environment(data)


def env_refusal(data: dict[str, Any]) -> str:
    """The one-line refusal of an environment file's data."""
    return refusal(env_from, data)
