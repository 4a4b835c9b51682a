"""Agents run headless, as benchmark harnesses capture them, read right.

CooperBench (the benchmark this board is built around) runs Claude Code as
``claude --verbose --output-format=stream-json -p ... 2>&1 | tee`` and keeps that output as
``<agent>_stream.jsonl`` beside ``<agent>_session.jsonl`` (every session file under the
config folder, concatenated), runs mini-swe-agent 2.x with compaction (``<agent>_full_traj.json``
with ``segments``), and writes its own ``agent<N>_traj.json`` and ``result.json`` per run.
Codex is commonly run as ``codex exec --json``. The real captures used here are in
``corpus/`` (see its README); the CooperBench runner files are written the way its runner and
agent code write them (``src/cooperbench/runner/coop.py``, ``agents/mini_swe_agent_v2``,
upstream @44b4a7a), as no public run folder was found.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from support.transcript_reference import read as reference_read

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.claude_code import read_claude_code_files, subagent_files
from arena_bot.intake.transcripts.edits import usage_problems

CORPUS = Path(__file__).parent / "corpus"
STREAM = CORPUS / "claude-code/headless-2.1/basic_query.ndjson"
RESULT = CORPUS / "claude-code/headless-2.1/result_success.json"
EXEC = CORPUS / "codex/exec/03_write_schema.jsonl"
SESSION_21 = CORPUS / "claude-code/codemie-2.1/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl.gz"


def figures(path: Path, fmt: str) -> dict[str, Any]:
    metrics = read_transcript(path=path, format_name=fmt)
    return {
        "uncached": metrics.prompt_tokens, "cache_read": metrics.cache_read_tokens,
        "cache_write": metrics.cache_write_tokens, "output": metrics.completion_tokens,
        "tool_calls": metrics.tool_calls, "iterations": metrics.iterations,
        "seconds": round(metrics.wall_clock_seconds, 3), "models": sorted(metrics.models),
    }


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


# --- Claude Code: stream-json and json output ------------------------------------------


def test_a_stream_takes_the_result_events_output_not_the_partial_count_printed_mid_stream(
) -> None:
    """The real 2.1.7 stream: its one reply's line says 5 output tokens (printed when the
    text block was complete), its result 25; the time is the result's duration_ms."""
    assert json.loads(lines(STREAM)[1])["message"]["usage"]["output_tokens"] == 5
    got = figures(STREAM, "claude-code")
    assert (got["output"], got["seconds"], got["iterations"]) == (25, 2.36, 1)
    activity = read_transcript(path=STREAM, format_name="claude-code").activity
    assert activity is not None  # the edits replay against the init event's working directory
    assert activity.cwd == "/home/cyou/claude-agent-sdk-gleam"


def test_stderr_captured_with_the_stream_is_passed_over(tmp_path: Path) -> None:
    """CooperBench pipes `2>&1 | tee`: a warning line among the events changes nothing."""
    noisy = tmp_path / "agent1_stream.jsonl"
    first, *rest = lines(STREAM)
    noisy.write_text("\n".join(["(node:17) Warning: something deprecated", first,
                                "Error: a transient fetch failure, retrying", *rest]) + "\n")
    assert figures(noisy, "claude-code") == figures(STREAM, "claude-code")


def test_a_stream_cut_off_before_its_result_is_refused_naming_the_session_file(
    tmp_path: Path,
) -> None:
    cut = tmp_path / "agent1_stream.jsonl"
    cut.write_text("\n".join(lines(STREAM)[:-1]) + "\n")
    with pytest.raises(InputError) as caught:
        read_transcript(path=cut, format_name="claude-code")
    assert "no final `result` event" in caught.value.message
    assert str(cut) in str(caught.value)
    assert "1d1e46f9-35c7-4834-b529-846d5bb82288.jsonl" in (caught.value.hint or "")
    assert "<agent>_session.jsonl" in (caught.value.hint or "")


