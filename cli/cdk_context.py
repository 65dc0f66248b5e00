"""The context the CDK CLI hands an app, read the way aws-cdk-lib's ``App`` reads it, without loading
aws-cdk-lib: ``app.py`` needs its keys before it forks the renderer, and nothing that starts a
thread (jsii, for one) may be imported before the fork.

aws-cdk-lib 2.275 (``core/lib/app.js``, ``App.loadContext``) sets the ``context`` prop first, then
every key of the JSON object in ``CDK_CONTEXT_JSON``, then every key of the JSON file named by
``CONTEXT_OVERFLOW_LOCATION_ENV`` (where the CLI puts context too large for the environment), each
overriding the one before. The keys app.py reads are never in the ``context`` prop
(``stacks/app_options.py``), so the two sources here are theirs; ``tests/cli/test_cdk_context.py``
compares every key with what a real ``App`` gives.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from config.errors import ConfigError

CONTEXT_ENV = "CDK_CONTEXT_JSON"
"""aws-cdk-lib's ``cx_api.CONTEXT_ENV``."""
CONTEXT_OVERFLOW_LOCATION_ENV = "CONTEXT_OVERFLOW_LOCATION_ENV"
"""aws-cdk-lib's ``cx_api.CONTEXT_OVERFLOW_LOCATION_ENV`` (the variable's name is its value)."""


def cli_context(environ: Mapping[str, str] = os.environ) -> dict[str, object]:
    """The CLI's context keys, the later source winning; one ``ConfigError`` line for context that is
    not a JSON object (the CLI always writes one: this is a hand-set variable)."""
    context = _json_object(CONTEXT_ENV, environ.get(CONTEXT_ENV) or "{}")
    overflow = environ.get(CONTEXT_OVERFLOW_LOCATION_ENV)
    if overflow:
        try:
            text = Path(overflow).read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(
                CONTEXT_OVERFLOW_LOCATION_ENV, overflow, f"cannot read the context file ({error.strerror})", _FIX
            ) from None
        context |= _json_object(CONTEXT_OVERFLOW_LOCATION_ENV, text)
    return context


_FIX = "let the CDK CLI set it (npx cdk synth -c env=<name>), or unset it"


def _json_object(variable: str, text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(variable, text[:60], f"not JSON ({error.msg} at character {error.pos})", _FIX) from None
    if not isinstance(value, dict):
        raise ConfigError(variable, text[:60], "not a JSON object of context keys", _FIX)
    return value
