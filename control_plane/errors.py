"""The one error the control plane raises: a one-line reason plus how to fix it."""

from __future__ import annotations


class ControlPlaneError(Exception):
    """Something the control plane needs is missing or broken; ``str()`` is one line with the fix."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; fix: {fix}")
        self.problem = problem
        self.fix = fix