def test_the_result_alone_reads_its_model_usage_turns_and_time() -> None:
    """`--output-format json`: modelUsage (what costUSD bills) is larger than usage, which
    leaves calls out; iterations are num_turns; tool calls are not shown, so unchecked."""
    document = json.loads(RESULT.read_text())
    assert document["usage"]["output_tokens"] < document["modelUsage"][
        "claude-opus-4-5-20251101"]["outputTokens"]
    metrics = read_transcript(path=RESULT, format_name="claude-code")
    assert metrics.usage_by_model == {"claude-opus-4-5-20251101": (38, 28775, 31159, 765)}
    assert (metrics.iterations, metrics.wall_clock_seconds) == (2, 8.722)
    assert metrics.unverifiable == {"tool_calls"}


def test_the_result_printed_on_one_line_and_the_verbose_array_read_alike(tmp_path: Path) -> None:
    one_line = tmp_path / "out.json"
    one_line.write_text(json.dumps(json.loads(RESULT.read_text())) + "\n")
    assert figures(one_line, "claude-code") == figures(RESULT, "claude-code")
    array = tmp_path / "verbose.json"  # --output-format json --verbose: every event, one array
    array.write_text(json.dumps([json.loads(line) for line in lines(STREAM)]))
    assert figures(array, "claude-code") == figures(STREAM, "claude-code")
    assert reference_read("claude-code", [array]) == figures(STREAM, "claude-code")


def test_a_sub_agents_turns_printed_inline_are_counted_and_priced_per_model(
    tmp_path: Path,
) -> None:
    """Sub-agent replies come inline with `parent_tool_use_id`; the result's modelUsage
    holds every model the run used, each priced at its own rates."""
    events = [json.loads(line) for line in lines(STREAM)]
    sub = json.loads(json.dumps(events[1]))
    sub["message"]["id"] = "msg_sub"
    sub["message"]["model"] = "claude-haiku-4-5-20251001"
    sub["message"]["content"] = [{"type": "tool_use", "id": "toolu_sub", "name": "Edit",
                                  "input": {"file_path": "/w/a.py", "old_string": "a",
                                            "new_string": "b"}}]
    sub["parent_tool_use_id"] = "toolu_task"
    result = events[-1]
    result["modelUsage"] = {
        "claude-opus-4-5-20251101": {"inputTokens": 10, "outputTokens": 25,
                                     "cacheReadInputTokens": 0,
                                     "cacheCreationInputTokens": 21570},
        "claude-haiku-4-5-20251001": {"inputTokens": 7, "outputTokens": 90,
                                      "cacheReadInputTokens": 100,
                                      "cacheCreationInputTokens": 0}}
    path = tmp_path / "stream.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [*events[:2], sub, result]))
    metrics = read_transcript(path=path, format_name="claude-code")
    assert metrics.usage_by_model["claude-haiku-4-5-20251001"] == (7, 100, 0, 90)
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (17, 115)
    assert (metrics.iterations, metrics.tool_calls) == (2, 1)
    assert metrics.edited_files == {"/w/a.py"}
    assert reference_read("claude-code", [path])["output"] == 115


def test_cooperbench_session_concatenation_counts_each_call_once(tmp_path: Path) -> None:
    """`<agent>_session.jsonl` is `find .../projects -name '*.jsonl' | xargs cat`: the session
    and its sub-agent files in whatever order find lists them. Read as one file it gives the
    figures of the files read together, in either order."""
    files = [SESSION_21, *subagent_files(SESSION_21)]
    together = read_claude_code_files(files)
    for order in (files, files[::-1]):
        joined = tmp_path / "agent1_session.jsonl"
        joined.write_bytes(b"".join(gzip.decompress(path.read_bytes()) for path in order))
        metrics = read_transcript(path=joined, format_name="claude-code")
        assert (metrics.prompt_total, metrics.completion_tokens, metrics.iterations,
                metrics.tool_calls) == (together.prompt_total, together.completion_tokens,
                                        together.iterations, together.tool_calls)


# --- CooperBench's runner files ---------------------------------------------------------


