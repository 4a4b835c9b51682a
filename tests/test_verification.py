"""Verified metrics: a run's reported figures are checked against its stored transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_validation import (  # the shared demo task and submission writers
    _check,
    root,
    task_template,
    valid_data,
    write_submission,
)

from arena_bot.intake.verification import verify_run
from arena_bot.models.submission import Run

__all__ = ["root", "task_template"]  # pytest fixtures re-used from test_validation


def _generic_transcript() -> str:
    """A generic-format transcript agreeing with ``valid_data()``'s run: 52,000 tokens of which
    40,000 prompt (1,000 cached) and 12,000 completion, 25 tool calls, 3 turns, 240 s."""
    lines = [{"type": "session_start", "timestamp": 1_700_000_000}]
    calls = [(13000, 4000, 1000), (13000, 4000, 0), (13000, 4000, 0)]
    for turn, (prompt, completion, cached) in enumerate(calls):
        lines.append(
            {
                "type": "llm_call",
                "model": "gpt-4o",
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cache_read_tokens": cached,
                "timestamp": 1_700_000_010 + turn * 60,
            }
        )
    lines += [{"type": "tool_call", "name": "shell", "timestamp": 1_700_000_100}] * 25
    lines.append({"type": "session_end", "timestamp": 1_700_000_240})
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _with_transcript(data: dict, **changes: object) -> dict:
    run = data["runs"][0]
    run["transcript"] = {"file": "run-1.jsonl", "format": "generic"}
    run.update(changes)
    return data


def test_agreeing_transcript_verifies(root: Path) -> None:
    data = _with_transcript(valid_data())
    folder = write_submission(root, data=data)
    (folder / "run-1.jsonl").write_text(_generic_transcript())
    assert _check(folder, root) == []
    run = Run.model_validate(yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0])
    assert run.transcript is not None
    found, metrics = verify_run(run=run, folder=folder)
    assert found == [] and metrics is not None
    assert metrics.prompt_total + metrics.completion_tokens == run.tokens.total


def test_tokens_ten_times_too_low_are_flagged_with_the_transcript_figure(root: Path) -> None:
    data = _with_transcript(valid_data())
    data["runs"][0]["tokens"] = {"total": 5200, "prompt": 4000, "completion": 1200, "cached": 100}
    folder = write_submission(root, data=data)
    (folder / "run-1.jsonl").write_text(_generic_transcript())
    errors = [d for d in _check(folder, root) if d.code == "metric-mismatch"]
    messages = " | ".join(d.message for d in errors)
    assert "reported tokens.total = 5,200 but the transcript (lines 1-30) gives 52,000" in messages
    assert "tokens.prompt" in messages and "tokens.completion" in messages
    assert all(d.path == folder / "run-1.jsonl" for d in errors)


def test_missing_and_broken_transcripts_are_errors_not_tracebacks(root: Path) -> None:
    folder = write_submission(root, data=_with_transcript(valid_data()))
    assert "missing-transcript" in {d.code for d in _check(folder, root)}
    (folder / "run-1.jsonl").write_text('{"type": "llm_call", "prompt_tok')
    found = [d for d in _check(folder, root) if d.code == "bad-transcript"]
    assert found and found[0].line == 1 and "truncated" in found[0].message


def test_run_without_transcript_is_self_reported(tmp_path: Path) -> None:
    run = Run.model_validate(
        {**valid_data()["runs"][0], "execution_time": 240.0, "estimated_cost": 0.21}
    )
    assert verify_run(run=run, folder=tmp_path) == ([], None)
    from arena_bot.core.prices import load_price_table
    from arena_bot.intake.verification import run_level

    assert run_level(run=run, folder=tmp_path, models=[], base_checkout=None,
                     prices=load_price_table()) == ("self-reported", ("no transcript",))


def test_cost_is_priced_with_cached_tokens_separately(tmp_path: Path) -> None:
    from arena_bot.core.prices import load_price_table
    from arena_bot.intake.transcripts import read_transcript
    from arena_bot.intake.verification import transcript_cost

    data = Path(__file__).parent / "transcripts" / "data"
    metrics = read_transcript(path=data / "openhands_trajectory.json", format_name="openhands")
    prices = load_price_table()
    cost = transcript_cost(metrics=metrics, prices=prices)
    # claude-sonnet-4-5: 3.00 input, 0.30 cached read, 3.75 cache write, 15.00 output per M.
    expected = (3800 * 3.00 + 7700 * 0.30 + 4500 * 3.75 + 700 * 15.00) / 1_000_000
    assert cost == pytest.approx(expected)
    assert prices.version == "2026-11-26"


@pytest.mark.parametrize(
    ("spelling", "canonical", "rates"),
    [
        # Names as 2026 tools write them (a provider prefix, a date suffix, "-preview").
        ("claude-opus-4-6", "claude-opus-4-6", (5.00, 0.50, 6.25, 25.00)),
        ("claude-opus-4-6-20260205", "claude-opus-4-6", (5.00, 0.50, 6.25, 25.00)),
        ("anthropic/claude-sonnet-4-6", "claude-sonnet-4-6", (3.00, 0.30, 3.75, 15.00)),
        ("gemini-3-pro-preview", "gemini-3-pro", (2.00, 0.20, None, 12.00)),
        ("google/gemini-3.1-pro-preview", "gemini-3.1-pro", (2.00, 0.20, None, 12.00)),
        ("gpt-5.3-codex", "gpt-5.3-codex", (1.75, 0.175, None, 14.00)),
        ("openai/gpt-5.5", "gpt-5.5", (5.00, 0.50, None, 30.00)),
        ("gpt-6-sol", "gpt-6-sol", (2.00, 0.20, 2.50, 10.00)),
    ],
)
def test_models_of_2026_are_priced(
    spelling: str, canonical: str, rates: tuple[float, float, float | None, float]
) -> None:
    from arena_bot.core.prices import load_price_table

    found = load_price_table().lookup(spelling)
    assert found is not None, spelling
    name, price = found
    assert name == canonical
    assert (price.input, price.cached_input, price.cache_write, price.output) == rates


SAMPLES = Path(__file__).resolve().parent.parent / "submissions"


@pytest.mark.parametrize(
    "folder",
    [
        "csvstat-summaries/2026-11-04_claude-code_claude-sonnet-4-5",
        "slugkit-options/2026-11-05_openhands_deepseek-v3",
        "ttlcache-bugs/2026-11-08_aider_gemini-2.5-pro",
    ],
)
def test_sample_submissions_of_three_tools_are_verified(folder: str) -> None:
    from arena_bot.core.prices import load_price_table
    from arena_bot.intake.submissions import load_submission

    loaded = load_submission(SAMPLES / folder)
    for run in loaded.spec.runs:
        assert run.transcript is not None
        found, metrics = verify_run(run=run, folder=loaded.root, prices=load_price_table())
        assert found == [] and metrics is not None


def test_sub_agent_usage_is_priced_at_its_own_model_rate() -> None:
    from arena_bot.core.prices import load_price_table
    from arena_bot.intake.transcripts import read_transcript
    from arena_bot.intake.verification import transcript_cost

    session = SAMPLES / "csvstat-summaries/2026-11-04_claude-code_claude-sonnet-4-5/session.jsonl"
    metrics = read_transcript(path=session, format_name="claude-code")
    assert metrics.usage_by_model == {
        "claude-sonnet-4-5-20250929": (27, 149976, 1452, 1178),
        "claude-haiku-4-5-20251001": (40, 132984, 2852, 835),
    }
    sonnet = 27 * 3.00 + 149976 * 0.30 + 1452 * 3.75 + 1178 * 15.00
    haiku = 40 * 1.00 + 132984 * 0.10 + 2852 * 1.25 + 835 * 5.00
    cost = transcript_cost(metrics=metrics, prices=load_price_table())
    assert cost == pytest.approx((sonnet + haiku) / 1_000_000)


def test_the_tolerance_comes_from_arena_yaml(root: Path) -> None:
    from arena_bot.core.config import load_config
    from arena_bot.intake.validation import validate_paths
    from arena_bot.tasks.dataset import Dataset

    data = _with_transcript(valid_data())  # 8% fewer tokens than the transcript's 52,000
    data["runs"][0]["tokens"] = {"total": 47840, "prompt": 36800, "completion": 11040,
                                 "cached": 920}
    folder = write_submission(root, data=data)
    (folder / "run-1.jsonl").write_text(_generic_transcript())
    assert "metric-mismatch" in {d.code for d in _check(folder, root)}  # default: 5%
    (root / "arena.yaml").write_text("verification:\n  tolerance: 0.1\n", encoding="utf-8")
    config = load_config(root).config
    assert config.verification.tolerance == 0.1
    report = validate_paths(
        [folder], dataset=Dataset(root / "dataset"), submissions_root=root / "submissions",
        config=config,
    )
    found = {d.code for sub in report.submissions for d in sub.diagnostics}
    assert "metric-mismatch" not in found


def test_a_transcript_number_past_the_digit_limit_is_a_bad_transcript(root: Path) -> None:
    """An integer of 5,000 digits on line 2 went through `arena validate` as a traceback
    (Python's json raises a plain ValueError for it)."""
    folder = write_submission(root, data=_with_transcript(valid_data()))
    (folder / "run-1.jsonl").write_text('{"type": "llm_call", "prompt_tokens": 1}\n'
                                        '{"type": "llm_call", "prompt_tokens": ' + "9" * 5000
                                        + "}\n")
    found = [d for d in _check(folder, root) if d.code == "bad-transcript"]
    assert len(found) == 1 and found[0].line == 2
    assert found[0].path == folder / "run-1.jsonl"
    assert "more than 4,300 digits" in found[0].message


def test_a_transcript_count_past_two_to_the_53_is_compared_as_nothing(root: Path) -> None:
    """A Claude Code line with ``input_tokens`` of 1 and 400 zeros was read, and comparing
    it with the reported figure raised OverflowError (an int too large for a float): now it
    counts as nothing, and the reported figures are held to the rest of the transcript."""
    data = _with_transcript(valid_data())
    data["runs"][0]["transcript"] = {"file": "run-1.jsonl", "format": "claude-code"}
    folder = write_submission(root, data=data)
    line = {"type": "assistant", "uuid": "u1", "timestamp": "2025-01-01T00:00:00Z",
            "message": {"id": "m1", "model": "claude-sonnet-4-5", "content": [],
                        "stop_reason": "end_turn",
                        "usage": {"input_tokens": 10**400, "output_tokens": 12000}}}
    (folder / "run-1.jsonl").write_text(json.dumps(line) + "\n")
    run = Run.model_validate(yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0])
    found, metrics = verify_run(run=run, folder=folder)
    assert metrics is not None and metrics.prompt_total == 0
    messages = [d.message for d in found if d.code == "metric-mismatch"]
    assert any("reported tokens.prompt = 40,000 but the transcript (lines 1-1) gives 0" in m
               for m in messages), messages
    assert not any("tokens.completion" in m for m in messages)
