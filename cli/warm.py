"""Start the jsii runtime early: its Node.js process boots while Python parses configuration."""

from __future__ import annotations

import importlib
import threading


def warm_cdk8s() -> threading.Thread:
    """Import cdk8s-plus-37 on a background thread; join it before rendering.

    The import spends most of its time waiting for the jsii Node.js process to load the
    constructs, cdk8s and cdk8s-plus assemblies, which overlaps with pydantic work here.
    """
    thread = threading.Thread(target=importlib.import_module, args=("cdk8s_plus_37",), daemon=True)
    thread.start()
    return thread
