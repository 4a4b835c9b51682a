"""Claude Code session transcripts (``~/.claude/projects/<dir>/<session>.jsonl``).

Each line is one event: ``type`` ``user``/``assistant``/``summary``/..., with ``uuid``,
``timestamp``, ``isSidechain`` (sub-agent turns, which are counted too) and for assistant
lines a ``message`` in Anthropic Messages API shape (``id``, ``model``, ``content`` blocks,
``usage``). A streamed reply is written as one line per content block, each repeating the same
``message.id`` and the same ``usage``: usage is counted once per message id. A resumed session
replays earlier lines with the same ``uuid``: those are skipped so history (its usage, its
edits) is not doubled.

Claude Code run headless (``claude -p --output-format stream-json --verbose``, as benchmark
harnesses run it) writes no session file of its own choosing but prints events on stdout:
the same ``assistant``/``user`` lines (``session_id``, ``parent_tool_use_id`` for a
sub-agent's turns, which are printed inline) plus ``system`` and, at the end of each prompt,
a ``result`` event with the run's totals. Every content block of a reply is printed as soon as
it is complete, so the ``usage`` those lines carry has a partial ``output_tokens`` (1 to 4 in
real streams, never the final count): :func:`read_claude_stream` takes the tokens from the
last ``result`` event's ``modelUsage`` (Claude Code's per-model running total for the process,
sub-agents and side calls included: what ``total_cost_usd`` bills) and the time from the
results' ``duration_ms`` (each prompt's). A result's ``usage`` covers only its own prompt's
main-agent calls (a real 2.1.276 process of two prompts: the second result's ``usage`` 2 input
and 3 output tokens, its ``modelUsage`` 4 and 7; a 2.1.4 run: ``usage`` 424 output tokens,
``modelUsage`` 765, the figure its ``costUSD`` prices), so it is summed over the results only
where there is no ``modelUsage`` (older versions). ``--output-format json`` prints only that
``result`` event (one JSON document; ``--verbose`` makes it a JSON array of every event) and
is read the same way. A stream without a ``result`` (the run was cut off) is refused: its
output counts are the partial ones; so is a result alone that is not the run's first
(``result_index`` above 0: 2.1 runs another turn when a background sub-agent finishes, and
``--output-format json`` prints only that last turn's result). A sub-agent's last reply is
not printed (but a 2.1 background sub-agent's); its Task result carries its usage
(``tool_use_result``, 2.0 and 2.1), from which it is counted. The main agent's models come
first; the others served only sub-agents, warm-ups or side calls (``helper_models``: a
submission may leave them out). Lines that are not JSON objects are skipped in a stream
(harnesses capture stderr with stdout, ``2>&1 | tee``).

Claude Code 2.x writes each sub-agent's turns to a file of its own, not to the session file:
2.1 and later in ``<session>/subagents/agent-<id>.jsonl`` (deeper for workflows) beside
``<session>.jsonl``; 2.0 in ``agent-<id>.jsonl`` beside it, tied to the session by its
``sessionId``. :func:`subagent_files` finds them and :func:`read_claude_code` counts them with
the session (``arena submit`` stores them appended to the session file, which is how Claude
Code 1.x kept sub-agent turns, so the stored transcript reads the same). The activity (edits
and requests, :class:`_Activity`) is read from the session file alone.

A session whose main agent was interrupted (Esc, Ctrl-C, SIGINT) gets the user line
``[Request interrupted by user]`` (2.1: the SIGINT run of 2.1.328 and 2.1.332; 2.0.77 wrote
none); with no reply of the main agent after it, a headless run (``claude -p``: its lines'
``entrypoint`` is ``sdk-cli``) ended so, unfinished: its error end
(:attr:`TranscriptMetrics.error_end`), as its stream's aborted ``result`` is. Not an
interactive session's (``entrypoint`` ``cli``): there a person ends the last request with
Esc as often as not once the work is done, and the file does not tell which.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import Activity, Edit, Request, chars_of, note_shell
from arena_bot.intake.transcripts.jsonstream import iter_objects
from arena_bot.intake.transcripts.metrics import (
    Clock,
    TranscriptMetrics,
    as_int,
    cooperbench_run_file,
    decode_line,
    open_transcript,
    printed_objects,
    read_json_lines,
)

#: How many lines of a 2.0 ``agent-*.jsonl`` are looked at for its ``sessionId``.
SESSION_ID_LINES = 20

EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}

#: The user line Claude Code writes into the session when a reply is interrupted (Esc,
#: Ctrl-C, SIGINT; ``... for tool use]`` at a tool's prompt).
INTERRUPTED = "[Request interrupted by user"


def _session_id(path: Path) -> str | None:
    """The first ``sessionId`` among a file's first lines (None when there is none)."""
    with open_transcript(path) as handle:
        for _ in range(SESSION_ID_LINES):
            raw = handle.readline(1024 * 1024)
            if not raw:
                return None
            try:
                value = json.loads(decode_line(raw)[0])
            except (ValueError, RecursionError):  # not JSON, or a number past the digit limit
                continue
            if isinstance(value, dict) and isinstance(value.get("sessionId"), str):
                return str(value["sessionId"])
    return None


