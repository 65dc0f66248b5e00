"""The ``ephemeral`` section: an environment deployed once per pipeline run, then deleted."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from config.model_base import Model


class EphemeralConfig(Model):
    """A short-lived environment: each run gets its own copy, named after its run id
    (see ``policy/environment/runs.py``)."""

    ttl_hours: Annotated[int, Field(ge=1, le=168)] = 6
    """Hours a run's stack may live; tagged `ttl-hours` on every resource."""
    cleanup: bool = True
    """Deploy a scheduled clean-up (EventBridge rule + Lambda) that deletes the stack after `ttl_hours`."""