def runner_traj(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """``agent<N>_traj.json`` as src/cooperbench/runner/coop.py writes it."""
    return {"repo": "dottxt_ai_outlines_task", "task_id": 1655, "feature_id": 6,
            "agent_id": "agent1", "model": "anthropic/claude-sonnet-4-5", "status": "Submitted",
            "cost": 0.5, "steps": extra.pop("steps", 2), "messages": messages, **extra}


def reply(number: int, *, prompt: int, cached: int, output: int, summary: bool = False,
          command: str = "ls") -> dict[str, Any]:
    """An assistant message as mini_swe_agent_v2's LitellmModel.query returns it."""
    extra: dict[str, Any] = {
        "response": {"id": f"chatcmpl-{number}", "model": "claude-sonnet-4-5",
                     "usage": {"prompt_tokens": prompt, "completion_tokens": output,
                               "prompt_tokens_details": {"cached_tokens": cached}}},
        "cost": 0.01, "timestamp": 1_760_000_000.0 + number * 10}
    if summary:
        extra["summary"] = True
    else:
        extra["actions"] = [{"tool_name": "bash", "tool_call_id": f"call_{number}",
                             "command": command}]
    return {"role": "assistant", "content": "", "extra": extra}


def test_a_claude_code_run_trajectory_of_cooperbench_is_refused_for_its_stream(
    tmp_path: Path,
) -> None:
    """For Claude Code runs CooperBench keeps only role and text (parse_session_jsonl)."""
    written = tmp_path / "agent1_traj.json"
    trajectory = runner_traj([{"role": "user", "content": "task"},
                              {"role": "assistant", "content": "done"}])
    written.write_text(json.dumps(trajectory, indent=2))
    compact = tmp_path / "agent2_traj.json"  # written again on one line
    compact.write_text(json.dumps(trajectory) + "\n")
    for fmt, path in (("claude-code", written), ("swe-agent", written),
                      ("claude-code", compact)):
        with pytest.raises(InputError) as caught:
            read_transcript(path=path, format_name=fmt)
        assert "carry no usage" in caught.value.message and str(path) in str(caught.value)
        assert "<agent>_stream.jsonl" in (caught.value.hint or "")
        assert "SWE-agent run" in (caught.value.hint or "")


def test_cooperbench_result_json_is_refused_as_a_summary(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({
        "repo": "r", "task_id": 1, "features": [1, 2], "setting": "coop", "run_id": "ab12",
        "run_name": "n", "agent_framework": "claude_code", "model": "claude-sonnet-4-5",
        "duration_seconds": 100.0, "agents": {"agent1": {"input_tokens": 10}},
        "total_cost": 1.0, "total_steps": 3}, indent=2))
    for fmt in ("claude-code", "swe-agent"):
        with pytest.raises(InputError) as caught:
            read_transcript(path=path, format_name=fmt)
        assert "run summary (result.json)" in caught.value.message
        assert "<agent>_stream.jsonl" in (caught.value.hint or "")


def test_a_mini_swe_agent_run_trajectory_reads_its_model_and_steps(tmp_path: Path) -> None:
    path = tmp_path / "agent1_traj.json"
    path.write_text(json.dumps(runner_traj([
        {"role": "system", "content": "s"}, {"role": "user", "content": "task"},
        reply(1, prompt=1000, cached=0, output=50),
        {"role": "tool", "content": "out", "tool_call_id": "call_1"},
        reply(2, prompt=1200, cached=900, output=70)]), indent=2))
    metrics = read_transcript(path=path, format_name="swe-agent")
    assert metrics.models == ["anthropic/claude-sonnet-4-5"]
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens) == (
        1300, 900, 120)
    assert (metrics.iterations, metrics.tool_calls, metrics.wall_clock_seconds) == (2, 2, 10.0)


