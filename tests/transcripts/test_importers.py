"""Each importer gives the exact metrics of a fixture transcript written in its format."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_bot.errors import InputError
from arena_bot.transcripts import read_transcript

DATA = Path(__file__).parent / "data"


def test_claude_code_counts_streamed_usage_once_and_skips_resumed_history() -> None:
    metrics = read_transcript(path=DATA / "claude_code_session.jsonl", format_name="claude-code")
    # msg_01 streamed as two lines (counted once) and replayed by the resume (skipped by uuid);
    # msg_02 is a sub-agent (sidechain) turn and is counted.
    assert metrics.prompt_tokens == 100 + 50 + 300
    assert metrics.completion_tokens == 40 + 10 + 80
    assert metrics.cache_write_tokens == 2000 + 0 + 100
    assert metrics.cache_read_tokens == 0 + 500 + 2000
    assert metrics.tool_calls == 2
    assert metrics.iterations == 3
    assert metrics.wall_clock_seconds == 60.0
    assert metrics.models == ["claude-sonnet-4-5", "claude-haiku-4-5"]


def test_generic_format() -> None:
    metrics = read_transcript(path=DATA / "generic.jsonl", format_name="generic")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (1600, 350)
    assert (metrics.cache_read_tokens, metrics.cache_write_tokens) == (800, 64)
    assert metrics.tool_calls == 2
    assert metrics.iterations == 2
    assert metrics.wall_clock_seconds == 90.0
    assert metrics.models == ["gpt-4.1", "gpt-4.1-mini"]
    assert (metrics.first_line, metrics.last_line) == (1, 6)


def test_truncated_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text('{"type":"llm_call","prompt_tokens":1}\n{"type":"llm_call","prompt_to')
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="generic")
    assert caught.value.line == 2
    assert "truncated" in str(caught.value) and str(path) in str(caught.value)


def test_non_object_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n")
    with pytest.raises(InputError, match="JSON object"):
        read_transcript(path=path, format_name="claude-code")


def test_unknown_format_lists_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("")
    with pytest.raises(InputError, match="claude-code"):
        read_transcript(path=path, format_name="nope")


def test_codex_rollout_uses_last_running_total() -> None:
    metrics = read_transcript(path=DATA / "codex_rollout.jsonl", format_name="codex")
    # input_tokens includes the cached part; reasoning tokens are billed as output.
    assert metrics.prompt_tokens == 11000 - 8000
    assert metrics.cache_read_tokens == 8000
    assert metrics.cache_write_tokens == 0
    assert metrics.completion_tokens == 500 + 150
    assert metrics.tool_calls == 2
    assert metrics.iterations == 2
    assert metrics.wall_clock_seconds == 30.0
    assert metrics.models == ["gpt-5-codex"]