def _agent_files(folder: Path, *, deep: bool) -> list[Path]:
    """``agent-*.jsonl`` (or ``.jsonl.gz``) files in ``folder`` (and below when ``deep``);
    symbolic links (to a file or on the way to one) are never followed."""
    if folder.is_symlink() or not folder.is_dir():
        return []
    found: list[Path] = []
    for pattern in ("agent-*.jsonl", "agent-*.jsonl.gz"):
        for path in folder.rglob(pattern) if deep else folder.glob(pattern):
            inside = path.relative_to(folder).parents
            if path.is_symlink() or any((folder / part).is_symlink() for part in inside):
                continue
            found.append(path)
    return found


def subagent_files(path: Path) -> list[Path]:
    """The sub-agent transcripts Claude Code 2.x wrote for the session in ``path``, sorted.

    ``<stem>/subagents/**/agent-*.jsonl`` (2.1+) and, for 2.0, ``agent-*.jsonl`` files beside
    ``path`` whose ``sessionId`` is the session's. A sub-agent file itself has none, nor has
    a headless run's output (its result already counts its sub-agents).
    """
    stem = path.name.removesuffix(".gz").removesuffix(".jsonl")
    if stem.startswith("agent-") or not path.is_file() or _shape(path) != "session":
        return []
    session_folder = path.parent / stem
    found = [] if session_folder.is_symlink() else sorted(
        _agent_files(session_folder / "subagents", deep=True))
    siblings = sorted(_agent_files(path.parent, deep=False))
    if siblings:
        session = _session_id(path) or stem
        found.extend(p for p in siblings if p.is_file() and _session_id(p) == session)
    return [p for p in found if p.is_file()]


def _events(paths: list[Path]) -> Iterator[tuple[int, int, dict[str, Any]]]:
    for index, path in enumerate(paths):
        for number, event in read_json_lines(path):
            yield index, number, event


def read_claude_code(path: Path) -> TranscriptMetrics:
    """Recompute the metrics of one Claude Code session with its sub-agent files, or of
    one headless run's printed output (:func:`read_claude_stream`)."""
    shape = _shape(path)
    if shape == "session":
        return read_claude_code_files([path, *subagent_files(path)])
    if shape == "text":
        raise InputError(
            f"no JSON line in this file's first {SHAPE_LINES} lines: it looks like the text "
            "`claude -p` prints (--output-format text, the default), which has no usage",
            path=path,
            hint="pass the session file Claude Code wrote for the run "
            "(~/.claude/projects/<dir>/<session>.jsonl) or the output of `claude -p "
            "--output-format stream-json --verbose`, with --format claude-code",
        )
    return read_claude_stream(path, shape)


#: How many lines are looked at to tell a session file from a headless run's output.
SHAPE_LINES = 50


