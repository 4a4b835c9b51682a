"""Sessions that use several models are priced per model, in every format that shows it.

Each transcript is written in its tool's own shape; the expected cost is the sum, over the
models, of each model's tokens at its own rates from the shipped price table. Pricing the
whole session at the first model's rates (what happened before) gives a different figure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_bot.core.prices import load_price_table, token_cost
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.verification import transcript_cost

PRICES = load_price_table()


def _cost(
    model: str, *, uncached: int = 0, read: int = 0, write: int = 0, output: int = 0
) -> float:
    found = PRICES.lookup(model)
    assert found is not None, model
    return token_cost(price=found[1], uncached=uncached, cache_read=read, cache_write=write,
                      output=output)


def _jsonl(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


def _codex_total(stamp: str, inputs: int, cached: int, output: int, reasoning: int) -> dict:
    usage = {"input_tokens": inputs, "cached_input_tokens": cached, "output_tokens": output,
             "reasoning_output_tokens": reasoning}
    return {"timestamp": stamp, "type": "event_msg",
            "payload": {"type": "token_count", "info": {"total_token_usage": usage}}}


def test_codex_session_that_switched_models(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "rollout.jsonl", [
        {"timestamp": "2026-02-01T09:00:00Z", "type": "turn_context",
         "payload": {"model": "gpt-5"}},
        _codex_total("2026-02-01T09:00:05Z", 5000, 3000, 200, 100),
        # `/model gpt-5-mini`: the next turn runs on the cheaper model.
        {"timestamp": "2026-02-01T09:01:00Z", "type": "turn_context",
         "payload": {"model": "gpt-5-mini"}},
        _codex_total("2026-02-01T09:01:05Z", 12000, 8000, 500, 150),
        _codex_total("2026-02-01T09:01:06Z", 12000, 8000, 500, 150),  # a repeated ping
    ])
    metrics = read_transcript(path=path, format_name="codex")
    assert metrics.models == ["gpt-5", "gpt-5-mini"]
    # output_tokens already holds the reasoning tokens: they are not added again.
    assert metrics.usage_by_model == {
        "gpt-5": (2000, 3000, 0, 200),
        "gpt-5-mini": (7000 - 5000, 5000, 0, 300),
    }
    expected = (_cost("gpt-5", uncached=2000, read=3000, output=200)
                + _cost("gpt-5-mini", uncached=2000, read=5000, output=300))
    assert transcript_cost(metrics=metrics, prices=PRICES) == pytest.approx(expected)
    first_model_only = _cost("gpt-5", uncached=4000, read=8000, output=500)
    assert expected != pytest.approx(first_model_only)


def test_openhands_trajectory_with_two_models(tmp_path: Path) -> None:
    def action(number: int, model: str, prompt: int, read: int, write: int, output: int) -> dict:
        return {
            "id": number, "timestamp": f"2026-02-01T10:00:{number:02d}", "source": "agent",
            "action": "run", "args": {"command": "ls"},
            "tool_call_metadata": {"tool_call_id": f"call-{number}",
                                   "model_response": {"id": f"resp-{number}"}},
            "llm_metrics": {"accumulated_token_usage": {
                "model": model, "prompt_tokens": prompt, "completion_tokens": output,
                "cache_read_tokens": read, "cache_write_tokens": write}},
        }
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps([
        action(1, "claude-sonnet-4-5", 6000, 1000, 2000, 300),
        action(2, "claude-haiku-4-5", 10000, 3000, 2500, 450),
    ]))
    metrics = read_transcript(path=path, format_name="openhands")
    assert metrics.usage_by_model == {
        "claude-sonnet-4-5": (3000, 1000, 2000, 300),
        "claude-haiku-4-5": (4000 - 2000 - 500, 2000, 500, 150),
    }
    expected = (_cost("claude-sonnet-4-5", uncached=3000, read=1000, write=2000, output=300)
                + _cost("claude-haiku-4-5", uncached=1500, read=2000, write=500, output=150))
    assert transcript_cost(metrics=metrics, prices=PRICES) == pytest.approx(expected)


def test_aider_architect_and_editor_models(tmp_path: Path) -> None:
    def send(stamp: int, model: str, prompt: int, completion: int) -> dict:
        return {"event": "message_send", "time": stamp, "user_id": "u",
                "properties": {"main_model": model, "edit_format": "architect",
                               "prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion}}
    path = _jsonl(tmp_path / "analytics.jsonl", [
        send(1_700_000_000, "o3", 4000, 900),
        send(1_700_000_030, "gpt-4.1", 5000, 400),
        send(1_700_000_060, "o3", 1000, 100),
    ])
    metrics = read_transcript(path=path, format_name="aider")
    assert metrics.usage_by_model == {"o3": (5000, 0, 0, 1000), "gpt-4.1": (5000, 0, 0, 400)}
    expected = (_cost("o3", uncached=5000, output=1000)
                + _cost("gpt-4.1", uncached=5000, output=400))
    assert transcript_cost(metrics=metrics, prices=PRICES) == pytest.approx(expected)


def test_generic_transcript_with_two_models_and_an_unpriced_one(tmp_path: Path) -> None:
    calls = [
        {"type": "llm_call", "model": "gpt-5", "prompt_tokens": 1000, "completion_tokens": 50,
         "cache_read_tokens": 4000},
        {"type": "tool_call", "name": "edit"},
        {"type": "llm_call", "model": "gpt-5-nano", "prompt_tokens": 3000,
         "completion_tokens": 20},
    ]
    metrics = read_transcript(path=_jsonl(tmp_path / "t.jsonl", calls), format_name="generic")
    expected = (_cost("gpt-5", uncached=1000, read=4000, output=50)
                + _cost("gpt-5-nano", uncached=3000, output=20))
    assert transcript_cost(metrics=metrics, prices=PRICES) == pytest.approx(expected)
    # A model the price table does not list makes the cost unverifiable, never a guess.
    calls.append({"type": "llm_call", "model": "in-house-7b", "prompt_tokens": 10})
    unknown = read_transcript(path=_jsonl(tmp_path / "u.jsonl", calls), format_name="generic")
    assert transcript_cost(metrics=unknown, prices=PRICES) is None


def test_steps_that_do_not_name_their_model_belong_to_the_only_named_one(tmp_path: Path) -> None:
    calls = [
        {"type": "llm_call", "model": "gpt-5", "prompt_tokens": 1000, "completion_tokens": 50},
        {"type": "llm_call", "prompt_tokens": 500, "completion_tokens": 10},
    ]
    metrics = read_transcript(path=_jsonl(tmp_path / "t.jsonl", calls), format_name="generic")
    assert transcript_cost(metrics=metrics, prices=PRICES) == pytest.approx(
        _cost("gpt-5", uncached=1500, output=60))
