"""Start the jsii runtime early: its Node.js process boots while Python parses configuration."""

from __future__ import annotations

import importlib
import os
import sys
import threading


def warm_cdk8s() -> threading.Thread:
    """Import cdk8s-plus-37 on a background thread; join it before rendering.

    The import spends most of its time waiting for the jsii Node.js process to load the
    constructs, cdk8s and cdk8s-plus assemblies, which overlaps with pydantic work here.
    """
    thread = threading.Thread(target=importlib.import_module, args=("cdk8s_plus_37",), daemon=True)
    thread.start()
    return thread


def exit_now(code: int) -> None:
    """Exit once output is flushed, without the interpreter's teardown.

    A graceful exit waits for the jsii runtime's Node.js process to shut down, which costs
    a noticeable share of a short command; the process ends on its own when its pipe closes.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