def _shape(path: Path) -> str:
    """``session`` (a session file), ``stream`` (stream-json lines), ``array`` (``--output-format
    json --verbose``: one JSON array), ``document`` (one JSON object over several lines) or
    ``text`` (no JSON in the lines looked at: what ``claude -p`` prints by default).

    Stream events carry ``session_id`` (session lines ``sessionId``); ``--output-format
    json`` prints one ``result`` event. Lines before the first JSON one (stderr captured with
    stdout) are passed over.
    """
    printed = False  # a line that is not JSON was seen
    with open_transcript(path) as handle:
        for _ in range(SHAPE_LINES):
            raw = handle.readline(1024 * 1024)
            if not raw:
                break
            text = decode_line(raw)[0].strip()
            if text.startswith("["):
                return "array"
            if not text.startswith("{"):
                printed = printed or bool(text)
                continue
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):  # the reader names the line
                return "document" if text == "{" else "session"
            if isinstance(value, dict) and (
                    "session_id" in value or value.get("type") == "result"):
                return "stream"
            if isinstance(value, dict) and cooperbench_run_file(path, set(value)) is not None:
                return "document"  # refused as such by read_claude_stream
            return "session"
    return "text" if printed else "session"


def _usage(usage: Mapping[str, Any]) -> dict[str, int]:
    return {
        "input": as_int(usage.get("input_tokens")),
        "output": as_int(usage.get("output_tokens")),
        "read": as_int(usage.get("cache_read_input_tokens")),
        "write": as_int(usage.get("cache_creation_input_tokens")),
    }


def _chain(record: Mapping[str, Any]) -> str:
    if record.get("isSidechain"):
        return "side:" + str(record.get("agentId") or record.get("sessionId") or "")
    if record.get("parent_tool_use_id"):  # a sub-agent's turn in a headless stream
        return "side:" + str(record["parent_tool_use_id"])
    return "main"


def _edits(name: str, data: Mapping[str, Any], where: int) -> list[Edit]:
    path = str(data.get("file_path", ""))
    if name == "Write":
        return [Edit(where, name, path, "write", new=str(data.get("content", "")))]
    if name not in ("Edit", "MultiEdit"):
        return []
    items = [data] if name == "Edit" else data.get("edits")
    return [
        Edit(where, name, path, "replace", old=str(item.get("old_string", "")),
             new=str(item.get("new_string", "")), replace_all=bool(item.get("replace_all", False)))
        for item in (items if isinstance(items, list) else []) if isinstance(item, dict)
    ]


class _Activity:
    """The session file's :class:`Activity` (sub-agent files are figures only).

    An API response written as several lines (one per content block, each repeating the
    message's usage) is one request. Claude Code writes each block's line when the block is
    complete, with the usage known at that moment: input and cache figures are final from
    the start, ``output_tokens`` only grows (often 1-8 on early blocks). A request's output
    is the largest its lines show; it is the final count only when a line carries the
    response's ``stop_reason`` (written with the final usage), otherwise a lower bound
    (``output_final`` false: real sessions of 2.0 and 2.1 leave a third to half of their
    responses so, some with 3 output tokens for a 20 kB reply). Sub-agent turns
    (``isSidechain``) are their own conversation. A tool call whose result says
    ``is_error`` changed nothing.
    """

    def __init__(self) -> None:
        self.activity = Activity(format_name="claude-code")
        self.chains: dict[str, int] = {}  # chain -> characters of its conversation so far
        self.seen: dict[str, int] = {}  # message id -> index in requests
        self.pending: dict[str, list[int]] = {}  # tool_use id -> indices in activity.edits
        self.calls: dict[str, int] = {}  # tool_use id -> line, until its result is seen
        self.known: dict[str, set[str]] = {}  # chain -> files read or written in it

    def see(self, number: int, record: dict[str, Any], message_id: str) -> None:
        activity, chain = self.activity, _chain(record)
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            self.chains[chain] = 0  # the conversation was replaced by its summary
            return
        if record.get("type") not in ("user", "assistant"):
            return
        activity.cwd = activity.cwd or str(record.get("cwd") or "")
        message = record.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        chars = chars_of(content)
        if record["type"] == "assistant":
            self._reply(number, chain, message, message_id, chars)
        for block in blocks:
            if record["type"] == "assistant" and block.get("type") == "tool_use":
                self._tool_use(number, chain, block)
            elif record["type"] == "user" and block.get("type") == "tool_result":
                self.calls.pop(str(block.get("tool_use_id")), None)
                if block.get("is_error") is True:
                    activity.failed.extend(self.pending.get(str(block.get("tool_use_id")), []))
        self.chains[chain] = self.chains.get(chain, 0) + chars

    def _reply(self, number: int, chain: str, message: dict[str, Any], message_id: str,
               chars: int) -> None:
        usage = message.get("usage")
        final = message.get("stop_reason") is not None
        if isinstance(usage, dict) and message_id not in self.seen and message.get(
                "model") != "<synthetic>":
            figures = _usage(usage)
            self.seen[message_id] = len(self.activity.requests)
            self.activity.requests.append(Request(
                where=number, input_tokens=figures["input"] + figures["read"] + figures["write"],
                cache_read=figures["read"], output_tokens=figures["output"],
                context_chars=self.chains.get(chain, 0), output_chars=chars, output_final=final,
            ))
        elif message_id in self.seen:
            output = _usage(usage)["output"] if isinstance(usage, dict) else 0
            self.activity.requests[self.seen[message_id]].grow(chars, output, final=final)

    def _tool_use(self, number: int, chain: str, block: dict[str, Any]) -> None:
        name = str(block.get("name", ""))
        data = block.get("input") if isinstance(block.get("input"), dict) else {}
        assert isinstance(data, dict)
        self.calls[str(block.get("id"))] = number
        if name == "Bash":
            note_shell(self.activity, number, str(data.get("command", "")))
        seen_files = self.known.setdefault(chain, set())
        made = [replace(e, read_before=e.path in seen_files) for e in _edits(name, data, number)]
        if name in ("Read", "Write", "Edit", "MultiEdit"):
            seen_files.add(str(data.get("file_path", "")))
        if made:
            edits = self.activity.edits
            self.pending[str(block.get("id"))] = list(range(len(edits), len(edits) + len(made)))
            edits.extend(made)


