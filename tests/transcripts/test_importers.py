"""Each importer gives the exact metrics of a fixture transcript written in its format."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.redact import find_secrets

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
    assert metrics.usage_by_model["claude-haiku-4-5"] == (50, 500, 0, 10)


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
    # Near the error: the stream is read in chunks, so the line is exact to within one read.
    assert caught.value.line in (2, 3)
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
    # input_tokens includes the cached part; output_tokens already includes the 150
    # reasoning tokens (total_tokens = input + output), so they are not added again.
    assert metrics.prompt_tokens == 11000 - 8000
    assert metrics.cache_read_tokens == 8000
    assert metrics.cache_write_tokens == 0
    assert metrics.completion_tokens == 500
    assert metrics.tool_calls == 2
    assert metrics.iterations == 2
    assert metrics.wall_clock_seconds == 30.0
    assert metrics.models == ["gpt-5-codex"]
    assert metrics.edited_files == {"src/app.py"}


def test_aider_analytics_log_sums_message_sends() -> None:
    metrics = read_transcript(path=DATA / "aider_analytics.jsonl", format_name="aider")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (5210 + 7380, 640 + 410)
    assert metrics.iterations == 2
    assert metrics.wall_clock_seconds == 125.0
    assert metrics.models == ["deepseek/deepseek-chat"]
    assert "tool_calls" in metrics.unverifiable


def test_aider_chat_history_reads_rounded_token_lines_and_edits() -> None:
    metrics = read_transcript(path=DATA / "aider_history.md", format_name="aider-history")
    # DeepSeek's cache hits are inside "sent" (see the next test).
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (5200 - 1400 + 7400, 640 + 410)
    assert metrics.cache_read_tokens == 1400
    assert metrics.iterations == 2
    assert metrics.tool_calls == 3
    assert metrics.models == ["deepseek/deepseek-chat"]
    assert metrics.edited_files == {"csvstat/summary.py", "csvstat/cli.py"}
    assert (metrics.first_line, metrics.last_line) == (20, 25)


def test_aider_history_sent_holds_the_cache_hits_once_and_the_writes_twice(
    tmp_path: Path,
) -> None:
    """Aider 0.86.2 (LiteLLM 1.81.10), non-streamed (corpus/aider-history/aider-0.86.2-*): a
    DeepSeek reply billed 4,248 prompt tokens, 512 of them cache hits, is written ``4.2k
    sent, 512 cache hit``; an Anthropic reply of 2,881 uncached input tokens, 256 written to
    the cache, ``3.4k sent, 256 cache write`` (LiteLLM's prompt_tokens holds the writes, and
    Aider adds them again); with both cache figures the ``Cost:`` is a line of its own. A
    "sent" smaller than its hits holds only the writes (LiteLLM's early Anthropic route)."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2026-11-27 03:34:17\n\n> Main model: deepseek/deepseek-chat  \n"
        "> Tokens: 4.2k sent, 512 cache hit, 86 received. Cost: $0.0011 message.  \n"
        "> Tokens: 3.4k sent, 256 cache write, 168 received. Cost: $0.01 message.  \n"
        "> Tokens: 4.8k sent, 512 cache write, 512 cache hit, 347 received.\n"
        "Cost: $0.02 message, $0.03 session.  \n"
        "> Tokens: 1.2k sent, 1.1k cache write, 20k cache hit, 300 received.  \n")
    metrics = read_transcript(path=path, format_name="aider-history")
    assert metrics.prompt_tokens == (4200 - 512) + (3400 - 512) + (4800 - 512 - 1024) + 100
    assert metrics.cache_read_tokens == 512 + 512 + 20000
    assert metrics.cache_write_tokens == 256 + 512 + 1100
    assert metrics.completion_tokens == 86 + 168 + 347 + 300
    assert metrics.activity is not None
    requests = metrics.activity.requests
    assert [r.input_tokens for r in requests] == [4200, 2888 + 256, 3264 + 512 + 512, 21200]
    assert requests[3].output_chars == 0  # the lone "Cost:" line is Aider's, not the model's


