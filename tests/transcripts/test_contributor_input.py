"""A transcript is contributor input: whatever it holds, a reader gives its figures or one
clear :class:`InputError` naming the file (and the line), never a Python traceback."""

from __future__ import annotations

import gzip
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


def _lines(*events: object) -> str:
    return "".join(json.dumps(event) + "\n" for event in events)


def _reply(message_id: str, model: object,
           content: list[object] | None = None) -> dict[str, object]:
    return {"type": "assistant", "uuid": f"u-{message_id}", "timestamp": "2025-01-01T00:00:00Z",
            "message": {"id": message_id, "model": model, "content": content or [],
                        "stop_reason": "end_turn",
                        "usage": {"input_tokens": 5, "output_tokens": 5}}}


def test_claude_code_fields_of_another_type_where_a_name_belongs(tmp_path: Path) -> None:
    """A dict as ``model`` and a list as a tool's ``name`` raised ``TypeError: unhashable
    type`` (a set lookup): they name no model and no edit tool."""
    session = tmp_path / "session.jsonl"
    session.write_text(_lines(
        _reply("m1", {"name": "claude-sonnet-4-5"}),
        _reply("m2", "claude-sonnet-4-5", [
            {"type": "tool_use", "id": "t1", "name": ["Edit"], "input": {"file_path": "/r/a.py"}},
            {"type": "tool_use", "id": "t2", "name": "Write",
             "input": {"file_path": "/r/b.py", "content": "x\n"}}])))
    metrics = read_transcript(path=session, format_name="claude-code")
    assert metrics.models == ["claude-sonnet-4-5"]
    assert (metrics.prompt_tokens, metrics.iterations, metrics.tool_calls) == (10, 2, 2)
    assert metrics.edited_files == {"/r/b.py"}
    # The main agent names no model: no other model is taken for a sub-agent's helper.
    session.write_text(_lines(_reply("m1", {"name": "claude-sonnet-4-5"}),
                              {**_reply("m2", "claude-haiku-4-5"), "isSidechain": True}))
    metrics = read_transcript(path=session, format_name="claude-code")
    assert (metrics.models, metrics.helper_models) == (["claude-haiku-4-5"], set())
    stream = tmp_path / "stream.jsonl"
    stream.write_text(_lines(
        {"type": "system", "subtype": "init", "session_id": "s", "model": "claude-sonnet-4-5"},
        {**_reply("m1", ["claude-sonnet-4-5"]), "session_id": "s"},
        {"type": "result", "session_id": "s", "duration_ms": 2000, "num_turns": 1,
         "usage": {"input_tokens": 7, "output_tokens": 3}}))
    metrics = read_transcript(path=stream, format_name="claude-code")
    assert (metrics.models, metrics.helper_models) == (["claude-sonnet-4-5"], set())
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (7, 3)


