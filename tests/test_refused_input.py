"""What AWS or Kubernetes would refuse, refused at synth in one line; and no refusal in pydantic's words.

Every rule here has a ``fails_...`` test with the exact line (``config.errors.ConfigError``).
"""

from __future__ import annotations

import re
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from config import ConfigError
from config.model import EnvironmentConfig
from config.model_base import PATTERN_WORDS
from config.platform import RunConfig
from tests.conftest import env_from


def _fails(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        env_from(data)
    return caught.value.line()


def _patterns(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[str]:
    """Every ``pattern`` a field of ``model`` (or of a section inside it) is checked against."""
    if model in seen:
        return set()
    seen.add(model)
    found: set[str] = set()

    def walk(annotation: Any) -> None:
        for meta in getattr(annotation, "__metadata__", ()):
            if getattr(meta, "pattern", None):
                found.add(meta.pattern)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found.update(_patterns(annotation, seen))
        for arg in typing.get_args(annotation):
            walk(arg)

    for field in model.model_fields.values():
        walk(field.annotation)
        for meta in field.metadata:
            if getattr(meta, "pattern", None):
                found.add(meta.pattern)
    return found


def test_every_pattern_a_field_is_checked_against_has_words() -> None:
    patterns = _patterns(EnvironmentConfig, set()) | _patterns(RunConfig, set())
    assert patterns and patterns <= set(PATTERN_WORDS)
    for words in PATTERN_WORDS.values():
        assert not re.search(r"[\^$\\]|\{\d", words), words  # words, not a regular expression


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda d: d["gpu_pools"][0].update(max_size=0),
            "gpu_pools[0].max_size: less than 1 (got 0); fix: use a whole number of at least 1",
        ),
        (
            lambda d: d["gpu_pools"][0].update(root_volume_gib=20000),
            "gpu_pools[0].root_volume_gib: more than 16384 (got 20000); fix: use a whole number from 50 to 16384",
        ),
        (
            lambda d: d["network"].update(vpc_cidr="10.0.0.1/16"),
            "network.vpc_cidr: the address has bits set after its /16 prefix (got '10.0.0.1/16'); "
            "fix: write the block's first address: 10.0.0.0/16",
        ),
        (
            lambda d: d["network"].update(vpc_cidr="10.0.0/16"),
            "network.vpc_cidr: not an IPv4 CIDR block (got '10.0.0/16'); fix: write four numbers 0-255 joined by "
            "'.', then '/' and a prefix length 0-32, e.g. 10.0.0.0/16",
        ),
        (
            lambda d: d["gpu_pools"][0].update(zones=[]),
            "gpu_pools[0].zones: an empty list (got []); fix: give at least one",
        ),
        (
            lambda d: d.update(region="US"),
            "region: not in the allowed form (got 'US'); fix: use an AWS region name (e.g. us-west-2)",
        ),
        (
            lambda d: d.update(account="123"),
            "account: not in the allowed form (got '123'); "
            "fix: use the 12 digits of an AWS account id, quoted (e.g. '111122223333')",
        ),
        (
            lambda d: d["gpu_pools"][0].update(capacity={"type": "capacity_block", "ends_at": "soon"}),
            "gpu_pools[0].capacity.ends_at: not a date and time (got 'soon'); "
            "fix: write it quoted, in ISO 8601 with its zone, e.g. '2027-01-15T11:30:00Z'",
        ),
        (
            lambda d: d["cluster"].update(name="c" * 64),
            f"cluster.name: more than 63 characters (got '{'c' * 64}'); fix: use at most 63 characters",
        ),
    ],
    ids=["ge", "range", "host-bits", "not-a-cidr", "empty-list", "pattern", "account", "datetime", "too-long"],
)
def test_fails_schema_errors_in_words_never_pydantic_s(dev_data: dict[str, Any], edit: Any, expected: str) -> None:
    edit(dev_data)
    line = _fails(dev_data)
    assert line == expected
    assert "Input should" not in line and "Value error" not in line


RUN = {
    "template": "pytorch",
    "replicas": 2,
    "gpus_per_replica": 8,
    "image": "example/train:1",
    "command": ["train.py"],
}


def _fails_run(data: dict[str, Any], *, name: str = "run", env_data: dict[str, Any] | None = None) -> str:
    from config import load_environment
    from config.teams import parse_run

    env = env_from(env_data) if env_data is not None else load_environment(name="dev")
    with pytest.raises(ConfigError) as caught:
        parse_run(env, "vision", name, data)
    return caught.value.line()


_PRINTABLE_FIX = (
    "fix: write printable text only: give each command argument its own list entry, and keep scripts in the image"
)


def test_fails_control_characters_in_a_command() -> None:
    assert _fails_run(RUN | {"command": ["train.py", "--x\n; rm -rf /"]}) == (
        f"command[1]: holds the control character U+000A (got '--x\\n; rm -rf /'); {_PRINTABLE_FIX}"
    )


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("readiness_command", ["curl", "-fsS\r"], "readiness_command[1]: holds the control character U+000D"),
        ("image", "example/train:1\u202e", "image: holds the control character U+202E"),
    ],
)
def test_fails_control_characters_in_any_free_string_of_a_run(field: str, value: object, expected: str) -> None:
    assert _fails_run(RUN | {field: value}).startswith(expected)


def test_fails_control_characters_in_an_environment(dev_data: dict[str, Any]) -> None:
    dev_data["tags"]["owner\t"] = "me"
    assert _fails(dev_data) == f"tags: holds the control character U+0009 (got 'owner\\t'); {_PRINTABLE_FIX}"
