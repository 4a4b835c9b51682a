"""Claude Code session transcripts (``~/.claude/projects/<dir>/<session>.jsonl``).

Each line is one event: ``type`` ``user``/``assistant``/``summary``/..., with ``uuid``,
``timestamp``, ``isSidechain`` (sub-agent turns, which are counted too) and for assistant
lines a ``message`` in Anthropic Messages API shape (``id``, ``model``, ``content`` blocks,
``usage``). A streamed reply is written as one line per content block, each repeating the same
``message.id`` and the same ``usage``: usage is counted once per message id. A resumed session
replays earlier lines with the same ``uuid``: those are skipped so history (its usage, its
edits) is not doubled.

Claude Code 2.x writes each sub-agent's turns to a file of its own, not to the session file:
2.1 and later in ``<session>/subagents/agent-<id>.jsonl`` (deeper for workflows) beside
``<session>.jsonl``; 2.0 in ``agent-<id>.jsonl`` beside it, tied to the session by its
``sessionId``. :func:`subagent_files` finds them and :func:`read_claude_code` counts them with
the session (``arena submit`` stores them appended to the session file, which is how Claude
Code 1.x kept sub-agent turns, so the stored transcript reads the same). The activity (edits
and requests, :class:`_Activity`) is read from the session file alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena_bot.intake.transcripts.edits import Activity, Edit, Request, chars_of, note_shell
from arena_bot.intake.transcripts.metrics import (
    Clock,
    TranscriptMetrics,
    as_int,
    decode_line,
    open_transcript,
    read_json_lines,
)

#: How many lines of a 2.0 ``agent-*.jsonl`` are looked at for its ``sessionId``.
SESSION_ID_LINES = 20

EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}


def _session_id(path: Path) -> str | None:
    """The first ``sessionId`` among a file's first lines (None when there is none)."""
    with open_transcript(path) as handle:
        for _ in range(SESSION_ID_LINES):
            raw = handle.readline(1024 * 1024)
            if not raw:
                return None
            try:
                value = json.loads(decode_line(raw)[0])
            except (json.JSONDecodeError, RecursionError):
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
    ``path`` whose ``sessionId`` is the session's. A sub-agent file itself has none.
    """
    stem = path.name.removesuffix(".gz").removesuffix(".jsonl")
    if stem.startswith("agent-"):
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
    """Recompute the metrics of one Claude Code session with its sub-agent files."""
    return read_claude_code_files([path, *subagent_files(path)])


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
        if isinstance(message.get("model"), str):
            model_of_message.setdefault(message_id, message["model"])
        # Every content block of a streamed message repeats the usage, later blocks with the
        # final figures: keep the largest, count the message once.
        usage = message.get("usage")
        figures = _usage(usage) if isinstance(usage, dict) else {}
        previous = usage_by_message.get(message_id, {})
        usage_by_message[message_id] = {
            key: max(value, previous.get(key, 0)) for key, value in figures.items()} or previous
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            tool_ids.add(str(block.get("id") or f"{message_id}-{len(tool_ids)}"))
            data = block.get("input")
            target = isinstance(data, dict) and (data.get("file_path") or data.get("notebook_path"))
            if block.get("name") in EDIT_TOOLS and isinstance(target, str) and target:
                metrics.edited_files.add(target)
    for message_id, figures in usage_by_message.items():
        metrics.count(model_of_message.get(message_id), uncached=figures.get("input", 0),
                      read=figures.get("read", 0), write=figures.get("write", 0),
                      output=figures.get("output", 0))
    metrics.iterations = len(usage_by_message)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.unread_subagents = named_agents - read_agents
    session.activity.unanswered = sorted(session.calls.values())
    metrics.activity = session.activity
    if len(paths) > 1:
        metrics.span_label = (f"{paths[0].name} and {len(paths) - 1} sub-agent file"
                              f"{'s' if len(paths) > 2 else ''}")
    return metrics