def test_codex_fields_of_another_type_where_a_name_belongs(tmp_path: Path) -> None:
    """A list or dict as an event's, item's or payload's ``type``, or as a ``call_id`` or
    ``parent_thread_id``, raised ``TypeError: unhashable type``: such a line is passed
    over, every other line read."""
    exec_output = tmp_path / "exec.jsonl"
    exec_output.write_text(_lines(
        {"type": ["thread.started"]},
        {"type": "thread.started", "thread_id": "t"},
        {"type": "item.completed", "item": {"id": "i1", "type": ["command_execution"]}},
        {"type": "item.completed", "item": {"id": "i2", "type": "command_execution",
                                            "command": "ls"}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}}))
    metrics = read_transcript(path=exec_output, format_name="codex")
    assert (metrics.prompt_tokens, metrics.completion_tokens, metrics.tool_calls) == (10, 2, 1)
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text(_lines(
        {"model": "gpt-5-codex"},
        {"id": "0", "msg": {"type": {"x": 1}, "call_id": "c0"}},
        {"id": "1", "msg": {"type": "token_count", "info": {"total_token_usage": {
            "input_tokens": 10, "output_tokens": 2}}}}))
    metrics = read_transcript(path=legacy, format_name="codex")
    assert (metrics.prompt_tokens, metrics.tool_calls, metrics.models) == (10, 0, ["gpt-5-codex"])
    folder = tmp_path / "sessions"
    folder.mkdir()
    stamp = {"timestamp": "2025-01-01T00:00:00Z"}
    rollout = folder / "rollout-2025-01-01T00-00-00-s1.jsonl"
    rollout.write_text(_lines(
        {**stamp, "type": "session_meta", "payload": {"id": "s1", "cwd": "/r"}},
        {**stamp, "type": "turn_context", "payload": {"model": "gpt-5"}},
        {**stamp, "type": "response_item", "payload": {"type": {"x": 1}, "call_id": "c1"}},
        {**stamp, "type": "response_item", "payload": {"type": "function_call_output",
                                                       "call_id": ["c1"], "output": "{}"}},
        {**stamp, "type": "event_msg", "payload": {"type": ["task_complete"]}},
        {**stamp, "type": "event_msg", "payload": {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 10, "output_tokens": 2}}}}))
    (folder / "rollout-2025-01-01T00-00-01-s2.jsonl").write_text(_lines(
        {**stamp, "type": "session_meta", "payload": {"id": "s2", "parent_thread_id": {"x": 1}}}))
    metrics = read_transcript(path=rollout, format_name="codex")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (10, 2)
    assert (metrics.tool_calls, metrics.iterations, metrics.models) == (0, 1, ["gpt-5"])
    assert metrics.span_label == ""  # no sub-agent rollout read with it
    assert metrics.error_end == ""


def test_gemini_cli_fields_of_another_type_where_a_name_belongs(tmp_path: Path) -> None:
    """A list as a stream event's or a message's ``type``, or as a sub-agent tool call's
    ``name``, raised ``TypeError: unhashable type``."""
    stamp = "2025-01-01T00:00:00Z"
    stream = tmp_path / "stream.jsonl"
    stream.write_text(_lines(
        {"type": "init", "timestamp": stamp, "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": ["message"], "timestamp": stamp, "role": "assistant", "content": "hi"},
        {"type": "result", "timestamp": stamp, "status": "success", "stats": {
            "total_tokens": 12, "input_tokens": 10, "output_tokens": 2, "cached": 0,
            "duration_ms": 1000, "tool_calls": 0, "models": {"gemini-2.5-pro": {
                "total_tokens": 12, "input_tokens": 10, "output_tokens": 2, "cached": 0}}}}))
    metrics = read_transcript(path=stream, format_name="gemini-cli")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (10, 2)
    assert metrics.models == ["gemini-2.5-pro"]
    session = tmp_path / "session.jsonl"
    session.write_text(_lines(
        {"sessionId": "s", "projectHash": "p", "startTime": stamp},
        {"id": "m0", "type": ["gemini"], "timestamp": stamp, "content": "hi"},
        {"id": "m1", "type": "gemini", "timestamp": stamp, "model": "gemini-2.5-pro",
         "content": "", "tokens": {"input": 10, "output": 2}},
        {"sessionId": "sub", "projectHash": "p", "kind": "subagent", "startTime": stamp},
        {"id": "a1", "type": "gemini", "timestamp": stamp, "model": "gemini-2.5-pro",
         "tokens": {"input": 3, "output": 1},
         "toolCalls": [{"id": "c1", "name": ["write_file"], "args": {"file_path": "/r/a.py"}}]}))
    metrics = read_transcript(path=session, format_name="gemini-cli")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (13, 3)
    assert (metrics.iterations, metrics.tool_calls, metrics.edited_files) == (2, 1, set())
    # No metadata line first: the message's type is what says the file is Gemini CLI's.
    session.write_text(_lines(
        {"id": "m0", "type": ["gemini"], "timestamp": stamp, "content": "hi"},
        {"id": "m1", "type": "gemini", "timestamp": stamp, "model": "gemini-2.5-pro",
         "content": "", "tokens": {"input": 10, "output": 2}}))
    metrics = read_transcript(path=session, format_name="gemini-cli")
    assert (metrics.prompt_tokens, metrics.iterations) == (10, 1)


