"""Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/session-*.jsonl``).

Gemini CLI records every session itself (``ChatRecordingService``), in two shapes:

* **JSON Lines** (0.39 and later, April 2026 on): a metadata line (``sessionId``,
  ``projectHash``, ``startTime``, ...), then one line per message each time it changes: a
  model message is written again when its usage or its tool calls arrive, so a message is
  its ``id`` (the last copy holds the most); ``{"$set": {...}}`` lines update the metadata,
  and a ``$set`` of ``messages`` is a checkpoint that replaces the conversation;
  ``{"$rewindTo": id}`` drops that message and every later one (``/rewind``).
* **One JSON document** (September 2025 to 0.38, April 2026): ``{"sessionId", "projectHash",
  "startTime", "lastUpdated", "messages": [...]}``, rewritten whole after each change. Read
  as a stream (:func:`~.jsonstream.iter_document_items`).

A message has ``id``, ``timestamp``, ``type`` (``user``, ``gemini``, ``info``, ``error``,
``warning``) and ``content``; a ``gemini`` message (one model response) adds ``model``,
``tokens`` and ``toolCalls``. ``tokens`` is the response's ``usageMetadata``: ``input``
(``promptTokenCount``, which includes ``cached``), ``cached`` (``cachedContentTokenCount``),
``output`` (``candidatesTokenCount``), ``thoughts`` (``thoughtsTokenCount``), ``tool``
(``toolUsePromptTokenCount``, prompt tokens apart from ``input``) and ``total``, which is
``input + output + thoughts + tool`` in real sessions. So uncached input is ``input - cached +
tool``, cache reads ``cached`` and output ``output + thoughts`` (thinking is billed as output,
as Codex's ``output_tokens`` include its reasoning); Gemini reports no cache writes.

The file holds the usage of the conversation's own responses only: the CLI's side calls
through its other client (model routing, next-speaker and loop checks, compression, session
summaries) are not recorded, and before 0.32 a response whose tool calls joined the message
before (no new thought) could leave no usage (one was kept per message; such a message's output
is then no final count for the usage check): what ``/stats`` shows can be more.

Every response is counted once, by message id, also when a rewind or a checkpoint later drops
it from the conversation: it was made and billed. Iterations are the model messages with
``tokens``, tool calls the distinct ``toolCalls[].id``; wall-clock time spans the messages'
and tool calls' ``timestamp``. Edits: ``write_file`` (``file_path``, ``content``) and
``replace`` (``file_path``, ``old_string``, ``new_string``; ``allow_multiple``, before it
``expected_replacements``), applied only when the call's last ``status`` is ``success``;
``run_shell_command`` as a shell write.

Sub-agents (0.39 and later) record their own sessions, ``chats/<session id>/<agent id>.jsonl``
beside the session's file (metadata ``kind`` ``subagent``); the session's tool call that ran
one names it in ``agentId``. 0.37 and 0.38 wrote them as one-document sessions,
``chats/<session id>/<agent id>.json`` (``kind`` ``subagent``), and named none (a real 0.38.2
run: the ``generalist`` tool call, no ``agentId``). :func:`subagent_files` finds them and
:func:`read_gemini_cli` counts their usage and tool calls with the session's (``arena submit``
stores them appended to the session file, where a metadata line of another session starts
them, or, after a one-document session, the next document); the activity (edits,
requests) is the session's own. A named sub-agent whose file was not read is in
``unread_subagents``. Earlier sub-agents (``delegate_to_agent``) recorded nothing of their
own.

What Gemini CLI prints when run headless (``-p ... --output-format json`` or ``stream-json``)
is read by :mod:`.gemini_headless`, told apart from a session file by its content
(:func:`_shape`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import Activity, Edit, Request, note_shell
from arena_bot.intake.transcripts.gemini_headless import (
    JSON_KEYS,
    is_stream_event,
    load_printed_document,
    read_gemini_json,
    read_gemini_stream,
)
from arena_bot.intake.transcripts.jsonstream import iter_document_items
from arena_bot.intake.transcripts.metrics import (
    MAX_LINE_BYTES,
    Clock,
    TranscriptMetrics,
    as_int,
    empty_transcript,
    open_transcript,
    read_json_lines,
)

#: How to tell a contributor where the file is.
WHERE_HINT = ("pass the session file Gemini CLI wrote: ~/.gemini/tmp/<project>/chats/"
              "session-<time>-<id>.jsonl (or .json before Gemini CLI 0.39)")
#: The ``type`` of a message Gemini CLI records.
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
EDIT_TOOLS = frozenset({"write_file", "replace"})
SHELL_TOOLS = frozenset({"run_shell_command"})

#: One response's ``tokens``: (input incl. cached, cached, output, thoughts, tool).
Tokens = tuple[int, int, int, int, int]


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _size(value: object) -> int:
    """Characters a message part list (or string) puts in the conversation."""
    if value is None or value == "":
        return 0
    return len(value) if isinstance(value, str) else len(json.dumps(value, ensure_ascii=False))


def _tokens(value: dict[str, Any]) -> Tokens:
    return (as_int(value.get("input")), as_int(value.get("cached")), as_int(value.get("output")),
            as_int(value.get("thoughts")), as_int(value.get("tool")))


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.metrics = TranscriptMetrics()
        self.activity = Activity(format_name="gemini-cli")
        self.clock = Clock()
        self.tokens: dict[str, Tokens] = {}  # message id -> its response's usage
        self.model_of: dict[str, str] = {}
        self.request_of: dict[str, int] = {}  # message id -> index in activity.requests
        self.live: dict[str, int] = {}  # the conversation: message id -> its characters
        self.context = 0  # the sum of live
        self.edit_messages: set[str] = set()  # messages with an edit tool call
        self.tool_ids: set[str] = set()
        self.edits_of: dict[str, list[int]] = {}  # tool call id -> indices in edits
        self.status: dict[str, str] = {}  # tool call id -> its last status
        self.seen_gemini = False  # a metadata line or a message: the file is Gemini CLI's
        self.session = ""  # the session id of the first metadata line
        #: Reading a sub-agent's records (its own file, or appended to the session's):
        #: their usage and calls count; the activity is the session's alone.
        self.in_subagent = False
        self.named_agents: set[str] = set()  # agentId of the session's tool calls
        self.read_agents: set[str] = set()  # session ids of the sub-agent records read

    # --- records of the JSON Lines shape --------------------------------------------

    def see_record(self, record: dict[str, Any], where: int) -> None:
        if isinstance(record.get("$rewindTo"), str):
            if not self.in_subagent:
                self._rewind(record["$rewindTo"], where)
        elif isinstance(record.get("$set"), dict):
            messages = record["$set"].get("messages")
            if isinstance(messages, list):  # a checkpoint: the conversation is these
                if not self.in_subagent:
                    self.live, self.context = {}, 0
                for message in messages:
                    self.see_message(message, where)
        elif isinstance(record.get("id"), str):
            self.see_message(record, where)
        elif isinstance(record.get("sessionId"), str) and isinstance(
                record.get("projectHash"), str):
            self.seen_gemini = True
            session = record["sessionId"]
            self.session = self.session or session
            if session != self.session or record.get("kind") == "subagent":
                self.in_subagent = True
                self.read_agents.add(session)
            messages = record.get("messages")  # a whole legacy record on one line
            for message in messages if isinstance(messages, list) else []:
                self.see_message(message, where)

    def _rewind(self, message_id: str, where: int) -> None:
        ids = list(self.live)
        cut = ids.index(message_id) if message_id in ids else 0
        dropped = ids[cut:]
        for gone in dropped:
            self.context -= self.live.pop(gone)
        if self.edit_messages.intersection(dropped):
            self.activity.unreplayable.append(
                (where, "/rewind past file edits, which it may have reverted"))

    # --- messages (both shapes) -----------------------------------------------------

    def see_message(self, message: object, where: int) -> None:
        if not isinstance(message, dict):
            return
        self.seen_gemini = self.seen_gemini or _text(message.get("type")) in MESSAGE_TYPES
        message_id = _text(message.get("id")) or f"message-{where}"
        self.clock.see(message.get("timestamp"))
        calls = message.get("toolCalls") if message.get("type") == "gemini" else None
        calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
        if self.in_subagent:
            self._subagent_message(message, message_id, calls)
            return
        written = _size(message.get("content")) + sum(
            len(_text(c.get("name"))) + _size(c.get("args")) for c in calls)
        results = sum(_size(c.get("result")) for c in calls)
        known = self.live.get(message_id, 0)
        before = self.context - known
        # info, error and warning messages are the CLI's own notes, never sent to the model.
        sent = written + results if message.get("type") in ("user", "gemini") else 0
        self.live[message_id] = max(known, sent)
        self.context += self.live[message_id] - known
        if message.get("type") != "gemini":
            return
        self._model(message, message_id)
        usage = message.get("tokens")
        if isinstance(usage, dict):
            self._usage(message_id, _tokens(usage), where, before, written)
        if message_id in self.request_of:
            request = self.activity.requests[self.request_of[message_id]]
            request.output_chars = max(request.output_chars, written)
            # Tool calls stamped at different times came from several responses, joined in
            # one message that keeps the usage of one: its output count is a lower bound.
            if len({_text(c.get("timestamp")) for c in calls}) > 1:
                request.output_final = False
        for call in calls:
            self._call(call, message_id, where)

    def _model(self, message: dict[str, Any], message_id: str) -> None:
        """The model a response names: counted, and kept for pricing the message."""
        model = _text(message.get("model"))
        self.metrics.add_model(model)
        if model:
            self.model_of.setdefault(message_id, model)

    def _subagent_message(self, message: dict[str, Any], message_id: str,
                          calls: list[dict[str, Any]]) -> None:
        """A sub-agent's message: its usage, model and tool calls, no activity."""
        if message.get("type") != "gemini":
            return
        self._model(message, message_id)
        usage = message.get("tokens")
        if isinstance(usage, dict):
            known = self.tokens.get(message_id, (0, 0, 0, 0, 0))
            self.tokens[message_id] = tuple(  # type: ignore[assignment]
                max(a, b) for a, b in zip(known, _tokens(usage), strict=True))
        for number, call in enumerate(calls):
            self.clock.see(call.get("timestamp"))
            self.tool_ids.add(_text(call.get("id")) or f"{message_id}-{number}")
            args = call.get("args")
            if _text(call.get("name")) in EDIT_TOOLS and isinstance(args, dict) and _text(
                    args.get("file_path")):
                self.metrics.edited_files.add(args["file_path"])

    def _usage(self, message_id: str, figures: Tokens, where: int, before: int,
               written: int) -> None:
        known = self.tokens.get(message_id)
        self.tokens[message_id] = figures if known is None else tuple(  # type: ignore[assignment]
            max(a, b) for a, b in zip(known, figures, strict=True))
        given, cached, output, thoughts, tool = self.tokens[message_id]
        if message_id not in self.request_of:
            self.request_of[message_id] = len(self.activity.requests)
            self.activity.requests.append(Request(where=where, context_chars=before,
                                                  output_chars=written))
        request = self.activity.requests[self.request_of[message_id]]
        request.input_tokens = given + tool
        request.cache_read = cached
        request.output_tokens = output + thoughts

    def _call(self, call: dict[str, Any], message_id: str, where: int) -> None:
        call_id = _text(call.get("id")) or f"{message_id}-{len(self.tool_ids)}"
        self.clock.see(call.get("timestamp"))
        self.status[call_id] = _text(call.get("status"))
        if _text(call.get("agentId")):
            self.named_agents.add(call["agentId"])
        if call_id in self.tool_ids:
            return
        self.tool_ids.add(call_id)
        name = _text(call.get("name"))
        args = call.get("args")
        args = args if isinstance(args, dict) else {}
        path = _text(args.get("file_path")) or _text(args.get("absolute_path"))
        made: list[Edit] = []
        if name == "write_file":
            made = [Edit(where, name, path, "write", new=_text(args.get("content")))]
        elif name == "replace":
            count = args.get("expected_replacements")
            made = [Edit(where, name, path, "replace", old=_text(args.get("old_string")),
                         new=_text(args.get("new_string")),
                         replace_all=args.get("allow_multiple") is True or (
                             isinstance(count, int) and count > 1))]
        elif name in SHELL_TOOLS:
            note_shell(self.activity, where, _text(args.get("command")))
        if made:
            edits = self.activity.edits
            self.edits_of[call_id] = list(range(len(edits), len(edits) + len(made)))
            edits.extend(made)
            self.edit_messages.add(message_id)
            self.metrics.edited_files.update(edit.path for edit in made if edit.path)

    # --- totals ---------------------------------------------------------------------

    def finish(self, span_label: str) -> TranscriptMetrics:
        if not self.seen_gemini:
            raise InputError(
                "no Gemini CLI message or session metadata in the file", path=self.path,
                hint="check --format: " + WHERE_HINT)
        metrics = self.metrics
        for message_id, (given, cached, output, thoughts, tool) in self.tokens.items():
            read = min(cached, given)
            metrics.count(self.model_of.get(message_id), uncached=given - read + tool,
                          read=read, output=output + thoughts)
        metrics.iterations = len(self.tokens)
        metrics.tool_calls = len(self.tool_ids)
        metrics.wall_clock_seconds = self.clock.seconds()
        metrics.span_label = span_label
        metrics.unread_subagents = self.named_agents - self.read_agents
        for call, indices in self.edits_of.items():
            if self.status.get(call) != "success":
                self.activity.failed.extend(indices)
        metrics.activity = self.activity
        return metrics


