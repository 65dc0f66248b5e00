"""The one YAML reader: exact refusals, and properties over generated hostile documents."""

from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.errors import ConfigError
from config.files import MAX_FILE_BYTES, parse_yaml, read_yaml_file
from config.files.strict_yaml import MAX_DEPTH, MAX_NODES
from config.load import REPO_ROOT
from policy.environment.load import load_environment
from tests.helpers import refusal


def _refusal(data: bytes) -> str:
    return refusal(parse_yaml, data)


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            b"cluster:\n  name: a\n  scheduler_bin_packing: yes\n",
            "line 3: cluster.scheduler_bin_packing: ambiguous YAML value (got 'yes'); "
            "fix: write true or false for a boolean, or quote it for a string",
        ),
        (
            b"max_size: 0755\n",
            "line 1: max_size: ambiguous YAML value (got '0755'); "
            "fix: write the number without a leading zero, or quote it for a string",
        ),
        (
            b"ttl: 1:30\n",
            "line 1: ttl: ambiguous YAML value (got '1:30'); fix: quote it (YAML 1.1 reads it as base 60)",
        ),
        (
            b"name: 2026-12-01\n",
            "line 1: name: ambiguous YAML value (got '2026-12-01'); fix: quote it (YAML reads it as a date)",
        ),
        (
            b"k: 0x10\n",
            "line 1: k: ambiguous YAML value (got '0x10'); fix: write the number in decimal, or quote it for a string",
        ),
        (b"k: 1_000\n", "line 1: k: ambiguous YAML value (got '1_000'); fix: write it without '_', or quote it"),
        (b"k: 1e3\n", "line 1: k: ambiguous YAML value (got '1e3'); fix: write it with a decimal point, or quote it"),
        (b"k: .inf\n", "line 1: k: ambiguous YAML value (got '.inf'); fix: write a finite number"),
    ],
)
def test_fails_implicitly_typed_scalars(document: bytes, expected: str) -> None:
    assert _refusal(document) == expected


def test_quoted_and_core_schema_scalars_keep_their_yaml_1_2_meaning() -> None:
    document = b"a: '0755'\nb: \"yes\"\nc: 16\nd: -3\ne: 1.5\nf: true\ng: ~\nh: 2026-12-01x\ni: 1.0e+3\n"
    assert parse_yaml(document) == {
        "a": "0755",
        "b": "yes",
        "c": 16,
        "d": -3,
        "e": 1.5,
        "f": True,
        "g": None,
        "h": "2026-12-01x",
        "i": 1000.0,
    }


def test_fails_duplicate_key_at_any_depth_naming_both_lines() -> None:
    assert _refusal(b"cluster:\n  name: a\n  endpoint_access: private\n  name: b\n") == (
        "line 4: cluster.name: duplicate key (first at line 2) (got 'name'); fix: keep one of the two entries"
    )
    assert _refusal(b"name: a\nregion: x\nname: b\n").startswith("line 3: name: duplicate key (first at line 1)")


def test_fails_tags_merge_keys_and_non_string_keys() -> None:
    assert _refusal(b"a: !!python/object:os.system x\n") == (
        "line 1: a: YAML tags are not supported (got 'tag:yaml.org,2002:python/object:os.system'); fix: remove the tag"
    )
    assert _refusal(b"base: &b {x: 1}\nother:\n  <<: *b\n") == (
        "line 3: other: merge keys are not supported (got '<<'); fix: write the keys out"
    )
    assert _refusal(b"1: a\n") == (
        "line 1: <top>: a key is not a string (got 1); "
        "fix: use a plain word as the key (quote it if it looks like a number)"
    )


def test_fails_alias_expansion_quickly_and_without_growing_memory() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]  # 10**10 values
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    message = _refusal("\n".join(lines).encode())
    assert time.perf_counter() - start < 0.5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 20_000  # KiB
    assert message == (
        f"line 4: expands to more than {MAX_NODES} values (aliases counted as copies) (got 11111); "
        "fix: write the values out instead of nesting aliases"
    )


def test_small_aliases_are_expanded_into_independent_copies() -> None:
    data = parse_yaml(b"zones: &z [us-west-2a]\nother: *z\n")
    assert data == {"zones": ["us-west-2a"], "other": ["us-west-2a"]}
    assert data["zones"] is not data["other"]


def test_fails_recursive_alias_and_deep_nesting() -> None:
    assert _refusal(b"a: &x [1, *x]\n") == (
        "line 1: alias inside its own anchor (got '*x'); fix: point aliases only at anchors defined before them"
    )
    assert _refusal(b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n") == (
        f"line 1: nested deeper than {MAX_DEPTH} levels (got {MAX_DEPTH + 1}); fix: flatten the file"
    )


def test_fails_bytes_that_are_not_utf8_and_control_characters() -> None:
    assert _refusal(b"name: dev\nregion: caf\xe9\n") == (
        "line 2: not UTF-8 text (got 'byte 0xe9'); fix: save the file as UTF-8"
    )
    assert _refusal(b"name: \x07\n") == (
        "line 1: YAML: character not allowed in a YAML file (got 'U+0007'); fix: remove the control character"
    )


