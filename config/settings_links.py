"""Where the settings reference lives, and the section each kind of file has in it.

Error messages point here (``see docs/reference/settings.md#run-files``); ``config.reference``
generates the sections with these anchors, and a test checks the two agree.
"""

from __future__ import annotations

SETTINGS_REFERENCE = "docs/reference/settings.md"

SECTION_ANCHORS: dict[str, str] = {
    "EnvironmentConfig": "environment-files",
    "TeamConfig": "team-entries",
    "RunConfig": "run-files",
    "MixConfig": "mix-files",
}
"""Model class name -> its section's anchor. By name: the mix model is ``simulation``'s, above ``config``."""


def anchor_of(model: type) -> str | None:
    return SECTION_ANCHORS.get(model.__name__)


def settings_link(model: type | None) -> str:
    """``docs/reference/settings.md#<section>`` for a model with a section, else the file."""
    anchor = anchor_of(model) if model is not None else None
    return f"{SETTINGS_REFERENCE}#{anchor}" if anchor else SETTINGS_REFERENCE