def test_aider_analytics_redacted_model_is_no_model(tmp_path: Path) -> None:
    """Aider 0.86.2 logs ``openai/REDACTED`` for ``--model openai/gpt-4o`` when its model list
    is not at hand (corpus/aider/aider-0.86.2-openai-nostream): not a model to price."""
    path = tmp_path / "aider-analytics.jsonl"
    path.write_text(json.dumps({"event": "message_send", "properties": {
        "main_model": "openai/REDACTED", "weak_model": "None", "editor_model": "openai/REDACTED",
        "edit_format": "diff", "prompt_tokens": 3137, "completion_tokens": 63,
        "total_tokens": 3200, "cost": 0.0084725, "total_cost": 0.0084725},
        "user_id": "d35c2764", "time": 1795748565}) + "\n")
    metrics = read_transcript(path=path, format_name="aider")
    assert metrics.models == []
    assert (metrics.prompt_tokens, metrics.completion_tokens, metrics.iterations) == (3137, 63, 1)


def test_aider_history_replays_aiders_own_gitignore_edit(tmp_path: Path) -> None:
    """On start Aider appends ``.aider*`` to ``.gitignore`` (a line break first if the file
    lacks its last one) and writes ``> Added .aider* to .gitignore``: an edit of the patch."""
    from arena_bot.intake.transcripts.edits import replay

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2026-11-27 03:34:17\n\n"
        "> Add .aider*, .env to .gitignore (recommended)? (Y)es/(N)o [Yes]: y  \n"
        "> Added .aider*, .env to .gitignore  \n> Main model: openai/gpt-4o  \n\n"
        "#### hi  \n\nHello.\n\n> Tokens: 3.1k sent, 63 received.  \n")
    activity = read_transcript(path=path, format_name="aider-history").activity
    assert activity is not None
    base = {".gitignore": "__pycache__/\n*.egg-info/"}
    files = replay(activity.edits, base=base.get, cwd="/repo", known=lambda name: False)
    assert files == {".gitignore": "__pycache__/\n*.egg-info/\n.aider*\n.env\n"}


def test_aider_history_replays_whole_file_edits_in_the_whole_edit_format(tmp_path: Path) -> None:
    """``--edit-format whole`` (Aider 0.86.2, corpus/aider-history/aider-0.86.2-whole), and
    Aider 0.75's default for a model its list does not know (``> Model: ... with whole edit
    format``): the fenced text after the file's name is the file's new text, even when it
    looks like a SEARCH/REPLACE block (Aider 0.75 wrote such a block into the file)."""
    from arena_bot.intake.transcripts.edits import replay

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2026-11-27 03:40:01\n\n"
        "> Main model: openai/gpt-4o with whole edit format  \n\n#### add max_length  \n\n"
        "Here it is.\n\nslugkit/core.py\n```python\ndef slugify(text, max_length=None):\n"
        "    return text\n```\n\n> Tokens: 3.1k sent, 649 received.  \n"
        "> Applied edit to slugkit/core.py  \n\n"
        "# aider chat started at 2026-11-27 03:41:07\n\n"
        "> Model: anthropic/claude-sonnet-4-5-20250929 with whole edit format  \n\n"
        "#### and the cli  \n\n**slugkit/__main__.py**\n```python\n<<<<<<< SEARCH\nold\n=======\n"
        "new\n>>>>>>> REPLACE\n```\n\n> Tokens: 3.4k sent, 168 received.  \n"
        "> Applied edit to slugkit/__main__.py  \n")
    activity = read_transcript(path=path, format_name="aider-history").activity
    assert activity is not None and not activity.failed
    base = {"slugkit/core.py": "def slugify(text):\n    return text\n",
            "slugkit/__main__.py": "old\n"}
    files = replay(activity.edits, base=base.get, cwd="/repo", known=lambda name: False)
    assert files == {
        "slugkit/core.py": "def slugify(text, max_length=None):\n    return text\n",
        "slugkit/__main__.py": "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"}