def test_fails_syntax_error_on_the_last_line() -> None:
    assert _refusal(b"name: dev\ntags: [a,\n") == (
        "line 2: YAML: expected the node content, but found '<stream end>' (got 'column 1'); "
        "fix: fix the YAML syntax at that line"
    )
    assert _refusal(b"name: dev\nregion: 'us-west-2") == (
        "line 2: YAML: found unexpected end of stream (got 'column 19'); fix: fix the YAML syntax at that line"
    )


def test_fails_file_too_large_and_files_that_are_not_regular(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_yaml(b"#" * (MAX_FILE_BYTES + 1))
    assert caught.value.line() == (
        f"file: larger than {MAX_FILE_BYTES} bytes (got '{MAX_FILE_BYTES + 1} bytes'); fix: split or trim the file"
    )
    with pytest.raises(ConfigError) as caught:
        read_yaml_file(Path("/dev/zero"))
    assert caught.value.line() == (
        "config: not a regular file (got '/dev/zero'); fix: pass the path of an existing environment file"
    )


def test_fails_environment_value_of_the_wrong_type_without_coercion(tmp_path: Path) -> None:
    text = (REPO_ROOT / "environments" / "dev.yaml").read_text()
    config = tmp_path / "env.yaml"
    config.write_text(text.replace("    max_size: 2\n", "    max_size: '2'\n", 1))
    with pytest.raises(ConfigError) as caught:
        load_environment(path=config)
    assert caught.value.line() == (
        f"{config}: gpu_pools[0].max_size: a string where a whole number belongs (got '2'); "
        "fix: write the value in that type (quote a string; no implicit conversion)"
    )
    config.write_text("")
    with pytest.raises(ConfigError) as caught:
        load_environment(path=config)
    assert caught.value.line() == (
        f"{config}: <top>: an environment file is a mapping (got 'an empty value'); "
        "fix: start the file with 'name: <environment>'"
    )


# Properties over generated documents.

_KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", max_size=8).map(lambda k: f"k{k}")
# PyYAML's writer leaves these unquoted although YAML 1.1 readers (PyYAML's own) fold them.
_TEXT = st.text(st.characters(exclude_characters="\x85\u2028\u2029", exclude_categories=("Cs",)), max_size=20)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_DATA = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4), max_leaves=20
)
_PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # examples: tests/conftest.py


@_PROPERTY
@given(_DATA, st.sampled_from([None, False]))
def test_property_data_written_by_a_yaml_1_2_writer_reads_back_or_is_refused_cleanly(
    data: Any, flow: bool | None
) -> None:
    """PyYAML writes YAML 1.1: what both versions read alike comes back unchanged, the rest is one clean refusal."""
    document = yaml.safe_dump({"root": data}, default_flow_style=flow, allow_unicode=True).encode()
    try:
        assert parse_yaml(document) == {"root": data}
    except ConfigError as error:
        assert error.line().startswith("line ")
        assert "ambiguous YAML value" in error.line()


@_PROPERTY
@given(st.binary(max_size=300))
def test_property_arbitrary_bytes_parse_or_fail_as_one_config_error(data: bytes) -> None:
    try:
        parse_yaml(data)
    except ConfigError as error:
        assert "\n" not in error.line()
        assert "None" not in error.line()


@_PROPERTY
@given(st.text(alphabet=st.sampled_from(list("ab: -[]{},&*!'\"#|>\n\t?x1.\\")), max_size=120))
def test_property_yaml_punctuation_soup_parses_or_fails_as_one_config_error(text: str) -> None:
    try:
        parse_yaml(text.encode())
    except ConfigError as error:
        assert error.line().startswith(("line ", "file: "))
        assert "\n" not in error.line()


_DEV = (REPO_ROOT / "environments" / "dev.yaml").read_bytes()


@_PROPERTY
@given(st.integers(min_value=0, max_value=len(_DEV)))
def test_property_a_truncated_environment_is_refused_naming_a_line_of_the_file(cut: int) -> None:
    try:
        parse_yaml(_DEV[:cut])
    except ConfigError as error:
        assert error.field.startswith("line ")
        line = int(error.field.split()[1])
        assert 1 <= line <= max(1, _DEV[:cut].count(b"\n") + 1)


@_PROPERTY
@given(st.lists(_KEYS, min_size=1, max_size=6), st.integers(min_value=0, max_value=5))
def test_property_a_duplicated_key_is_always_refused_with_both_lines(keys: list[str], nesting: int) -> None:
    unique = list(dict.fromkeys(keys))
    indent = "  " * nesting
    head = "".join(f"{'  ' * level}n{level}:\n" for level in range(nesting))
    body = [f"{indent}{key}: 1" for key in [*unique, unique[0]]]
    message = _refusal((head + "\n".join(body) + "\n").encode())
    assert message.startswith(f"line {nesting + len(unique) + 1}: ")
    assert f"duplicate key (first at line {nesting + 1})" in message


@_PROPERTY
@given(st.integers(min_value=2, max_value=12), st.integers(min_value=2, max_value=12))
def test_property_alias_bombs_are_refused_in_well_under_a_second(width: int, levels: int) -> None:
    lines = [f"l0: &l0 [{', '.join(['x'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    expanded = sum(width**i for i in range(1, levels + 1))
    start = time.perf_counter()
    try:
        parse_yaml("\n".join(lines).encode())
        assert expanded < MAX_NODES
    except ConfigError as error:
        assert "expands to more than" in error.line()
    assert time.perf_counter() - start < 1.0
