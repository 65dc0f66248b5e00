"""The CDK's own synthesis warnings, as the ``warning:`` lines ``make synth`` prints.

``cdk synth`` prints the warnings constructs attach (untaggable imported subnets, missing
route tables, ...); ``make synth`` synthesizes in-process, so it reads them from the cloud
assembly. The acknowledged risks (``policy.environment.acknowledgements``) are CDK warnings too, for
``cdk synth``; ``make synth`` prints those from the configuration already, so they are left
out here by their id. Every other warning, the kit's own (``gpu-platform:*``) included, is printed once.
"""

from __future__ import annotations

import re
from typing import Any

from policy.environment.acknowledgements import Acknowledgement

_ACKNOWLEDGEMENT_ID = re.compile(r" \[ack: (?P<id>[^\]]+)\]$")
"""How ``Annotations.add_warning_v2`` records a warning's id: at the end of its message."""

_PRINTED_FROM_CONFIG = frozenset(a.value for a in Acknowledgement)


def warning_id(text: str) -> str | None:
    """The id a CDK warning was added with (``add_warning_v2``), or ``None`` for one added without."""
    found = _ACKNOWLEDGEMENT_ID.search(text)
    return found["id"] if found else None


def cdk_warnings(assembly: Any) -> list[str]:
    """One ``warning: <construct path>: <message>`` line per CDK warning, in assembly order."""
    lines = []
    for stack in assembly.stacks:
        for message in stack.messages:
            text = " ".join(str(message.entry.data).split())
            if message.level.name == "WARNING" and warning_id(text) not in _PRINTED_FROM_CONFIG:
                lines.append(f"warning: {message.id}: {text}")
    return lines
