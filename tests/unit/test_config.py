"""User config: tolerant load of bad files, validated patches, our additions."""

from __future__ import annotations

import json

import pytest

from core.errors import InvalidInput
from core.memory.config import UserConfig, parse_config, patch_config

pytestmark = pytest.mark.unit


def test_missing_file_gives_defaults() -> None:
    config, problems = parse_config(None)
    assert problems == []
    assert (config.max_slice_minutes, config.max_turns_per_slice) == (30, 50)
    assert config.locale == "en"
    assert config.main_model == "auto" and config.worker_model == "auto"
    assert config.thinking is True and config.effort == "medium"


def test_malformed_json_is_reported_and_defaults_used() -> None:
    config, problems = parse_config('{"slicing": {"maxSliceMinutes": 20,}')
    assert config.max_slice_minutes == 30
    assert len(problems) == 1 and "not valid JSON" in str(problems[0])


def test_out_of_range_value_is_clamped_and_named() -> None:
    config, problems = parse_config(json.dumps({"slicing": {"maxSliceMinutes": 500, "maxTurnsPerSlice": 2}}))
    assert config.max_slice_minutes == 120
    assert config.max_turns_per_slice == 5
    assert [p.field for p in problems] == ["slicing.maxSliceMinutes", "slicing.maxTurnsPerSlice"]
    assert "from 5 to 120" in problems[0].message


def test_wrong_types_fall_back_to_defaults() -> None:
    stored = {"slicing": "fast", "model": {"thinking": "yes", "reasoningEffort": "max"}, "locale": "fr"}
    config, problems = parse_config(json.dumps(stored))
    fields = {p.field for p in problems}
    assert fields == {"slicing", "model.thinking", "model.reasoningEffort", "locale"}
    assert config.thinking is True and config.effort == "medium" and config.locale == "en"


def test_legacy_keys_survive_inside_groups_and_unknown_top_level_is_dropped() -> None:
    stored = {"slicing": {"timeSilenceMinutes": 15}, "context": {"recentTurnsLimit": 20}}
    config, problems = parse_config(json.dumps(stored))
    assert problems == []
    assert config.data["slicing"]["timeSilenceMinutes"] == 15
    assert "context" not in config.data


def test_patch_deep_merges_and_validates() -> None:
    config = patch_config(UserConfig(), {"slicing": {"maxSliceMinutes": 45.0}, "locale": "zh"})
    assert config.max_slice_minutes == 45 and config.max_turns_per_slice == 50
    assert config.locale == "zh"
    assert '"maxSliceMinutes": 45,' in config.to_json()
    assert config.to_json().endswith('"locale": "zh"\n}')


@pytest.mark.parametrize(
    ("partial", "needle"),
    [
        ({"slicing": {"maxSliceMinutes": 121}}, "slicing.maxSliceMinutes must be from 5 to 120"),
        ({"slicing": {"maxTurnsPerSlice": 4}}, "slicing.maxTurnsPerSlice must be from 5 to 100"),
        ({"slicing": {"maxTurnsPerSlice": "ten"}}, "whole number from 5 to 100"),
        ({"slicing": {"maxTurnsPerSlice": True}}, "whole number from 5 to 100"),
        ({"locale": "fr"}, "locale must be one of en, zh"),
        ({"model": {"effort": "extreme"}}, "model.effort must be one of low, medium, high"),
        ({"model": {"main": ""}}, "model.main must be a model id or auto"),
        ({"model": {"colour": "red"}}, "Unknown setting model.colour"),
        ({"theme": "dark"}, "Unknown setting 'theme'"),
        ({"slicing": 30}, "slicing must be an object"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_patch_rejects_bad_values_with_the_field_and_range(partial: object, needle: str) -> None:
    before = UserConfig()
    with pytest.raises(InvalidInput) as err:
        patch_config(before, partial)
    assert needle in str(err.value)
    assert before.data == UserConfig().data  # nothing half-applied


def test_model_additions() -> None:
    config = patch_config(
        UserConfig(), {"model": {"main": "claude-sonnet", "worker": "deepseek-chat", "effort": "high"}}
    )
    assert config.main_model == "claude-sonnet"
    assert config.worker_model == "deepseek-v4-flash"  # legacy alias applied
    assert config.effort == "high"
    assert config.data["model"]["reasoningEffort"] == "high"  # kept in step for the original


def test_legacy_manual_worker_is_the_pinned_worker() -> None:
    config, _ = parse_config(json.dumps({"worker": {"mode": "manual", "provider": "deepseek-chat"}}))
    assert config.worker_model == "deepseek-v4-flash"