def _first_line(path: Path) -> bytes | None:
    """The first non-blank line of the file (at most :data:`MAX_LINE_BYTES`), or None."""
    with open_transcript(path) as handle:
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES)
            except (OSError, EOFError):
                return b""  # a damaged .gz: the reader below says so, with the line
            if not raw:
                return None
            if raw.strip():
                return raw.strip()


def _session_id(path: Path) -> str | None:
    """The ``sessionId`` of a JSON Lines session's metadata line (None: not one)."""
    first = _first_line(path)
    try:
        value = json.loads(first or b"")
    except (ValueError, RecursionError):  # not JSON (or UTF-8), or a number past the limit
        return None
    return value.get("sessionId") if isinstance(value, dict) and isinstance(
        value.get("sessionId"), str) else None


def subagent_files(path: Path) -> list[Path]:
    """The sub-agent sessions Gemini CLI wrote for the session ``path``, in the folder named
    by the session's full id beside it, sorted; symbolic links are never followed: for a JSON
    Lines session (0.39+) ``<id>.jsonl`` (or ``.jsonl.gz``), for a one-document session
    (0.37 and 0.38) ``<id>.json`` (or ``.json.gz``) documents."""
    first = _first_line(path)
    document = first == b"{"
    session = _document_session_id(path) if document else _session_id(path)
    if not session or "/" in session or "\\" in session or session in (".", ".."):
        return []
    folder = path.parent / session
    if folder.is_symlink() or not folder.is_dir():
        return []
    suffix = ".json" if document else ".jsonl"
    found = [*folder.glob(f"*{suffix}"), *folder.glob(f"*{suffix}.gz")]
    return sorted(p for p in found if p.is_file() and not p.is_symlink())


