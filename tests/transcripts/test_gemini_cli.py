"""Gemini CLI sessions (``format: gemini-cli``) read right.

The two real sessions of ``corpus/gemini-cli`` (``corpus/README.md`` says where they came
from) are Gemini CLI's one-JSON-document shape; no public session of its JSON Lines shape
(0.39 and later) was found, so that shape is tested on those real sessions written again as
Gemini CLI itself writes them when it resumes one (``ChatRecordingService.initialize``: the
metadata line, each message, then a ``$set`` of the session id), and on small synthetic
sessions built here, labelled so, for what the real files do not show (a message written
again as its usage and tool calls arrive, a checkpoint, a rewind).
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from support.transcript_reference import read as reference_read
from test_corpus import MANIFEST, figures

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript, subagent_files
from arena_bot.intake.transcripts.edits import iter_edits, replay, usage_problems
from arena_bot.intake.transcripts.metrics import TranscriptMetrics
from arena_bot.intake.transcripts.redact import store_redacted

CORPUS = Path(__file__).parent / "corpus"
#: The one-document sessions (before 0.39) of the corpus.
ENTRIES = [entry for entry in MANIFEST if entry["format"] == "gemini-cli"
           and entry["file"].endswith(".json")
           and "messages" in json.loads((CORPUS / entry["file"]).read_text())]
#: write_file then replace of lead_gemini.txt (Dec. 2025).
COPY = CORPUS / "gemini-cli" / "session-2025-12-01T21-45-5b959dae.json"
#: three write_file calls on hello.md, a delegate_to_agent sub-agent (Jan. 2026).
HELLO = CORPUS / "gemini-cli" / "session-2026-01-16T11-01-file-ops-37b7abef.json"


def read(path: Path) -> TranscriptMetrics:
    return read_transcript(path=path, format_name="gemini-cli")


def as_jsonl(document: dict[str, Any]) -> str:
    """A one-document session written as Gemini CLI 0.39+ migrates it on resume."""
    meta = {key: value for key, value in document.items() if key != "messages"}
    lines = [meta, *document["messages"], {"$set": {"sessionId": document["sessionId"]}}]
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_a_real_session_written_as_json_lines_reads_the_same(
    entry: dict[str, Any], tmp_path: Path
) -> None:
    document = json.loads((CORPUS / entry["file"]).read_text())
    lines = tmp_path / (Path(entry["file"]).name + "l")
    # Its sub-agents' documents follow, as `arena submit` stores them with the session.
    lines.write_text(as_jsonl(document) + "".join(
        as_jsonl(json.loads((CORPUS / name).read_text())) for name in entry["subagent_files"]))
    assert figures(read(lines)) == entry["expected"]
    assert reference_read("gemini-cli", [lines]) == entry["expected"]
    packed = tmp_path / (lines.name + ".gz")
    packed.write_bytes(gzip.compress(lines.read_bytes()))
    assert figures(read(packed)) == entry["expected"]


def test_tokens_are_read_as_gemini_bills_them() -> None:
    """``input`` holds ``cached``; ``thoughts`` are output: every token of ``total`` once."""
    document = json.loads(COPY.read_text())
    used = [m["tokens"] for m in document["messages"] if m.get("tokens")]
    metrics = read(COPY)
    assert metrics.prompt_total + metrics.completion_tokens == sum(t["total"] for t in used)
    assert metrics.cache_read_tokens == sum(t["cached"] for t in used) == 56538
    assert metrics.completion_tokens == sum(t["output"] + t["thoughts"] for t in used)
    assert metrics.usage_by_model == {"gemini-3-pro-image-preview": (45092, 56538, 0, 4227)}
    assert metrics.span_label == "messages 1-14"


def test_the_real_edits_replay_to_the_files_the_sessions_wrote() -> None:
    """lead_gemini.txt written whole, then one replace in it; hello.md written three times."""
    copy = read(COPY)
    assert [(e.tool, e.kind) for e in iter_edits(copy.activity)] == [
        ("write_file", "write"), ("replace", "replace")]
    name = "Documents/projects/epm-cdme/assistants/lead_gemini.txt"
    files = replay(list(iter_edits(copy.activity)), base=lambda path: None, cwd="",
                   known=lambda path: path == name)
    written = json.loads(COPY.read_text())["messages"]
    replace = next(c for m in written for c in m.get("toolCalls", []) if c["name"] == "replace")
    assert replace["args"]["new_string"] in (files[name] or "")
    hello = read(HELLO)
    files = replay(list(iter_edits(hello.activity)), base=lambda path: None, cwd="",
                   known=lambda path: False)
    last = [c for m in json.loads(HELLO.read_text())["messages"] for c in m.get("toolCalls", [])
            if c["name"] == "write_file"][-1]
    assert files == {"hello.md": last["args"]["content"]}
    assert hello.edited_files == {"hello.md"}
    assert usage_problems(copy.activity) == [] and usage_problems(hello.activity) == []


# --- synthetic sessions (built here: what the two real files do not show) ---------------

META = {"sessionId": "0f3c6a52-1111-4222-8333-944455556666", "projectHash": "ab" * 32,
        "startTime": "2026-11-20T10:00:00.000Z", "lastUpdated": "2026-11-20T10:00:00.000Z",
        "kind": "main"}


def user(number: int, second: int) -> dict[str, Any]:
    return {"id": f"u{number}", "timestamp": f"2026-11-20T10:00:{second:02d}.000Z",
            "type": "user", "content": [{"text": "Fix the bug in app.py, please."}]}


def reply(number: int, second: int, **extra: Any) -> dict[str, Any]:
    return {"id": f"g{number}", "timestamp": f"2026-11-20T10:00:{second:02d}.000Z",
            "type": "gemini", "content": "", "thoughts": [], "model": "gemini-3-pro-preview",
            **extra}


def tokens(given: int, cached: int, output: int, thoughts: int = 0) -> dict[str, int]:
    return {"input": given, "output": output, "cached": cached, "thoughts": thoughts,
            "tool": 0, "total": given + output + thoughts}


def call(name: str, number: int, second: int, status: str = "success",
         **args: Any) -> dict[str, Any]:
    return {"id": f"{name}-{number}", "name": name, "args": args, "status": status,
            "timestamp": f"2026-11-20T10:00:{second:02d}.000Z",
            "result": [{"functionResponse": {"id": f"{name}-{number}", "name": name,
                                             "response": {"output": "ok"}}}]}


def session(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "session-2026-11-20T10-00-0f3c6a52.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [META, *records]))
    return path


def test_a_message_written_again_as_its_usage_and_calls_arrive_counts_once(
    tmp_path: Path,
) -> None:
    """Synthetic: the model message is written bare, with its tokens, then with its tool call
    (as ChatRecordingService.pushMessage appends each change); a $set line in between."""
    edit = call("replace", 1, 9, file_path="/w/app.py", old_string="bug", new_string="fix")
    first = reply(1, 5)
    path = session(
        tmp_path, user(1, 1), {"$set": {"lastUpdated": "2026-11-20T10:00:01.000Z"}}, first,
        {**first, "tokens": tokens(9000, 6000, 40, 60)},
        {**first, "tokens": tokens(9000, 6000, 40, 60), "toolCalls": [
            {**edit, "status": "executing", "result": None}]},
        {**first, "tokens": tokens(9000, 6000, 40, 60), "toolCalls": [edit]},
        {**reply(2, 12), "content": "Fixed.", "tokens": tokens(9500, 9000, 5)},
    )
    metrics = read(path)
    assert figures(metrics) == {
        "uncached": 3000 + 500, "cache_read": 6000 + 9000, "cache_write": 0,
        "output": 100 + 5, "tool_calls": 1, "iterations": 2, "seconds": 11.0,
        "models": ["gemini-3-pro-preview"]}
    assert figures(metrics) == reference_read("gemini-cli", [path])
    assert [e.path for e in iter_edits(metrics.activity)] == ["/w/app.py"]
    assert (metrics.first_line, metrics.last_line) == (1, 8)


def test_a_checkpoint_adds_nothing_and_a_rewind_keeps_what_was_billed(tmp_path: Path) -> None:
    """Synthetic: a $set of messages (checkpoint) repeats two messages; a /rewind drops the
    second reply, whose response was still made and billed, and whose edit it may have
    reverted (so the edits cannot be replayed)."""
    one = {**reply(1, 5), "tokens": tokens(8000, 0, 30)}
    two = {**reply(2, 9), "tokens": tokens(8200, 7900, 20), "toolCalls": [
        call("write_file", 2, 9, file_path="app.py", content="fixed\n")]}
    path = session(tmp_path, user(1, 1), one, {"$set": {"messages": [user(1, 1), one]}},
                   two, {"$rewindTo": "g2"}, user(3, 20),
                   {**reply(3, 25), "tokens": tokens(8300, 7900, 10)})
    metrics = read(path)
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens) == (
        8000 + 300 + 400, 7900 + 7900, 60)
    assert (metrics.iterations, metrics.tool_calls, metrics.wall_clock_seconds) == (3, 1, 24.0)
    assert figures(metrics) == reference_read("gemini-cli", [path])
    assert metrics.activity is not None
    assert metrics.activity.unreplayable == [(
        6, "/rewind past file edits, which it may have reverted")]


def test_an_edit_whose_call_failed_or_was_cancelled_is_not_replayed(tmp_path: Path) -> None:
    path = session(tmp_path, user(1, 1), {**reply(1, 5), "tokens": tokens(8000, 0, 30),
                                          "toolCalls": [
        call("replace", 1, 6, "error", file_path="a.py", old_string="x", new_string="y"),
        call("write_file", 2, 6, "cancelled", file_path="b.py", content="b\n"),
        call("write_file", 3, 6, file_path="c.py", content="c\n"),
        call("replace", 4, 6, file_path="c.py", old_string="c", new_string="d",
             allow_multiple=True)]})
    metrics = read(path)
    assert metrics.activity is not None
    done = list(iter_edits(metrics.activity))
    assert [(e.path, e.kind, e.replace_all) for e in done] == [
        ("c.py", "write", False), ("c.py", "replace", True)]
    assert metrics.tool_calls == 4 and metrics.edited_files == {"a.py", "b.py", "c.py"}


def test_tool_calls_of_several_responses_in_one_message_do_not_fail_the_usage_check(
    tmp_path: Path,
) -> None:
    """Synthetic: Gemini CLI joins the tool calls of a response that has no new thought to
    the message before (one usage kept): its output count is only a lower bound."""
    big = "x" * 40_000
    path = session(tmp_path, user(1, 1), {**reply(1, 5), "tokens": tokens(9000, 0, 30),
                                          "toolCalls": [
        call("read_file", 1, 6, file_path="a.py"),
        call("write_file", 2, 30, file_path="a.py", content=big)]})
    metrics = read(path)
    assert metrics.activity is not None and usage_problems(metrics.activity) == []
    alone = read(session(tmp_path, user(1, 1), {**reply(1, 5), "tokens": tokens(9000, 0, 30),
                                                "toolCalls": [
        call("write_file", 2, 30, file_path="a.py", content=big)]}))
    assert alone.activity is not None
    assert "output tokens cannot hold" in usage_problems(alone.activity)[0]


# --- malformed input --------------------------------------------------------------------

def refused(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        read(path)
    assert str(path) in str(caught.value)
    return caught.value


def test_a_session_cut_off_names_file_and_line(tmp_path: Path) -> None:
    lines = as_jsonl(json.loads(HELLO.read_text())).splitlines(keepends=True)
    cut = tmp_path / "session.jsonl"
    cut.write_text("".join(lines[:6]) + lines[6][:50])
    error = refused(cut)
    assert error.line == 7 and "truncated" in error.message
    document = tmp_path / "session.json"
    document.write_text(HELLO.read_text()[:30_000])
    error = refused(document)
    assert "truncated" in error.message and error.line is not None and error.line > 100


def test_a_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    lines = as_jsonl(json.loads(HELLO.read_text())).splitlines(keepends=True)
    bad = tmp_path / "session.jsonl"
    bad.write_text("".join(lines[:3]) + "{'id': 'not json'}\n" + "".join(lines[3:]))
    error = refused(bad)
    assert error.line == 4 and "invalid JSON" in error.message
    document = tmp_path / "session.json"
    document.write_text(HELLO.read_text().replace('"type": "gemini",', '"type": gemini,', 1))
    assert "invalid JSON" in refused(document).message


@pytest.mark.parametrize(("text", "says"), [
    ("", "empty"),
    ("\n\n", "empty"),
    ("[\n  {\"id\": \"m1\"}\n]\n", "JSON array"),
    ("{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\"\n}\n", "no message"),
    ("{\n  \"messages\": [\"hello\"]\n}\n", "message 1 of the session is not a JSON object"),
    ("{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
     "no Gemini CLI message"),
    ("{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{}}\n",
     "no Gemini CLI message"),
    ("{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00Z\","
     "\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n", "no Gemini CLI message"),
    ("{\"kind\":\"MessageEvent\",\"id\":\"e1\",\"timestamp\":\"2026-01-01T00:00:00\","
     "\"source\":\"user\"}\n", "no Gemini CLI message"),
    ("[1, 2]\n", "JSON object"),
])
def test_what_is_not_a_gemini_cli_session_is_refused_by_name(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "session.json"
    path.write_text(text)
    assert says in refused(path).message


def test_odd_field_types_count_as_nothing(tmp_path: Path) -> None:
    path = session(tmp_path, user(1, 1), {**reply(1, 5), "tokens": {
        "input": "9000", "output": -3, "cached": float("nan"), "thoughts": None}},
                   {**reply(2, 6), "tokens": [1, 2], "toolCalls": {"id": "x"}},
                   {**reply(3, 7), "toolCalls": [None, {"name": 5, "args": []}]},
                   {"id": 7, "type": "gemini"})
    metrics = read(path)
    assert (metrics.prompt_total, metrics.completion_tokens, metrics.iterations) == (0, 0, 1)
    assert metrics.tool_calls == 1


# --- sub-agents (synthetic: no public session holds one) -----------------------------------

def with_subagent(tmp_path: Path) -> tuple[Path, Path]:
    """A session whose invoke_agent call ran sub-agent "a7c2", and that sub-agent's file where
    Gemini CLI 0.39+ writes it: chats/<session id>/<agent id>.jsonl."""
    run = {**call("invoke_agent", 1, 30, agent_name="codebase_investigator"), "agentId": "a7c2"}
    main = session(tmp_path, user(1, 1), {**reply(1, 5), "tokens": tokens(9000, 0, 30),
                                          "toolCalls": [run]},
                   {**reply(2, 40), "content": "Done.", "tokens": tokens(9400, 9000, 8)})
    folder = tmp_path / META["sessionId"]
    folder.mkdir()
    sub = folder / "a7c2.jsonl"
    sub.write_text("".join(json.dumps(r) + "\n" for r in [
        {"sessionId": "a7c2", "projectHash": "ab" * 32, "startTime": "2026-11-20T10:00:06Z",
         "kind": "subagent", "directories": ["/w"]},
        {"id": "s1", "timestamp": "2026-11-20T10:00:07.000Z", "type": "user",
         "content": [{"text": "Investigate."}]},
        {"id": "s2", "timestamp": "2026-11-20T10:00:20.000Z", "type": "gemini", "content": "",
         "model": "gemini-3-flash-preview", "tokens": tokens(5000, 1000, 200, 50),
         "toolCalls": [call("write_file", 9, 21, file_path="/w/notes.md", content="n\n")]},
        {"$rewindTo": "s1"},
    ]))
    return main, sub


def test_a_sub_agent_file_beside_the_session_is_counted_and_its_edits_are_not_replayed(
    tmp_path: Path,
) -> None:
    main, sub = with_subagent(tmp_path)
    assert subagent_files(main, "gemini-cli") == [sub]
    metrics = read(main)
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens) == (
        9000 + 400 + 4000, 9000 + 1000, 38 + 250)
    assert (metrics.iterations, metrics.tool_calls) == (3, 2)
    assert metrics.usage_by_model["gemini-3-flash-preview"] == (4000, 1000, 0, 250)
    assert metrics.unread_subagents == set()
    assert metrics.span_label == f"{main.name} and 1 sub-agent file"
    assert metrics.activity is not None and metrics.activity.unreplayable == []
    assert [e.path for e in iter_edits(metrics.activity)] == []
    assert len(metrics.activity.requests) == 2
    assert metrics.edited_files == {"/w/notes.md"}  # what the sub-agent edited
    stored, _ = store_redacted(source=main, folder=tmp_path, stem="run-1-transcript",
                               extra=[sub])
    again = read(stored)
    assert figures(again) == figures(metrics) and again.unread_subagents == set()
    assert again.activity is not None and len(again.activity.requests) == 2


def test_a_session_copied_without_its_sub_agent_folder_names_the_sub_agent(
    tmp_path: Path,
) -> None:
    main, sub = with_subagent(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    sub.parent.rename(elsewhere)
    assert read(main).unread_subagents == {"a7c2"}
    (tmp_path / META["sessionId"]).symlink_to(elsewhere)  # a link is never followed
    assert subagent_files(main, "gemini-cli") == []
    assert read(main).unread_subagents == {"a7c2"}


@pytest.mark.parametrize("shape", ["jsonl", "document"])
def test_an_enormous_session_streams_in_bounded_memory(tmp_path: Path, shape: str) -> None:
    """A 40 MB session (synthetic: 4,000 responses, each with a 5 kB tool result; in JSON
    Lines each message written twice, as its usage and then its call arrive) is read with a
    peak far below its size."""
    path = tmp_path / f"big.{shape}"
    with path.open("w") as handle:
        handle.write(json.dumps(META) + "\n" if shape == "jsonl" else
                     json.dumps(META, indent=2)[:-2] + ',\n  "messages": [\n')
        for number in range(4_000):
            second = number % 60
            bare = {**reply(number, second), "tokens": tokens(9000 + number, 8000, 30)}
            whole = {**bare, "toolCalls": [{**call("read_file", number, second, file_path="a"),
                                            "resultDisplay": "x" * 5000,
                                            "result": [{"text": "y" * 5000}]}]}
            if shape == "jsonl":
                handle.write(json.dumps(bare) + "\n" + json.dumps(whole) + "\n")
            else:
                handle.write(("" if number == 0 else ",\n") + json.dumps(whole, indent=2))
        if shape == "document":
            handle.write("\n  ]\n}\n")
    assert path.stat().st_size > 35_000_000
    tracemalloc.start()
    try:
        metrics = read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (metrics.iterations, metrics.tool_calls) == (4_000, 4_000)
    assert metrics.cache_read_tokens == 4_000 * 8000
    assert peak < 5_000_000


def test_the_cli_s_own_notes_are_not_taken_for_conversation(tmp_path: Path) -> None:
    """Synthetic: an info message (e.g. the CLI's note on a switched model) is shown to the
    user, not sent to the model: it does not make the next request's input look short."""
    note = {"id": "i1", "timestamp": "2026-11-20T10:00:02.000Z", "type": "info",
            "content": "x" * 80_000}
    metrics = read(session(tmp_path, user(1, 1), note,
                           {**reply(1, 5), "content": "Done.", "tokens": tokens(9000, 0, 3)}))
    assert metrics.activity is not None and usage_problems(metrics.activity) == []
    assert metrics.activity.requests[0].context_chars < 100