def _interruption(event: Mapping[str, Any]) -> bool:
    """A user line of the main agent saying its reply was interrupted (:data:`INTERRUPTED`)."""
    message = event.get("message")
    if event.get("type") != "user" or event.get("isSidechain") or not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return content.startswith(INTERRUPTED)
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "text"
        and str(block.get("text", "")).startswith(INTERRUPTED) for block in content)


def read_claude_code_files(paths: list[Path]) -> TranscriptMetrics:
    """Recompute the metrics of a session file (first) and its sub-agent files, together."""
    metrics = TranscriptMetrics()
    session = _Activity()
    clock = Clock()
    seen_uuids: set[str] = set()
    usage_by_message: dict[str, dict[str, int]] = {}
    model_of_message: dict[str, str] = {}
    tool_ids: set[str] = set()
    named_agents: set[str] = set()
    read_agents: set[str] = set()
    main_models: set[str] = set()
    final: dict[str, bool] = {}  # message id -> a line of it carries its stop_reason
    interrupted = 0  # the session file's line saying the main agent was interrupted, if no
    # reply of the main agent came after it
    interactive = False  # a line of the session file says it was a person's (entrypoint cli)
    for index, number, event in _events(paths):
        message = event.get("message")
        message = message if isinstance(message, dict) else None
        message_id = str((message or {}).get("id") or f"line-{index}-{number}")
        uuid = event.get("uuid")
        if isinstance(uuid, str):
            if uuid in seen_uuids:  # history replayed by a resumed session
                continue
            seen_uuids.add(uuid)
        if index == 0:
            metrics.see_line(number)
            session.see(number, event, message_id)
            interactive = interactive or event.get("entrypoint") == "cli"
            if _interruption(event):
                interrupted = number
            elif (event.get("type") == "assistant" and not event.get("isSidechain")
                  and (message or {}).get("model") != "<synthetic>"):
                interrupted = 0
        result = event.get("toolUseResult")
        if isinstance(result, dict) and isinstance(result.get("agentId"), str):
            named_agents.add(result["agentId"])
        if event.get("isSidechain") and isinstance(event.get("agentId"), str):
            read_agents.add(event["agentId"])
        clock.see(event.get("timestamp"))
        if event.get("type") != "assistant" or message is None:
            continue
        if message.get("model") != "<synthetic>":
            metrics.add_model(message.get("model"))
            if index == 0 and not event.get("isSidechain") and isinstance(
                    message.get("model"), str):
                main_models.add(message["model"])
        if isinstance(message.get("model"), str):
            model_of_message.setdefault(message_id, message["model"])
        # Every content block of a streamed message repeats the usage, later blocks with the
        # final figures: keep the largest, count the message once.
        usage = message.get("usage")
        figures = _usage(usage) if isinstance(usage, dict) else {}
        final.setdefault(message_id, False)
        final[message_id] |= message.get("stop_reason") is not None
        previous = usage_by_message.get(message_id, {})
        usage_by_message[message_id] = {
            key: max(value, previous.get(key, 0)) for key, value in figures.items()} or previous
        _tool_calls(metrics, message, message_id, tool_ids)
    for message_id, figures in usage_by_message.items():
        metrics.count(model_of_message.get(message_id), uncached=figures.get("input", 0),
                      read=figures.get("read", 0), write=figures.get("write", 0),
                      output=figures.get("output", 0))
    _main_models_first(metrics, main_models)
    partial = sum(1 for message_id in usage_by_message if not final.get(message_id))
    if partial:
        metrics.notes.append(
            f"tokens.completion is a lower bound: {partial} of {len(usage_by_message)} replies "
            "show no final output count (Claude Code writes each content block's line when "
            "the block ends, and up to 2.1.39 at least often before the reply's last count); "
            "the `result` of `claude -p --output-format stream-json --verbose` has the final "
            "counts")
    metrics.iterations = len(usage_by_message)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.unread_subagents = named_agents - read_agents
    session.activity.unanswered = sorted(session.calls.values())
    metrics.activity = session.activity
    if interrupted and not interactive:
        metrics.error_end = (f"Claude Code's session ends with `{INTERRUPTED}]` (line "
                             f"{interrupted}): no reply after it")
    if len(paths) > 1:
        metrics.span_label = (f"{paths[0].name} and {len(paths) - 1} sub-agent file"
                              f"{'s' if len(paths) > 2 else ''}")
    return metrics


