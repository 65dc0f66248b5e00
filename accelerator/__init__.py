"""The accelerator: optional speed-ups of the commands' jsii runtime (``docs/accelerator.md``).

It is optional: every command gives byte-identical output without it, on jsii's stock path.
One switch turns it on or off: the environment variable ``GPU_PLATFORM_ACCELERATOR`` (``on`` or
``off``; default ``on``), which ``make ACCELERATOR=on|off`` sets. Off, nothing here changes jsii,
Node.js, the collector or the process's exit, and ``make synth`` renders and synthesizes in one
process (no fork, so it runs where ``os.fork`` is missing).

Each part (``PARTS``) depends on private jsii or Node.js internals. A part that does not apply to
the installed jsii (a hook's target missing, another jsii release, a minified statement not found)
prints one line, ``warning: accelerator: <part> does not apply to <what> (<reason>); using the stock
jsii path``, and that part (with the parts that need it) runs the stock way for the process.

``GPU_PLATFORM_ACCELERATOR_SKIP=<part>,...`` leaves parts out, for measuring what each buys
(``bench/run.py --accelerator``); users need only the switch.

The package imports nothing from the project's other packages: the commands import it.
"""

from __future__ import annotations

import os
import sys

SWITCH = "GPU_PLATFORM_ACCELERATOR"
SKIP = "GPU_PLATFORM_ACCELERATOR_SKIP"
DEFAULT = "on"

PARTS = {
    "fast-path": "no per-argument type checks, struct values read from storage (runtime.py)",
    "direct-channel": "the kernel runs in the Node.js process Python starts, without jsii's relay (runtime.py)",
    "early-kernel": "the kernel starts, and loads the assemblies, while Python imports (runtime.py)",
    "code-cache": "the kernel's modules compile from a V8 code cache (code_cache.js)",
    "kernel-rewrites": "two statements of jsii's kernel bundle rewritten (kernel_rewrites.js)",
    "gc-pause": "the cyclic collector off while a command imports, then what it imported frozen",
    "parallel-synth": "make synth renders in a forked process while the synthesis loads aws-cdk-lib",
}
"""Each part and what it does (the names ``GPU_PLATFORM_ACCELERATOR_SKIP`` takes)."""

NEEDS = {"early-kernel": "direct-channel", "code-cache": "direct-channel", "kernel-rewrites": "direct-channel"}
"""A part that runs only with another: these run in the kernel the direct channel starts."""

_not_applying: set[str] = set()
_warned: set[str] = set()


def enabled() -> bool:
    """Whether the switch is on (``GPU_PLATFORM_ACCELERATOR``; unset or empty: the default)."""
    value = os.environ.get(SWITCH, "").strip().lower() or DEFAULT
    if value not in ("on", "off"):
        _warn_once(
            SWITCH, f"warning: accelerator: {SWITCH} is not on or off (got '{value}'); using the stock jsii path"
        )
        return False
    return value == "on"


def skipped() -> frozenset[str]:
    """The parts ``GPU_PLATFORM_ACCELERATOR_SKIP`` leaves out."""
    named = {name.strip() for name in os.environ.get(SKIP, "").split(",") if name.strip()}
    for unknown in sorted(named - PARTS.keys()):
        _warn_once(
            f"{SKIP}={unknown}", f"warning: accelerator: {SKIP} names no part '{unknown}' (parts: {', '.join(PARTS)})"
        )
    return frozenset(named)


def uses(part: str) -> bool:
    """Whether this process runs ``part``: the switch on, the part not skipped, applying to the
    installed jsii so far, and the part it needs (``NEEDS``) used too."""
    assert part in PARTS, part
    if not enabled() or part in _not_applying or part in skipped():
        return False
    needed = NEEDS.get(part)
    return needed is None or uses(needed)


def does_not_apply(part: str, what: str, reason: str) -> None:
    """``part`` does not apply to ``what`` (the installed jsii, say) for ``reason``: the one warning
    line, once per process, and the part (with those needing it) off for the rest of the process."""
    assert part in PARTS, part
    _not_applying.add(part)
    _warn_once(part, f"warning: accelerator: {part} does not apply to {what} ({reason}); using the stock jsii path")


def _warn_once(key: str, line: str) -> None:
    if key not in _warned:
        _warned.add(key)
        print(line, file=sys.stderr, flush=True)