def test_openhands_v1_fields_of_another_type_where_a_name_belongs(tmp_path: Path) -> None:
    """A dict or list as an event's ``kind``, an action's ``kind`` or its ``command`` raised
    ``TypeError: unhashable type``: no such event is an agent's event or an edit."""
    stamp = "2025-01-01T00:00:00Z"
    path = tmp_path / "transcript.jsonl"
    path.write_text(_lines(
        {"id": "c", "agent": {"kind": "Agent"}, "stats": {"usage_to_metrics": {"default": {
            "model_name": "gpt-4o", "accumulated_token_usage": {
                "prompt_tokens": 10, "completion_tokens": 2}}}}},
        {"kind": "ActionEvent", "id": "e1", "timestamp": stamp, "source": "agent",
         "action": {"kind": {"x": 1}}, "tool_call_id": "c1", "llm_response_id": "r1"},
        {"kind": ["MessageEvent"], "id": "e2", "timestamp": stamp, "source": "agent"},
        {"kind": "ActionEvent", "id": "e3", "timestamp": stamp, "source": "agent",
         "action": {"kind": "FileEditorAction", "command": ["create"], "path": "/r/a.py"},
         "tool_call_id": "c2", "llm_response_id": "r2"}))
    metrics = read_transcript(path=path, format_name="openhands")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (10, 2)
    assert (metrics.iterations, metrics.tool_calls) == (2, 2)
    assert metrics.edited_files == set()
    assert metrics.activity is not None and metrics.activity.edits == []


def test_a_gemini_document_whose_first_key_is_not_utf8_is_an_input_error(
        tmp_path: Path) -> None:
    """The key after a lone ``{`` (how a pretty-printed document is told from a session) was
    decoded strictly: a Latin-1 byte in it raised UnicodeDecodeError."""
    path = tmp_path / "session.json"
    path.write_bytes(b'{\n  "s\xe9ssionId": "x"\n}\n')
    with pytest.raises(InputError, match="holds no message") as caught:
        read_transcript(path=path, format_name="gemini-cli")
    assert caught.value.path == path
    # After stderr lines, the same key starts no headless document either.
    path.write_bytes(b'Warning: something\n{\n  "s\xe9ssion_id": "x",\n  "stats": {}\n}\n')
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="gemini-cli")
    assert caught.value.path == path


@pytest.mark.parametrize(("format_name", "text", "said"), [
    ("openhands", "[1, 2, 3]", "not an OpenHands trajectory: item 1 of the array"),
    ("openhands", '[{"id": 0, "source": "user", "action": "message"}, "x"]',
     "not an OpenHands trajectory: item 2 of the array"),
    ("openhands", "[]", "not an OpenHands trajectory: the array holds no event"),
    ("openhands", "42", "not an OpenHands transcript"),
    ("openhands", '"a string"', "not an OpenHands transcript"),
    ("swe-agent", "[1, 2, 3]", "not a SWE-agent trajectory: .* an array"),
    ("swe-agent", '[{"info": {"model_stats": {"tokens_sent": 5}}}]',
     "not a SWE-agent trajectory: .* an array"),
    ("swe-agent", "null", "not a SWE-agent trajectory: .* no object"),
    ("atif", "[1, 2, 3]", "not an ATIF trajectory: .* an array"),
    ("atif", "\n  7\n", "not an ATIF trajectory: .* no object"),
])
def test_a_json_document_of_another_shape_is_not_read_as_an_empty_run(
    format_name: str, text: str, said: str, tmp_path: Path
) -> None:
    """``[1, 2, 3]`` was read as a run of 0 tokens and 0 calls: its items are no events (an
    OpenHands trajectory is an array of event objects; a SWE-agent or ATIF trajectory one
    object)."""
    path = tmp_path / "trajectory.json"
    path.write_text(text)
    with pytest.raises(InputError, match=said) as caught:
        read_transcript(path=path, format_name=format_name)
    assert caught.value.path == path