def test_aider_history_with_unknown_token_figure_names_line(tmp_path: Path) -> None:
    path = tmp_path / "h.md"
    path.write_text("# aider chat started at 2026-11-08 10:00:00\n> Tokens: 5k sent, 3 apples.\n")
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="aider-history")
    assert caught.value.line == 2 and "apples" in str(caught.value)


def test_openhands_takes_largest_running_total_and_distinct_responses() -> None:
    metrics = read_transcript(path=DATA / "openhands_trajectory.json", format_name="openhands")
    # prompt_tokens of the last running total includes cache reads and writes.
    assert metrics.prompt_tokens == 16000 - 7700 - 4500
    assert metrics.cache_read_tokens == 7700
    assert metrics.cache_write_tokens == 4500
    assert metrics.completion_tokens == 700
    # Two tool calls share chatcmpl-2 and its repeated usage: three responses, four calls.
    assert metrics.iterations == 3
    assert metrics.tool_calls == 4
    assert metrics.wall_clock_seconds == 60.0
    assert metrics.models == ["claude-sonnet-4-5"]
    assert metrics.edited_files == {"/workspace/ttlcache/cache.py"}


def test_openhands_resumed_trajectory_is_not_doubled(tmp_path: Path) -> None:
    events = json.loads((DATA / "openhands_trajectory.json").read_text())
    path = tmp_path / "resumed.json"
    path.write_text(json.dumps(events + events))
    metrics = read_transcript(path=path, format_name="openhands")
    assert metrics.completion_tokens == 700
    assert (metrics.iterations, metrics.tool_calls) == (3, 4)


def test_swe_agent_traj() -> None:
    metrics = read_transcript(path=DATA / "swe_agent.traj", format_name="swe-agent")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (152300, 3100)
    assert metrics.cache_read_tokens == 0
    assert metrics.iterations == 4
    assert metrics.tool_calls == 3
    assert metrics.models == ["gpt-4.1"]
    assert metrics.edited_files == {"cache.py"}
    assert metrics.wall_clock_seconds == 0.0


CORPUS = Path(__file__).parent / "corpus"


@pytest.mark.parametrize(("name", "finished"), [
    ("swe-agent/swe-agent__test-repo-i1.traj", "submitted"),
    ("swe-agent/mini-swe-agent-2.4.6-toolcalls/mini-v2.traj.json", "Submitted"),
])
@pytest.mark.parametrize("stopped", ["exit_cost", "submitted (exit_cost)", "LimitsExceeded"])
def test_a_trajectory_that_did_not_end_submitted_ended_in_an_error(
    name: str, finished: str, stopped: str, tmp_path: Path
) -> None:
    """A real SWE-agent / mini-swe-agent run ends with ``info.exit_status`` ``submitted``:
    no error. Stopped at a limit (SWE-agent submits for the agent then: ``submitted
    (exit_cost)``), the run ended in an error, said in the file's words."""
    real = CORPUS / name
    assert read_transcript(path=real, format_name="swe-agent").error_end == ""
    text = real.read_text()
    stopped_run = tmp_path / real.name
    stopped_run.write_text(text.replace(f'"exit_status": "{finished}"',
                                        f'"exit_status": "{stopped}"', 1))
    assert stopped_run.read_text() != text
    metrics = read_transcript(path=stopped_run, format_name="swe-agent")
    assert metrics.error_end == f"info.exit_status is {stopped!r}"


