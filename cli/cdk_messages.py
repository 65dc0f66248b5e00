"""The CDK's own synthesis warnings, as the ``warning:`` lines ``make synth`` prints.

``cdk synth`` prints the warnings constructs attach (untaggable imported subnets, missing
route tables, ...); ``make synth`` synthesizes in-process, so it reads them from the cloud
assembly. The kit's own warnings (``gpu-platform:*``) are printed where they arise, once.
"""

from __future__ import annotations

from typing import Any

KIT_WARNING_MARKER = "[ack: gpu-platform:"


def cdk_warnings(assembly: Any) -> list[str]:
    """One ``warning: <construct path>: <message>`` line per CDK warning, in assembly order."""
    lines = []
    for stack in assembly.stacks:
        for message in stack.messages:
            text = " ".join(str(message.entry.data).split())
            if message.level.name == "WARNING" and KIT_WARNING_MARKER not in text:
                lines.append(f"warning: {message.id}: {text}")
    return lines
