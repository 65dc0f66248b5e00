"""The settings reference covers every file a user writes, and errors link to the section of theirs."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from cli.settings import SECTIONS, reference
from config.errors import ConfigError
from config.load import REPO_ROOT
from config.platform import RunConfig
from config.settings_links import SECTION_ANCHORS, SETTINGS_REFERENCE
from policy.environment.load import load_environment, parse_environment
from policy.environment.teams import parse_run
from simulation.mix.load import parse_mix
from simulation.mix.model import JobClass, MixConfig

TEXT = reference()


def test_one_section_per_kind_of_file_with_the_anchors_errors_use() -> None:
    headings = re.findall(r"^## (.+)$", TEXT, flags=re.MULTILINE)
    assert headings == ["Environment files", "Team entries", "Run files", "Mix files"]
    assert sorted(s.anchor for s in SECTIONS) == sorted(SECTION_ANCHORS.values())
    for section in SECTIONS:
        assert f"- [{section.title}](#{section.anchor})" in TEXT


@pytest.mark.parametrize(
    ("model", "prefix"), [(RunConfig, ""), (MixConfig, ""), (JobClass, "classes[].")], ids=lambda v: str(v)
)
def test_every_field_of_run_and_mix_files_has_a_row(model: Any, prefix: str) -> None:
    for name in model.model_fields:
        assert f"| `{prefix}{name}` |" in TEXT, name


def _line(error: pytest.ExceptionInfo[ConfigError]) -> str:
    return error.value.line()


def test_run_file_errors_link_to_run_files(dev_data: dict[str, Any]) -> None:
    env = load_environment(name="dev")
    with pytest.raises(ConfigError) as missing:
        parse_run(env, "vision", "bad", {"template": "pytorch", "replicas": 2})
    assert _line(missing) == (
        f"image: required key is missing (got nothing); fix: add 'image' (see {SETTINGS_REFERENCE}#run-files)"
    )


def test_mix_file_errors_link_to_mix_files() -> None:
    env = load_environment(name="dev")
    with pytest.raises(ConfigError) as missing:
        parse_mix(env, {"classes": [{"name": "a", "replicas": 1, "arrival": {"process": "burst"}}]})
    assert _line(missing) == (
        "classes[0].duration: required key is missing (got nothing); fix: add 'duration' "
        f"(see {SETTINGS_REFERENCE}#mix-files)"
    )


def test_team_entry_errors_link_to_team_entries(dev_data: dict[str, Any]) -> None:
    data = copy.deepcopy(dev_data)
    del data["platform"]["teams"]["vision"]["namespace"]
    with pytest.raises(ConfigError) as missing:
        parse_environment(data)
    assert _line(missing).endswith(f"(see {SETTINGS_REFERENCE}#team-entries)")
    data = copy.deepcopy(dev_data)
    data["platform"]["teams"]["vision"]["quota"] = 1
    with pytest.raises(ConfigError) as unknown:
        parse_environment(data)
    assert (
        _line(unknown)
        == "platform.teams.vision.quota: unknown key (got 1); fix: remove it or use one of: namespace, runs, tiers"
    )


def test_the_committed_reference_is_where_errors_point() -> None:
    assert (REPO_ROOT / SETTINGS_REFERENCE).is_file()