def test_mini_swe_agent_2_trajectory_sums_replies_and_counts_their_actions(
    tmp_path: Path,
) -> None:
    """mini-swe-agent 2.x: ``extra.actions`` and ``extra.timestamp`` on each reply (1.x,
    one bash block per reply and no timestamps, is in the corpus)."""
    def reply(stamp: float, actions: list[str], usage: dict[str, object]) -> dict[str, object]:
        return {"role": "assistant", "content": "", "extra": {
            "actions": [{"command": a} for a in actions], "timestamp": stamp,
            "response": {"model": "claude-sonnet-4-5-20250929", "usage": usage}}}
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps({
        "info": {"model_stats": {"instance_cost": 0.1, "api_calls": 2},
                 "config": {"model": {"model_name": "anthropic/claude-sonnet-4-5-20250929"}}},
        "messages": [
            {"role": "system", "content": "You are...", "extra": {"timestamp": 1000.0}},
            reply(1010.0, ["ls", "cat a.py"], {"prompt_tokens": 3000, "completion_tokens": 90,
                                               "cache_creation_input_tokens": 2900}),
            {"role": "tool", "content": "a.py", "extra": {"timestamp": 1011.0}},
            reply(1040.0, ["sed -i s/a/b/ a.py"], {
                "prompt_tokens": 3200, "completion_tokens": 40,
                "cache_read_input_tokens": 2900, "cache_creation_input_tokens": 250}),
        ],
        "trajectory_format": "mini-swe-agent-1.1",
    }))
    metrics = read_transcript(path=path, format_name="swe-agent")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.cache_write_tokens,
            metrics.completion_tokens) == (3000 - 2900 + 3200 - 2900 - 250, 2900, 3150, 130)
    assert (metrics.tool_calls, metrics.iterations) == (3, 2)
    assert metrics.wall_clock_seconds == 40.0
    assert metrics.models == ["anthropic/claude-sonnet-4-5-20250929"]
    assert metrics.activity is not None and metrics.activity.shell_writes


@pytest.mark.parametrize(
    ("name", "format_name"),
    [("openhands_trajectory.json", "openhands"), ("swe_agent.traj", "swe-agent")],
)
def test_truncated_json_document_names_file_and_line(
    tmp_path: Path, name: str, format_name: str
) -> None:
    text = (DATA / name).read_text()
    path = tmp_path / name
    path.write_text(text[: len(text) // 2])
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name=format_name)
    assert "truncated" in str(caught.value) and str(path) in str(caught.value)
    assert caught.value.line is not None and caught.value.line > 1


def test_malformed_json_document_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"id": 1},\n{"id": 2,, }]\n')
    with pytest.raises(InputError, match="invalid JSON") as caught:
        read_transcript(path=path, format_name="openhands")
    # Near the error: the stream is read in chunks, so the line is exact to within one read.
    assert caught.value.line in (2, 3)


