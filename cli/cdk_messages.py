"""The CDK's own synthesis warnings, as the ``warning:`` lines ``make synth`` prints.

``cdk synth`` prints the warnings constructs attach (untaggable imported subnets, missing
route tables, ...); ``make synth`` synthesizes in-process, so it reads them from the cloud
assembly. Karpenter's acknowledgement warnings are printed where they arise already, so they
are left out here; every other warning, the kit's own (``gpu-platform:*``) included, is printed once.
"""

from __future__ import annotations

from typing import Any

PRINTED_WHERE_THEY_ARISE = "[ack: gpu-platform:karpenter-"
"""``stacks.karpenter.warn_if_unsupported`` prints its warnings itself."""


def cdk_warnings(assembly: Any) -> list[str]:
    """One ``warning: <construct path>: <message>`` line per CDK warning, in assembly order."""
    lines = []
    for stack in assembly.stacks:
        for message in stack.messages:
            text = " ".join(str(message.entry.data).split())
            if message.level.name == "WARNING" and PRINTED_WHERE_THEY_ARISE not in text:
                lines.append(f"warning: {message.id}: {text}")
    return lines
