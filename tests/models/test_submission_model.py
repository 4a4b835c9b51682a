"""The submission model enforces the format's rules (shape per setting, token arithmetic)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from arena_bot.models.submission import Submission

VALID: dict[str, Any] = {
    "task": "textkit",
    "tool": {"name": "Claude Code", "version": "2.0.1"},
    "models": ["claude-sonnet-4-5"],
    "contributor": {"name": "Ada Lovelace", "github": "ada-l"},
    "date": __import__("datetime").date(2026, 11, 1),
    "setting": "single",
    "features": [1],
    "runs": [
        {
            "id": "run-1",
            "tokens": {"total": 1000, "prompt": 800, "completion": 200, "cached": 500},
            "tool_calls": 12,
            "iterations": 2,
            "execution_time": 95.5,
            "estimated_cost": 0.12,
            "patches": ["run-1.patch"],
        }
    ],
}


def make(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    data.update(changes)
    return data


def errors_of(data: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as info:
        Submission.model_validate(data)
    return str(info.value)


def test_valid_submission_round_trips() -> None:
    sub = Submission.model_validate(VALID)
    assert sub.runs[0].tokens.cached == 500
    assert sub.model_label == "claude-sonnet-4-5"
    assert Submission.model_validate(sub.model_dump()) == sub


def test_tokens_must_add_up() -> None:
    run = copy.deepcopy(VALID["runs"][0])
    run["tokens"] = {"total": 1001, "prompt": 800, "completion": 200}
    assert "must equal prompt + completion" in errors_of(make(runs=[run]))


def test_cached_cannot_exceed_prompt() -> None:
    run = copy.deepcopy(VALID["runs"][0])
    run["tokens"] = {"total": 1000, "prompt": 800, "completion": 200, "cached": 900}
    assert "cannot exceed prompt" in errors_of(make(runs=[run]))


def test_unknown_keys_are_rejected() -> None:
    message = errors_of(make(colour="blue"))
    assert "colour" in message
    assert "Extra inputs are not permitted" in message


def test_strings_are_not_coerced_to_numbers() -> None:
    run = copy.deepcopy(VALID["runs"][0])
    run["tool_calls"] = "12"
    assert "tool_calls" in errors_of(make(runs=[run]))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0])
def test_execution_time_rejects_nan_inf_and_negative(value: float) -> None:
    run = copy.deepcopy(VALID["runs"][0])
    run["execution_time"] = value
    assert "execution_time" in errors_of(make(runs=[run]))


# U+2028/U+2029 end a line in JavaScript and some renderers: a one-line name split in two
@pytest.mark.parametrize("name", ["Evil\u202eedoc", "zero\u200bwidth", "bell\x07", " ",
                                  "two\u2028lines", "two\u2029paragraphs"])
def test_names_reject_invisible_characters(name: str) -> None:
    assert "tool.name" in errors_of(make(tool={"name": name, "version": "1"}))


def test_single_takes_one_feature() -> None:
    assert "exactly one feature" in errors_of(make(features=[1, 2]))


def test_coop_needs_two_ordered_features_and_two_patches() -> None:
    assert "i < j" in errors_of(make(setting="coop", features=[2, 1]))
    message = errors_of(make(setting="coop", features=[1, 2]))
    assert "needs 2 patch file(s)" in message
    run = copy.deepcopy(VALID["runs"][0])
    run["patches"] = ["a1.patch", "a2.patch"]
    coop = Submission.model_validate(
        make(setting="coop", features=[1, 2], models=["gpt-5", "claude-sonnet-4-5"], runs=[run])
    )
    assert coop.model_label == "gpt-5 + claude-sonnet-4-5"


def test_run_ids_are_unique() -> None:
    run = copy.deepcopy(VALID["runs"][0])
    assert "run ids must be unique" in errors_of(make(runs=[run, run]))


@pytest.mark.parametrize("name", ["../evil.patch", "/etc/passwd", "sub/dir.patch", ".hidden"])
def test_patch_names_are_plain_files(name: str) -> None:
    run = copy.deepcopy(VALID["runs"][0])
    run["patches"] = [name]
    assert "patches" in errors_of(make(runs=[run]))