@pytest.mark.parametrize(("status", "ended"), [
    ("Submitted", ""), (None, ""), ("LimitsExceeded", "status is 'LimitsExceeded'"),
    ("Error", "status is 'Error'"),
])
def test_a_runner_trajectorys_status_tells_how_the_run_ended(
    status: str | None, ended: str, tmp_path: Path
) -> None:
    """coop.py / solo.py keep the adapter's exit status as ``status``: ``Submitted``, the
    agent's exception's name (``LimitsExceeded``), ``Error`` when the run raised."""
    path = tmp_path / "agent1_traj.json"
    path.write_text(json.dumps(runner_traj([
        {"role": "user", "content": "task"}, reply(1, prompt=1000, cached=0, output=50)],
        status=status), indent=2))
    assert read_transcript(path=path, format_name="swe-agent").error_end == ended


def compacted_run() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A run compacted once, as DefaultAgent keeps it: calls 1-3, the summary call (4), calls
    5-6; after compaction ``messages`` = prefix + summary + the 2 kept turns + later ones."""
    prefix = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    calls = [reply(n, prompt=1000 * n, cached=500 * n, output=10 * n) for n in (1, 2, 3)]
    summary = reply(4, prompt=5000, cached=0, output=400, summary=True)
    later = [reply(n, prompt=2000, cached=1500, output=10 * n) for n in (5, 6)]
    messages = [*prefix, summary, calls[1], calls[2], *later]
    summarizer_input = [{k: v for k, v in m.items() if k != "extra"}
                        for m in [*prefix, calls[0]]]
    segments = [
        {"kind": "solver", "messages": [*prefix, *calls]},
        {"kind": "summarizer", "messages": [*summarizer_input,
                                            {"role": "user", "content": "summarize"}, summary]},
        {"kind": "solver", "messages": messages},
    ]
    full = {"info": {"model_stats": {"instance_cost": 1.0, "api_calls": 5},
                     "config": {"model": {"model_name": "anthropic/claude-sonnet-4-5"}},
                     "mini_version": "2.1.0", "exit_status": "Submitted", "submission": ""},
            "messages": messages, "trajectory_format": "mini-swe-agent-1.1",
            "segments": segments}
    return messages, full


def test_a_compacted_full_trajectory_counts_every_call_once(tmp_path: Path) -> None:
    """Calls 2 and 3 are in both solver segments and in messages, the summary call in the
    summarizer segment too; each is counted once, and none before the compaction is lost."""
    _messages, full = compacted_run()
    path = tmp_path / "agent1_full_traj.json"
    path.write_text(json.dumps(full, indent=2))
    metrics = read_transcript(path=path, format_name="swe-agent")
    prompt = 1000 + 2000 + 3000 + 5000 + 2000 + 2000
    cached = 500 + 1000 + 1500 + 0 + 1500 + 1500
    assert metrics.prompt_total == prompt and metrics.cache_read_tokens == cached
    assert metrics.completion_tokens == 10 + 20 + 30 + 400 + 50 + 60
    assert (metrics.iterations, metrics.tool_calls) == (5, 5)
    assert reference_read("swe-agent", [path])["output"] == metrics.completion_tokens


def test_a_compacted_run_trajectory_is_refused_for_the_full_one(tmp_path: Path) -> None:
    messages, _full = compacted_run()
    path = tmp_path / "agent1_traj.json"
    path.write_text(json.dumps(runner_traj(messages, steps=5), indent=2))
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="swe-agent")
    assert "was compacted" in caught.value.message and str(path) in str(caught.value)
    assert "agent1_full_traj.json" in (caught.value.hint or "")


# --- Codex: exec --json ------------------------------------------------------------------


def test_codex_exec_output_is_read_from_its_turn_usage(tmp_path: Path) -> None:
    """Without the recorder's last line the old reader found nothing at all in it."""
    bare = tmp_path / "codex.jsonl"
    bare.write_text("\n".join(line for line in lines(EXEC) if line.startswith("{")) + "\n")
    got = figures(bare, "codex")
    assert (got["uncached"], got["cache_read"], got["output"], got["tool_calls"]) == (
        65116 - 41856, 41856, 237, 3)
    metrics = read_transcript(path=bare, format_name="codex")
    assert {"iterations", "execution_time"} <= metrics.unverifiable
    assert metrics.activity is not None and metrics.activity.shell_writes