def test_gzip_transcript_reads_like_the_plain_file(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.gz"
    path.write_bytes(gzip.compress((DATA / "claude_code_session.jsonl").read_bytes()))
    plain = read_transcript(path=DATA / "claude_code_session.jsonl", format_name="claude-code")
    assert read_transcript(path=path, format_name="claude-code") == plain


@pytest.mark.parametrize("format_name", ["generic", "aider-history"])
def test_corrupt_gzip_is_an_input_error(format_name: str, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    body = "".join(
        f'{{"type":"llm_call","prompt_tokens":{n * 7919 % 100003}}}\n' for n in range(5000)
    )
    packed = gzip.compress(body.encode())
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match="decompress"):
        read_transcript(path=path, format_name=format_name)
    with pytest.raises(InputError, match="decompress"):
        find_secrets(path)


def test_enormous_openhands_trajectory_streams_in_bounded_memory(tmp_path: Path) -> None:
    """A 40 MB trajectory is read with a peak far below its size (it is never slurped)."""
    path = tmp_path / "big.json"
    observation = "x" * 4000
    with path.open("w") as handle:
        handle.write("[\n")
        for number in range(10_000):
            event = {
                "id": number,
                "timestamp": f"2026-11-03T09:{number // 6000 % 60:02d}:{number // 100 % 60:02d}",
                "source": "environment",
                "observation": "run",
                "content": observation,
            }
            handle.write(json.dumps(event) + ",\n")
        handle.write(json.dumps(json.loads((DATA / "openhands_trajectory.json").read_text())[6]))
        handle.write("\n]\n")
    assert path.stat().st_size > 40_000_000
    tracemalloc.start()
    try:
        metrics = read_transcript(path=path, format_name="openhands")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert metrics.completion_tokens == 700
    assert peak < 5_000_000


def test_oversized_single_item_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena_bot.intake.transcripts import jsonstream

    monkeypatch.setattr(jsonstream, "MAX_LINE_BYTES", 100_000)
    path = tmp_path / "huge.json"
    path.write_text('[{"content": "' + "y" * 300_000 + '"}]')
    with pytest.raises(InputError, match="larger than"):
        read_transcript(path=path, format_name="openhands")


ALL_FORMATS = ["aider", "aider-history", "atif", "claude-code", "codex", "generic",
               "openhands", "swe-agent"]


@pytest.mark.parametrize("format_name", ALL_FORMATS)
@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_an_empty_file_is_called_empty_in_every_format(
    format_name: str, content: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "t.log"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name=format_name)
    assert caught.value.message == "the transcript is empty"
    assert "truncated" not in str(caught.value) and str(path) in str(caught.value)


def test_aider_history_reads_lines_without_cost_and_next_to_non_utf8_bytes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.md"
    path.write_bytes(
        b"# aider chat started at 2026-01-01 10:00:00\n\n> Main model: gpt-4.1  \n"
        b"caf\xe9 au lait\n> Tokens: 2.3k sent, 245 received.  \n"
        b"> Tokens: 1.0k sent, 10 received.\xa0\xff  \n"  # stray bytes after the figures
        b"> Tokens: 4.5k sent, 1.1k cache write, 312 received. Cost: $0.01 message, "
        b"$0.02 session.  \n\xff\xfe> Applied edit to a.py  \n> Applied edit to b.py  \n"
    )
    metrics = read_transcript(path=path, format_name="aider-history")
    assert metrics.iterations == 3
    assert (metrics.prompt_tokens, metrics.cache_write_tokens, metrics.completion_tokens) == (
        2300 + 1000 + 4500 - 2 * 1100, 1100, 245 + 10 + 312)  # "sent" holds the writes twice
    assert metrics.tool_calls == 2 and metrics.edited_files == {"a.py", "b.py"}
    assert metrics.models == ["gpt-4.1"]


def test_stray_bytes_inside_a_jsonl_string_lose_no_call(tmp_path: Path) -> None:
    lines = (DATA / "claude_code_session.jsonl").read_bytes().splitlines(keepends=True)
    damaged = [line.replace(b'"content"', b'"note": "caf\xe9 \xff", "content"', 1)
               for line in lines]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(damaged))
    assert read_transcript(path=path, format_name="claude-code") == read_transcript(
        path=DATA / "claude_code_session.jsonl", format_name="claude-code")


def test_stray_bytes_inside_a_json_document_lose_no_event(tmp_path: Path) -> None:
    text = (DATA / "openhands_trajectory.json").read_bytes()
    path = tmp_path / "t.json"
    # A Latin-1 byte and a multi-byte character cut in half, inside a string value.
    path.write_bytes(text.replace(b'"source"', b'"note": "\xe9\xe2\x82", "source"', 1))
    assert read_transcript(path=path, format_name="openhands") == read_transcript(
        path=DATA / "openhands_trajectory.json", format_name="openhands")


def test_a_line_of_binary_bytes_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type": "user"}\n\x89PNG\r\n\x1a\n\x00\x00\xff\xd8\n')
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="claude-code")
    assert caught.value.line == 2
    assert "not UTF-8 text" in caught.value.message
    assert "store the complete transcript file" not in str(caught.value)


