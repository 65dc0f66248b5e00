"""Node.js for the tests of the jsii kernel's JavaScript parts."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any


def node() -> str:
    """The ``node`` on ``PATH`` (the jsii kernel's runtime)."""
    found = shutil.which("node")
    assert found is not None, "Node.js is needed for the jsii kernel"
    return found


def node_json(script: str, *args: str) -> Any:
    """What ``script`` (run by ``node -e`` with ``args``) prints, read as JSON."""
    done = subprocess.run([node(), "-e", script, *args], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