def test_codex_exec_output_without_a_completed_turn_is_refused_naming_the_rollout(
    tmp_path: Path,
) -> None:
    cut = tmp_path / "codex.jsonl"
    cut.write_text("\n".join(line for line in lines(EXEC) if "turn.completed" not in line))
    with pytest.raises(InputError) as caught:
        read_transcript(path=cut, format_name="codex")
    assert "no `turn.completed`" in caught.value.message and str(cut) in str(caught.value)
    assert "rollout-*01a0b709-0a31-7e81-90b8-c77cc867c4a0.jsonl" in (caught.value.hint or "")


# --- Claude Code: several prompts in one process -----------------------------------------

#: An excerpt of a real stream (the second prompt of one process, `--include-partial-messages
#: --replay-user-messages`): jonasthim/styr @ facefc88af488d162c7dcfbb83a3d5a2b7008cc7,
#: internal/harness/claude/testdata/04_multi_turn.jsonl, its last ten lines, unchanged.
#: Its result's `usage` is that prompt's call (2 uncached, 3 output); its `modelUsage` is the
#: process's running total over both prompts (4 uncached, 7 output: the first prompt's 2 and
#: 4 included), and `total_cost_usd` (0.8116295) is that total's `costUSD`.
PARTIAL = Path(__file__).parent / "data" / "claude_code_stream_partial_messages.jsonl"


def test_partial_message_events_and_replayed_prompts_add_nothing() -> None:
    metrics = read_transcript(path=PARTIAL, format_name="claude-code")
    assert metrics.usage_by_model == {"claude-fable-5-1": (4, 30238, 40184, 7)}
    assert (metrics.iterations, metrics.tool_calls, metrics.wall_clock_seconds) == (1, 0, 2.375)


def test_several_results_take_the_last_running_total_not_their_sum(tmp_path: Path) -> None:
    """The first prompt's result, as that process printed it before the second (the figures
    the second one's running total implies): summing both modelUsage would count the first
    prompt twice; without modelUsage (older Claude Code) each result's usage is summed."""
    second = json.loads(lines(PARTIAL)[-1])
    first = json.loads(json.dumps(second))
    first.update(result_index=0, duration_ms=2460, result="ok")
    first["usage"].update(input_tokens=2, output_tokens=4, cache_read_input_tokens=15119,
                          cache_creation_input_tokens=18037)
    first["modelUsage"]["claude-fable-5-1"].update(
        inputTokens=2, outputTokens=4, cacheReadInputTokens=15119,
        cacheCreationInputTokens=18037)
    both = tmp_path / "two-prompts.jsonl"
    both.write_text("".join(json.dumps(e) + "\n" for e in [first, *map(json.loads, lines(
        PARTIAL))]))
    got = figures(both, "claude-code")
    assert (got["uncached"], got["cache_read"], got["cache_write"], got["output"]) == (
        4, 30238, 40184, 7)
    assert got["seconds"] == 4.835 and got == reference_read("claude-code", [both])
    for event in (first, second):
        del event["modelUsage"]
    older = tmp_path / "older.jsonl"
    older.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    assert figures(older, "claude-code")["output"] == 7
    assert reference_read("claude-code", [older])["output"] == 7


def test_codex_exec_usage_is_the_threads_running_total() -> None:
    """Real captures of one thread: `codex exec` answered "pong" (5 output tokens), then
    `codex exec resume` answered "pong" again and printed 10: its usage includes the first
    run's, so a resumed run's output is the thread's total (the rollout has the same)."""
    first = figures(CORPUS / "codex/exec/01_simple_text.jsonl", "codex")
    resumed = figures(CORPUS / "codex/exec/04_resume.jsonl", "codex")
    assert (first["output"], resumed["output"]) == (5, 10)
    assert resumed["uncached"] + resumed["cache_read"] > 2 * (
        first["uncached"] + first["cache_read"])