def _document_session_id(path: Path) -> str | None:
    """The ``sessionId`` of a one-document session (its first document's), or None."""
    try:
        for document, value in iter_document_items(path, "sessionId"):
            return value if document == 0 and isinstance(value, str) else None
    except InputError:
        return None
    return None


def read_gemini_cli(path: Path) -> TranscriptMetrics:
    """Read a Gemini CLI session, JSON Lines (0.39+) or one JSON document (before), with
    the sub-agent files beside it (:func:`subagent_files`); or what a headless run printed
    (:mod:`.gemini_headless`)."""
    shape, start = _shape(path)
    if shape == "stream":
        return read_gemini_stream(path)
    if shape == "json":
        return read_gemini_json(path, load_printed_document(path, start))
    return read_gemini_cli_files([path, *subagent_files(path)])


#: How many lines are looked at for the first JSON one (stderr captured with stdout before it).
SHAPE_LINES = 200
_KEY = re.compile(rb'^\s*"([^"\\]{1,40})"\s*:')


def _shape(path: Path) -> tuple[str, int]:
    """What the file is, and the byte where it starts: ``session`` (a session file, either
    shape), ``json`` (``--output-format json``: one document with ``stats``) or ``stream``
    (``--output-format stream-json`` events). Lines before the first of these are stderr
    captured with stdout (warnings, an error dump that holds brackets and braces of its own);
    a file whose first line is not one of them and that has none is a session file, which
    the session reader reads or refuses."""
    offset, opened, junk = 0, -1, False
    with open_transcript(path) as handle:
        for _count in range(SHAPE_LINES):
            try:
                raw = handle.readline(MAX_LINE_BYTES)
            except (OSError, EOFError):
                break  # a damaged .gz: the session reader says so, with the line
            if not raw:
                break
            start, offset = offset, offset + len(raw)
            text = raw.strip()
            if not text:
                continue
            if opened >= 0:  # the line after a lone brace names the document's first key
                key = _KEY.match(text)
                if key is not None and key.group(1).decode(errors="replace") in JSON_KEYS:
                    return "json", opened
                if not junk:
                    return "session", 0
                opened = -1  # a brace of stderr's own (an error dump)
            if text in (b"{", b"{\r"):
                opened = start
                continue
            if text.startswith(b"{"):
                try:
                    value = json.loads(text)
                except (ValueError, RecursionError):  # the reader names the line
                    value = None
                if isinstance(value, dict) and is_stream_event(value):
                    return "stream", start
                if isinstance(value, dict) and "stats" in value and "sessionId" not in value:
                    return "json", start
            if not junk and text.startswith((b"{", b"[")):
                break  # a session file, or no Gemini CLI file: the session reader says which
            junk = True
    return "session", 0