def _stream_events(path: Path, shape: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line or item number, event)`` of a headless run's output. In a stream, a line
    that is not a JSON object (stderr captured with stdout) is passed over; a line that
    starts like one but does not parse is refused, naming it."""
    if shape in ("array", "document"):
        prefix = "item" if shape == "array" else ""
        for number, (_prefix, value) in enumerate(iter_objects(path, frozenset({prefix})), 1):
            if not isinstance(value, dict):
                raise InputError(
                    f"expected a JSON object for each event (item {number} is not one)",
                    path=path, hint="check --format: this is not Claude Code's output",
                )
            yield number, value
        return
    seen = False
    for number, value in printed_objects(
            path, hint="pass the run's output exactly as Claude Code printed it",
            cut_off_ends=True):
        seen = True
        yield number, value
    if not seen:
        raise InputError(
            "no JSON event in this file", path=path,
            hint="pass the stdout of `claude -p --output-format stream-json --verbose` or a "
            "session file (~/.claude/projects/<dir>/<session>.jsonl)",
        )


def _result_usage(result: Mapping[str, Any]) -> dict[str, tuple[int, int, int, int]]:
    """A ``result`` event's usage per model: ``modelUsage`` (camelCase figures) when it has
    any, else ``usage`` under the empty name. (uncached, cache read, cache write, output)."""
    by_model = result.get("modelUsage")
    out: dict[str, tuple[int, int, int, int]] = {}
    if isinstance(by_model, dict):
        for model, figures in by_model.items():
            if isinstance(figures, dict):
                out[str(model)] = (
                    as_int(figures.get("inputTokens")), as_int(figures.get("cacheReadInputTokens")),
                    as_int(figures.get("cacheCreationInputTokens")),
                    as_int(figures.get("outputTokens")))
    if out:
        return out
    usage = result.get("usage")
    if not isinstance(usage, dict):
        return {}
    figures = _usage(usage)
    return {"": (figures["input"], figures["read"], figures["write"], figures["output"])}


def read_claude_stream(path: Path, shape: str = "stream") -> TranscriptMetrics:
    """Recompute the metrics of a headless Claude Code run from what it printed.

    Tokens are the last ``result`` event's ``modelUsage`` (each model priced at its own
    rates), or every result's ``usage`` summed where there is none; time is the results'
    ``duration_ms`` summed; iterations are the distinct ``message.id`` of the assistant lines
    (the main agent's and its sub-agents'), tool calls their distinct ``tool_use`` ids. The
    result alone (``--output-format json``) gives iterations as its ``num_turns`` and no tool
    calls (left unchecked). A last result with ``is_error`` (an interrupted run's
    ``error_during_execution``, ``error_max_turns``) is the run's error end.
    """
    metrics = TranscriptMetrics()
    session = _Activity()
    results: list[dict[str, Any]] = []
    messages: set[str] = set()
    tool_ids: set[str] = set()
    init_model: str | None = None
    main_models: set[str] = set()
    #: (Task call, input-side figures) of the sub-agents' printed replies, and of each
    #: sub-agent's last reply as its Task result reports it
    printed: set[tuple[str, int, int, int]] = set()
    last_replies: set[tuple[str, int, int, int]] = set()
    session_id = ""
    #: message id -> (a main-agent reply, its input-side tokens: uncached + cache read/write)
    sent: dict[str, tuple[bool, int]] = {}
    for number, event in _stream_events(path, shape):
        metrics.see_line(number)
        refused = cooperbench_run_file(path, set(event)) if shape == "document" else None
        if refused is not None:
            raise refused
        kind = event.get("type")
        session_id = session_id or str(event.get("session_id") or "")
        if kind == "result":
            results.append(event)
            continue
        if kind == "system" and event.get("subtype") == "init":
            # The run's working directory: edits name absolute paths under it.
            session.activity.cwd = session.activity.cwd or str(event.get("cwd") or "")
            if isinstance(event.get("model"), str):
                init_model = init_model or event["model"]
        message = event.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue
        message_id = str(message.get("id") or f"line-{number}")
        session.see(number, event, message_id)
        if kind != "assistant":
            _subagent_last_reply(event, last_replies)
            continue
        messages.add(message_id)
        if isinstance(message.get("usage"), dict) and event.get("parent_tool_use_id"):
            printed.add((str(event["parent_tool_use_id"]), *_inputs(message["usage"])))
        if message.get("model") != "<synthetic>":
            metrics.add_model(message.get("model"))
            if _chain(event) == "main" and isinstance(message.get("model"), str):
                main_models.add(message["model"])
        _tool_calls(metrics, message, message_id, tool_ids)
        if isinstance(message.get("usage"), dict):
            figures = _usage(message["usage"])
            tokens = figures["input"] + figures["read"] + figures["write"]
            sent[message_id] = (_chain(event) == "main",
                                max(tokens, sent.get(message_id, (True, 0))[1]))
    where = (f"~/.claude/projects/<dir>/{session_id}.jsonl" if session_id
             else "~/.claude/projects/<dir>/<session>.jsonl")
    if not results:
        raise InputError(
            "this Claude Code output has no final `result` event (the run was cut off?): the "
            "usage its replies carry was printed mid-stream, with partial output counts",
            path=path,
            hint=f"pass the session file Claude Code wrote for the run, {where} (CooperBench "
            "keeps it as <agent>_session.jsonl), with --format claude-code",
        )
    first = min((as_int(r.get("result_index")) for r in results), default=0)
    if first > 0 and not messages:  # the result alone, of a later turn
        raise InputError(
            f"this Claude Code output holds result {first + 1} of the run but not the "
            f"result{'s' if first > 1 else ''} before it (`--output-format json` prints only "
            "the last; Claude Code 2.1 answers again when a background sub-agent finishes): "
            "its time and turns are that last turn's alone",
            path=path,
            hint=f"pass the session file Claude Code wrote for the run, {where}, or the run's "
            "`claude -p --output-format stream-json --verbose` output, with --format claude-code",
        )
    usage = _stream_usage(results)
    # The replies' input-side figures are final when printed (only their output counts are
    # partial): the results, which bill every call, cannot be below them. ``usage`` alone
    # (no ``modelUsage``) bills the main agent's calls only.
    shown = sum(tokens for main, tokens in sent.values() if main or "" not in usage)
    billed = sum(uncached + read + write for uncached, read, write, _ in usage.values())
    if billed < shown:
        session.activity.contradictions.append(
            f"the result event{'s' if len(results) > 1 else ''} bill {billed:,} input tokens "
            f"(uncached and cached), fewer than the {shown:,} its replies were sent with")
    for model, (uncached, read, write, output) in usage.items():
        metrics.add_model(model or None)
        metrics.count(model or (metrics.models[0] if len(metrics.models) == 1 else init_model),
                      uncached=uncached, read=read, write=write, output=output)
    if not metrics.models:
        metrics.add_model(init_model)
    if not main_models and len(usage) > 1:
        # The result alone names no model per call: the one billed most did the main work.
        main_models = {max(usage, key=lambda model: sum(usage[model]))}
    _main_models_first(metrics, main_models)
    # A sub-agent's last reply (its report) is not printed (a 2.1 background one's is); its
    # Task result carries that reply's usage, so it counts as a reply of its own unless
    # printed.
    metrics.iterations = len(messages) + len(last_replies - printed)
    metrics.tool_calls = len(tool_ids)
    if not messages:  # --output-format json: the result alone, no reply to count
        metrics.iterations = sum(as_int(result.get("num_turns")) for result in results)
        metrics.unverifiable.add("tool_calls")
    metrics.wall_clock_seconds = sum(
        as_int(result.get("duration_ms")) for result in results) / 1000
    session.activity.unanswered = sorted(session.calls.values())
    metrics.activity = session.activity
    last = results[-1]
    if last.get("is_error") is True:
        reasons = dict.fromkeys(str(last[key]) for key in ("subtype", "terminal_reason")
                                if isinstance(last.get(key), str) and last[key] != "success")
        metrics.error_end = "Claude Code's last `result` has is_error" + (
            f" ({', '.join(reasons)})" if reasons else "")
    metrics.span_label = (f"{len(results)} result event{'s' if len(results) > 1 else ''} "
                          f"and lines {metrics.first_line}-{metrics.last_line}")
    return metrics


def _inputs(usage: Mapping[str, Any]) -> tuple[int, int, int]:
    """A reply's input-side figures (uncached, cache read, cache write): final as soon as
    the reply starts, and different for every request of a conversation."""
    figures = _usage(usage)
    return figures["input"], figures["read"], figures["write"]


def _subagent_last_reply(event: Mapping[str, Any],
                         found: set[tuple[str, int, int, int]]) -> None:
    """Note the last reply of a sub-agent whose Task result ``event`` reports its usage
    (``tool_use_result`` with ``agentId`` and ``usage``, Claude Code 2.0 and 2.1)."""
    result = event.get("tool_use_result")
    message = event.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not (isinstance(result, dict) and isinstance(result.get("agentId"), str)
            and isinstance(result.get("usage"), dict) and isinstance(content, list)):
        return
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            found.add((str(block.get("tool_use_id")), *_inputs(result["usage"])))


def _main_models_first(metrics: TranscriptMetrics, main: set[str]) -> None:
    """Put the main agent's models first (``arena submit`` names a submission after the
    first) and mark the others as helpers (sub-agents, warm-ups, side calls)."""
    if not main:
        return
    metrics.models = ([m for m in metrics.models if m in main]
                      + [m for m in metrics.models if m not in main])
    metrics.helper_models = {m for m in metrics.models if m not in main}


def _stream_usage(results: Iterable[dict[str, Any]]) -> dict[str, tuple[int, int, int, int]]:
    """The run's usage per model: the last ``result`` with ``modelUsage`` (a running total),
    else every result's ``usage`` summed."""
    listed = list(results)
    for result in reversed(listed):
        named = _result_usage(result)
        if named and "" not in named:
            return named
    total: dict[str, tuple[int, int, int, int]] = {}
    for result in listed:
        for model, (uncached, read, write, output) in _result_usage(result).items():
            was = total.get(model, (0, 0, 0, 0))
            total[model] = (was[0] + uncached, was[1] + read, was[2] + write, was[3] + output)
    return total


def _tool_calls(metrics: TranscriptMetrics, message: Mapping[str, Any], message_id: str,
                tool_ids: set[str]) -> None:
    """Count ``message``'s tool_use blocks (by id) and note the files its edit tools name."""
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        tool_ids.add(str(block.get("id") or f"{message_id}-{len(tool_ids)}"))
        data = block.get("input")
        target = isinstance(data, dict) and (data.get("file_path") or data.get("notebook_path"))
        name = block.get("name")
        if isinstance(name, str) and name in EDIT_TOOLS and isinstance(target, str) and target:
            metrics.edited_files.add(target)