def test_the_json_output_of_an_older_codex_exec_is_refused_naming_the_rollout(
    tmp_path: Path,
) -> None:
    """Older `codex exec --json` printed a configuration echo, then protocol events wrapped
    in `msg` (the shape other projects' parsers keep as their "old schema"); its token_count
    figures do not say whose they are, and the old reader found nothing in it at all."""
    old = tmp_path / "codex.jsonl"
    old.write_text("\n".join(json.dumps(e) for e in [
        {"model": "gpt-5", "reasoning effort": "medium", "sandbox": "workspace-write"},
        {"prompt": "add --max-length"},
        {"id": "0", "msg": {"type": "task_started"}},
        {"id": "0", "msg": {"type": "token_count", "input_tokens": 1674,
                            "cached_input_tokens": 1627, "output_tokens": 384}},
        {"id": "0", "msg": {"type": "task_complete", "last_agent_message": "Done!"}}]) + "\n")
    with pytest.raises(InputError) as caught:
        read_transcript(path=old, format_name="codex")
    assert "older Codex" in caught.value.message and str(old) in str(caught.value)
    assert "rollout-*.jsonl" in (caught.value.hint or "")


def test_a_stream_cut_mid_line_by_a_killed_run_names_the_session_file(tmp_path: Path) -> None:
    """A harness's timeout kills Claude Code mid-line: no result, so the session file."""
    cut = tmp_path / "agent1_stream.jsonl"
    text = STREAM.read_text()
    cut.write_text(text[: text.rindex('{"type":"result"') + 40])
    with pytest.raises(InputError) as caught:
        read_transcript(path=cut, format_name="claude-code")
    assert "no final `result` event" in caught.value.message
    assert "1d1e46f9-35c7-4834-b529-846d5bb82288.jsonl" in (caught.value.hint or "")


def test_a_stream_named_like_a_session_takes_no_sub_agent_files(tmp_path: Path) -> None:
    """Stored with them appended, its lines would count twice against its own result."""
    named = tmp_path / "1d1e46f9-35c7-4834-b529-846d5bb82288.jsonl"
    named.write_bytes(STREAM.read_bytes())
    beside = tmp_path / named.name.removesuffix(".jsonl") / "subagents"
    beside.mkdir(parents=True)
    (beside / "agent-a1.jsonl").write_text(lines(STREAM)[1] + "\n")
    assert subagent_files(named) == []
    assert figures(named, "claude-code") == figures(STREAM, "claude-code")


def test_the_submission_pages_timeline_counts_a_streams_replies_once() -> None:
    """The result event sums the replies shown above it: the page adds no second copy."""
    from arena_bot.site.timeline import read_timeline

    timeline = read_timeline(STREAM)
    assert [event.role for event in timeline.events] == ["assistant", "result"]
    assert timeline.tokens == 10 + 21570 + 5
    assert read_timeline(EXEC).tokens == 65116 + 237


def test_a_result_billing_less_than_its_replies_were_sent_with_contradicts_them(
        tmp_path: Path) -> None:
    """The tokens come from the result event; a reply's input-side figures are final when
    printed. A result edited down below them (a cheaper run to show) contradicts the
    transcript's own replies: a usage problem, so the run cannot be transcript-consistent.
    The real streams contradict nothing."""
    for real in (STREAM, PARTIAL):
        activity = read_transcript(path=real, format_name="claude-code").activity
        assert activity is not None and activity.contradictions == []
    events = [json.loads(line) for line in lines(STREAM)]
    events[-1]["usage"].update(cache_creation_input_tokens=2157)
    forged = tmp_path / "stream.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in events))
    activity = read_transcript(path=forged, format_name="claude-code").activity
    assert activity is not None
    problems = usage_problems(activity)
    assert any("bill 2,167 input tokens" in p and "21,580" in p for p in problems), problems
