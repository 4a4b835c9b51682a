"""A transcript is contributor input: whatever it holds, a reader gives its figures or one
clear :class:`InputError` naming the file (and the line), never a Python traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript

#: More digits than Python converts to an int (4,300 by default): ``json`` raises a plain
#: ValueError for it, not a JSONDecodeError.
HUGE = "9" * 5000


@pytest.mark.parametrize(("format_name", "text", "line"), [
    ("claude-code",  # a session line
     '{"type":"assistant","uuid":"u1","message":{"id":"m1","model":"claude-sonnet-4-5",'
     '"content":[],"usage":{"input_tokens":' + HUGE + ',"output_tokens":1}}}\n', 1),
    ("claude-code",  # claude -p stream-json: the shape is told by the first line
     '{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5"}\n'
     '{"type":"result","session_id":"s","duration_ms":' + HUGE + '}\n', 2),
    ("aider", '{"event":"message_send","time":1700000000,"properties":{"main_model":"gpt-4o",'
     '"prompt_tokens":' + HUGE + '}}\n', 1),
    ("codex", '{"timestamp":"2025-01-01T00:00:00Z","type":"event_msg","payload":{"type":'
     '"token_count","info":{"total_token_usage":{"input_tokens":' + HUGE + '}}}}\n', 1),
    ("codex",  # codex exec --json
     '{"type":"thread.started","thread_id":"t"}\n'
     '{"type":"turn.completed","usage":{"input_tokens":' + HUGE + '}}\n', 2),
    ("gemini-cli", '{"sessionId":"s","projectHash":"p","startTime":"2025-01-01T00:00:00Z"}\n'
     '{"id":"m1","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":' + HUGE + '}}\n',
     2),
    ("gemini-cli",  # gemini -p --output-format stream-json
     '{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"s","model":"m"}\n'
     '{"type":"result","timestamp":"2025-01-01T00:00:01Z","stats":{"input_tokens":' + HUGE
     + '}}\n', 2),
    ("gemini-cli",  # gemini -p --output-format json: one pretty-printed document
     '{\n  "session_id": "s",\n  "stats": {"models": {"m": {"tokens": {"prompt": ' + HUGE
     + '}}}}\n}\n', None),
    ("generic", '{"type":"llm_call","prompt_tokens":1}\n'
     '{"type":"llm_call","prompt_tokens":' + HUGE + '}\n', 2),
])
def test_an_integer_past_pythons_digit_limit_is_an_input_error(
    format_name: str, text: str, line: int | None, tmp_path: Path
) -> None:
    """``json.loads`` raises ValueError, not JSONDecodeError, for an integer of more than
    4,300 digits: it went through ``arena validate`` as a traceback."""
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match="more than 4,300 digits") as caught:
        read_transcript(path=path, format_name=format_name)
    assert caught.value.path == path
    assert caught.value.line == line


def test_a_huge_integer_inside_a_json_string_is_no_crash(tmp_path: Path) -> None:
    """SWE-agent's ``replay_config`` is JSON inside a string, and an action's
    ``--insert_line`` a number inside a command: one too long to convert names no model and
    leaves that edit unreplayable."""
    document = {
        "replay_config": '{"agent": {"model": {"name": "gpt-4o", "n": ' + HUGE + "}}}",
        "trajectory": [{"action": "str_replace_editor insert /r/a.py --insert_line " + HUGE
                        + " --new_str x"}],
        "info": {"model_stats": {"tokens_sent": 10, "tokens_received": 2, "api_calls": 1}},
    }
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(document))
    metrics = read_transcript(path=path, format_name="swe-agent")
    assert (metrics.prompt_tokens, metrics.completion_tokens, metrics.tool_calls) == (10, 2, 1)
    assert metrics.models == []
    assert metrics.activity is not None and metrics.activity.edits == []
    assert [where for where, _text in metrics.activity.unreplayable] == [1]


def test_a_count_past_two_to_the_53_counts_as_nothing(tmp_path: Path) -> None:
    """``1`` and 400 zeros was read as a count and then overflowed the float the reported
    figures are compared in; ``1e300`` read as 10**300 tokens. Above 2**53 a count is no
    count, as ``Infinity`` is not; 2**53 itself still counts."""
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type": "llm_call", "prompt_tokens": 1' + "0" * 400 + ', "completion_tokens": 7}\n'
        '{"type": "llm_call", "prompt_tokens": 1e300, "cache_read_tokens": 9007199254740993}\n'
        '{"type": "llm_call", "prompt_tokens": 5, "cache_write_tokens": 9007199254740992}\n')
    metrics = read_transcript(path=path, format_name="generic")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (5, 7)
    assert (metrics.cache_read_tokens, metrics.cache_write_tokens) == (0, 2**53)
    assert metrics.iterations == 3


def test_a_claude_stream_duration_past_two_to_the_53_counts_as_nothing(tmp_path: Path) -> None:
    """A ``result`` whose ``duration_ms`` is 400 nines raised OverflowError (an int too large
    to divide into a float); ``1e300`` gave 1e297 seconds."""
    lines = ['{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5"}']
    lines += ['{"type":"result","subtype":"success","session_id":"s","is_error":false,'
              f'"duration_ms":{figure},"num_turns":1,'
              '"usage":{"input_tokens":5,"output_tokens":5}}'
              for figure in ("9" * 400, "1e300", "1500")]
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(lines) + "\n")
    metrics = read_transcript(path=path, format_name="claude-code")
    assert metrics.wall_clock_seconds == 1.5
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (15, 15)


def test_an_aider_figure_past_two_to_the_53_counts_as_nothing(tmp_path: Path) -> None:
    """400 digits made ``round(float(...))`` of infinity raise OverflowError."""
    path = tmp_path / "history.md"
    path.write_text("# aider chat started at 2026-11-01 10:00:00\n\n"
                    "> Tokens: 1" + "0" * 400 + " sent, 12 received.\n\n"
                    "> Tokens: 2.3k sent, 10000000000000000 received.\n")
    metrics = read_transcript(path=path, format_name="aider-history")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (2300, 12)
    assert metrics.iterations == 2