def _atif(tmp_path: Path, final: dict | None) -> Path:
    steps = [
        {"step_id": 1, "timestamp": "2026-03-01T10:00:00Z", "source": "user", "message": "go"},
        {"step_id": 2, "timestamp": "2026-03-01T10:00:20Z", "source": "agent",
         "model_name": "claude-sonnet-4-5", "message": "look",
         "tool_calls": [{"tool_call_id": "a", "function_name": "bash", "arguments": {}},
                        {"tool_call_id": "b", "function_name": "bash", "arguments": {}}],
         "metrics": {"prompt_tokens": 5000, "cached_tokens": 4000, "completion_tokens": 300}},
        {"step_id": 3, "timestamp": "2026-03-01T10:01:40Z", "source": "agent",
         "model_name": "claude-haiku-4-5", "message": "summarise",
         "tool_calls": [{"tool_call_id": "b", "function_name": "bash", "arguments": {}}],
         "metrics": {"prompt_tokens": 2000, "cached_tokens": 0, "completion_tokens": 100}},
    ]
    document = {"schema_version": "ATIF-v1.5", "session_id": "s",
                "agent": {"name": "terminus-2", "version": "2", "model_name": "claude-sonnet-4-5"},
                "steps": steps}
    if final is not None:
        document["final_metrics"] = final
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_atif_sums_step_metrics_per_model_without_final_metrics(tmp_path: Path) -> None:
    metrics = read_transcript(path=_atif(tmp_path, None), format_name="atif")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens) == (
        1000 + 2000, 4000, 400)
    assert (metrics.iterations, metrics.tool_calls, metrics.wall_clock_seconds) == (2, 2, 100.0)
    assert metrics.models == ["claude-sonnet-4-5", "claude-haiku-4-5"]
    assert metrics.usage_by_model == {"claude-sonnet-4-5": (1000, 4000, 0, 300),
                                      "claude-haiku-4-5": (2000, 0, 0, 100)}


def test_atif_final_metrics_win_field_by_field(tmp_path: Path) -> None:
    # A timed-out call billed 1,000 prompt tokens that no step shows; no cached total given.
    path = _atif(tmp_path, {"total_prompt_tokens": 8000, "total_completion_tokens": 400})
    metrics = read_transcript(path=path, format_name="atif")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens) == (
        8000 - 4000, 4000, 400)
    # Two models: their per-step split is kept for pricing.
    assert set(metrics.usage_by_model) == {"claude-sonnet-4-5", "claude-haiku-4-5"}


NESTED = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(("format_name", "name", "text"), [
    ("codex", "rollout.jsonl",
     '{"type": "response_item", "payload": {"type": "message", "content": 5}}\n'
     '{"type": "response_item", "payload": {"type": "reasoning", "summary": 7}}\n'),
    ("swe-agent", "t.traj",
     '{"trajectory": [{"action": "str_replace_editor insert /a.py --insert_line \\u00b2 '
     '--new_str x"}], "history": [{"role": "assistant", "content": "hi", "tool_calls": 5}], '
     '"info": {"model_stats": {"tokens_sent": 5}}}'),
    ("swe-agent", "deep.traj",
     '{"history": [{"role": "assistant", "content": ' + NESTED + '}]}'),
    ("claude-code", "deep.jsonl",
     '{"type": "user", "message": {"content": ' + "[" * 900 + "]" * 900 + '}}\n'),
])
def test_fields_of_an_unexpected_json_type_are_read_not_a_crash(
    format_name: str, name: str, text: str, tmp_path: Path
) -> None:
    """Validation reads every format's activity too: a field of the wrong JSON type (a
    number where a list belongs, a non-ASCII digit, content nested deep) is skipped."""
    path = tmp_path / name
    path.write_text(text)
    metrics = read_transcript(path=path, format_name=format_name)
    assert metrics.activity is not None


def test_json_nested_beyond_the_parser_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"type": "user", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(InputError, match="nests JSON too deeply") as caught:
        read_transcript(path=path, format_name="claude-code")
    assert caught.value.path == path