HERE = Path(__file__).parent
#: A transcript of each format and shape: (format, file under tests/transcripts/).
EVERY_SHAPE = [
    ("aider", "data/aider_analytics.jsonl"),
    ("aider-history", "data/aider_history.md"),
    ("atif", "corpus/atif/openhands_hello-world.trajectory.json"),
    ("claude-code", "data/claude_code_session.jsonl"),
    ("claude-code", "data/claude_code_stream_partial_messages.jsonl"),
    ("codex", "data/codex_rollout.jsonl"),
    ("codex", "corpus/codex/codex-0.169.0-task/exec-json.jsonl"),
    ("codex", "corpus/codex/codex-0.39.0-json/exec-json.jsonl"),
    ("gemini-cli", "corpus/gemini-cli/gemini-cli-0.61.0-session/"
     "session-2026-11-27T03-02-51c1a527.jsonl"),
    ("gemini-cli", "corpus/gemini-cli/session-2025-12-01T21-45-5b959dae.json"),
    ("gemini-cli", "corpus/gemini-cli/gemini-cli-0.61.0-stream-json-plain/stdout.jsonl"),
    ("gemini-cli", "corpus/gemini-cli/gemini-cli-0.61.0-json/stdout.json"),
    ("generic", "data/generic.jsonl"),
    ("openhands", "data/openhands_trajectory.json"),
    ("openhands", "corpus/openhands-v1/openhands-sdk-1.58.2-local/transcript.jsonl"),
    ("swe-agent", "data/swe_agent.traj"),
]


def _figures(path: Path, format_name: str) -> tuple[object, ...]:
    m = read_transcript(path=path, format_name=format_name)
    return (m.prompt_tokens, m.cache_read_tokens, m.cache_write_tokens, m.completion_tokens,
            m.tool_calls, m.iterations, m.wall_clock_seconds, m.models, m.first_line,
            m.last_line, m.span_label, sorted(m.edited_files), m.error_end)


@pytest.mark.parametrize(("format_name", "name"), EVERY_SHAPE)
def test_a_byte_order_mark_at_the_start_is_read_past(
    format_name: str, name: str, tmp_path: Path
) -> None:
    """A file saved again by a Windows editor or PowerShell (``Out-File -Encoding utf8``)
    starts with a UTF-8 byte-order mark: the JSONL readers refused it ("Unexpected UTF-8
    BOM"), the JSON document readers called it a lexical error at line 2, the readers of
    printed output passed its first line over. Every format reads it as the file without
    it."""
    text = (HERE / name).read_bytes()
    plain = tmp_path / "plain" / Path(name).name
    marked = tmp_path / "marked" / Path(name).name
    plain.parent.mkdir()
    marked.parent.mkdir()
    plain.write_bytes(text)
    marked.write_bytes(b"\xef\xbb\xbf" + text)
    assert _figures(marked, format_name) == _figures(plain, format_name)


def test_a_byte_order_mark_before_stderr_and_in_a_gz_file_is_read_past(tmp_path: Path) -> None:
    """Gemini CLI's printed JSON document is found after the stderr captured with it by its
    position, counted past the mark; a ``.gz`` file's mark is in its text."""
    stdout = (HERE / "corpus/gemini-cli/gemini-cli-0.61.0-json/stdout.json").read_bytes()
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_bytes(b"Loaded cached credentials.\n" + stdout)
    marked.write_bytes(b"\xef\xbb\xbfLoaded cached credentials.\n" + stdout)
    assert _figures(marked, "gemini-cli") == _figures(plain, "gemini-cli")
    generic = (HERE / "data/generic.jsonl").read_bytes()
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(b"\xef\xbb\xbf" + generic))
    assert _figures(packed, "generic") == _figures(HERE / "data/generic.jsonl", "generic")
