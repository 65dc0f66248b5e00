"""The CDK CLI's context as ``app.py`` reads it before aws-cdk-lib loads: what a real ``App`` reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli.cdk_context import CONTEXT_ENV, CONTEXT_OVERFLOW_LOCATION_ENV, cli_context
from config.errors import ConfigError
from config.load import REPO_ROOT

# Prints, for every key given, what aws-cdk-lib's App (built as every synthesis path builds it) and
# cli_context read from this process's environment.
_BOTH_READERS = """
import json, sys
from cli.cdk_context import cli_context
from stacks.app_options import new_app

app, ours = new_app(), cli_context()
print(json.dumps({key: [app.node.try_get_context(key), ours.get(key)] for key in sys.argv[1:]}))
"""


@pytest.mark.synth
def test_reads_each_key_as_a_real_app_does_the_overflow_file_winning(tmp_path: Path) -> None:
    from_env = {"env": "prod-example", "run_id": "gh7-1", "shared": "environment", "nested": {"a": [1, 2]}}
    from_file = {"config": str(tmp_path / "e.yaml"), "admin_arn": "arn:aws:iam::1:role/a", "shared": "file"}
    overflow = tmp_path / "context-overflow.json"
    overflow.write_text(json.dumps(from_file))
    keys = sorted({*from_env, *from_file, "absent"})
    cdk_cli = {CONTEXT_ENV: json.dumps(from_env), CONTEXT_OVERFLOW_LOCATION_ENV: str(overflow)}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_BOTH_READERS), *keys],
        cwd=REPO_ROOT,
        env=os.environ | {"PYTHONPATH": str(REPO_ROOT)} | cdk_cli,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert {key: app for key, (app, _) in read.items()} == {key: ours for key, (_, ours) in read.items()}
    assert read["shared"] == ["file", "file"] and read["absent"] == [None, None]
    assert read["nested"][1] == {"a": [1, 2]}


def test_no_context_is_empty() -> None:
    assert cli_context({}) == {}
    assert cli_context({CONTEXT_ENV: ""}) == {}


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        (
            {CONTEXT_ENV: '{"env": '},
            "CDK_CONTEXT_JSON: not JSON (Expecting value at character 8) (got '{\"env\": '); fix: let the CDK CLI "
            "set it (npx cdk synth -c env=<name>), or unset it",
        ),
        (
            {CONTEXT_ENV: '["env", "dev"]'},
            'CDK_CONTEXT_JSON: not a JSON object of context keys (got \'["env", "dev"]\'); fix: let the CDK CLI '
            "set it (npx cdk synth -c env=<name>), or unset it",
        ),
        (
            {CONTEXT_OVERFLOW_LOCATION_ENV: "/nonexistent/context.json"},
            "CONTEXT_OVERFLOW_LOCATION_ENV: cannot read the context file (No such file or directory) (got "
            "'/nonexistent/context.json'); fix: let the CDK CLI set it (npx cdk synth -c env=<name>), or unset it",
        ),
    ],
)
def test_context_that_is_not_a_json_object_is_one_line(environ: dict[str, str], expected: str) -> None:
    with pytest.raises(ConfigError) as refused:
        cli_context(environ)
    assert refused.value.line() == expected