def test_figures_out_of_range_count_as_nothing(tmp_path: Path) -> None:
    """Python's JSON reader accepts Infinity and NaN; a stamp can be out of any calendar."""
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type": "llm_call", "prompt_tokens": Infinity, "timestamp": 1e300}\n'
        '{"type": "llm_call", "prompt_tokens": NaN, "completion_tokens": -Infinity, '
        '"timestamp": "0001-01-01T00:00:00+05:00"}\n'
        '{"type": "llm_call", "prompt_tokens": 10, "completion_tokens": -3, '
        '"timestamp": "2026-11-01T10:00:00Z"}\n')
    metrics = read_transcript(path=path, format_name="generic")
    assert (metrics.prompt_tokens, metrics.completion_tokens, metrics.iterations) == (10, 0, 3)
    assert metrics.wall_clock_seconds == 0


def test_a_malformed_aider_token_figure_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "history.md"
    path.write_text("# aider chat started at 2026-11-01 10:00:00\n\n> Tokens: 1.2.3k sent, "
                    "5 received.\n")
    with pytest.raises(InputError, match="unrecognised token figure") as caught:
        read_transcript(path=path, format_name="aider-history")
    assert caught.value.line == 3


def test_a_resumed_claude_code_session_replays_no_edit_twice(tmp_path: Path) -> None:
    """A resumed session repeats its history with the same uuids: the edit it holds is one
    edit (replayed twice it would no longer find its text, denying an honest session)."""
    change = {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    edit = {"type": "assistant", "uuid": "a1", "message": {
        "id": "msg_1", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
        "usage": {"input_tokens": 3000, "output_tokens": 40},
        "content": [{"type": "tool_use", "id": "t1", "name": "Edit", "input": change}]}}
    result = {"type": "user", "uuid": "u1", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}}
    path = tmp_path / "resumed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [edit, result, edit, result]))
    activity = read_transcript(path=path, format_name="claude-code").activity
    assert activity is not None
    assert [(e.path, e.old, e.new) for e in activity.edits] == [("/w/a.py", "x = 1", "x = 2")]
    assert len(activity.requests) == 1
    assert activity.requests[0].output_chars == len("Edit" + json.dumps(change))


BOMB = "[" * 100_000 + "]" * 100_000  # 200 KB; ijson's memory grows with depth squared


@pytest.mark.parametrize(("format_name", "text"), [
    ("openhands", BOMB),
    ("openhands", '[{"id": 1, "source": "agent"}, ' + BOMB + "]"),
    ("atif", '{"schema_version": "ATIF-v1.2", "steps": [' + BOMB + "]}"),
    ("swe-agent", '{"history": [{"role": "assistant", "content": ' + BOMB + "}]}"),
    ("claude-code", BOMB),
])
def test_a_nesting_bomb_is_refused_in_bounded_memory(
    format_name: str, text: str, tmp_path: Path
) -> None:
    """200 KB of brackets in a JSON document took 24 GB (the validator of any PR was
    killed): the depth is checked as the document is read, and memory stays small."""
    path = tmp_path / "bomb.json"
    path.write_text(text)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="nests JSON too deeply") as caught:
            read_transcript(path=path, format_name=format_name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.path == path
    assert peak < 200 * 1024 * 1024, peak


def test_an_item_with_many_brackets_reads_as_the_fast_path_reads_it(tmp_path: Path) -> None:
    """An item holding more brackets than the fast path reads unchecked is read again by
    the checked path, and the items come once each, as before."""
    from arena_bot.intake.transcripts.jsonstream import MAX_DEPTH, iter_objects

    items = [{"id": n, "observation": "[" * (MAX_DEPTH + 10) if n == 3 else "ok",
              "extras": {"rows": [[n, n + 1]] * 3}} for n in range(8)]
    path = tmp_path / "events.json"
    path.write_text(json.dumps(items))
    assert [value for _, value in iter_objects(path, frozenset({"item"}))] == items
    deep = 40  # honest nesting, far below the limit
    nested: object = "leaf"
    for _ in range(deep):
        nested = [nested]
    path.write_text(json.dumps([{"id": 0}, {"id": 1, "deep": nested}]))
    assert [value for _, value in iter_objects(path, frozenset({"item"}))] == [
        {"id": 0}, {"id": 1, "deep": nested}]