def read_gemini_cli_files(paths: list[Path]) -> TranscriptMetrics:
    """Read a session file (first) and its sub-agents' files, together: the usage and tool
    calls of all, the activity of the session alone."""
    path = paths[0]
    reader = _Reader(path)
    first = _first_line(path)
    if first is None:
        raise empty_transcript(path)
    if first not in (b"{", b"["):  # a pretty-printed document opens with a lone brace
        for number, record in read_json_lines(path):
            reader.metrics.see_line(number)
            reader.see_record(record, number)
        for extra in paths[1:]:
            reader.in_subagent = True
            for number, record in read_json_lines(extra):
                reader.see_record(record, number)
        label = "" if len(paths) == 1 else (
            f"{path.name} and {len(paths) - 1} sub-agent file{'s' if len(paths) > 2 else ''}")
        return reader.finish(label)
    if first == b"[":
        raise InputError("a JSON array, not a Gemini CLI session", path=path,
                         hint="check --format: " + WHERE_HINT)
    # A one-document session; stored by `arena submit`, its sub-agents' documents (0.37
    # and 0.38) follow it in the same file, as they do in their own files beside it.
    number, agents = 0, 0
    for document, message in iter_document_items(path, "messages.item"):
        if document > 0:
            agents = max(agents, document)
            reader.in_subagent = True
            reader.see_message(message, number)
            continue
        number += 1
        if not isinstance(message, dict):
            raise InputError(f"message {number} of the session is not a JSON object",
                             path=path, hint=WHERE_HINT)
        reader.see_message(message, number)
    if not number:
        raise InputError(
            "the session holds no message (no `messages` list, or an empty one)", path=path,
            hint="check --format: " + WHERE_HINT)
    for extra in paths[1:]:
        reader.in_subagent = True
        agents += 1
        for _document, message in iter_document_items(extra, "messages.item"):
            reader.see_message(message, number)
    label = f"messages 1-{number}"
    if agents:
        label += f" and {agents} sub-agent document{'s' if agents > 1 else ''}"
    return reader.finish(label)
