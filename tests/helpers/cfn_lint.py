"""cfn-lint's error-level findings for a template, as ``cfn-lint <templates>`` finds them.

``cfnlint.api.lint_file`` loads every rule module again on each call (about a fifth of linting a
cluster template); the command line loads them once for all the templates it is given. Here they
are loaded once per test process and run the way the command runs them on each template.
"""

from __future__ import annotations

import functools
from pathlib import Path

from cfnlint.config import ConfigMixIn
from cfnlint.rules import Rules
from cfnlint.runner import Runner
from cfnlint.runner.template.runner import run_template_by_file_paths


@functools.cache
def _rules() -> Rules:
    return Runner(ConfigMixIn([])).rules


def lint_errors(template: Path) -> list[str]:
    """``<rule id> <message>`` of each error (``E``) cfn-lint reports on ``template``, with its defaults."""
    matches = run_template_by_file_paths(ConfigMixIn(["--template", str(template)]), _rules())
    return [f"{m.rule.id} {m.message}" for m in matches if m.rule.id.startswith("E")]
