"""Claude Code session transcripts (``~/.claude/projects/<dir>/<session>.jsonl``).

Each line is one event: ``type`` ``user``/``assistant``/``summary``/..., with ``uuid``,
``timestamp``, ``isSidechain`` (sub-agent turns, which are counted too) and for assistant
lines a ``message`` in Anthropic Messages API shape (``id``, ``model``, ``content`` blocks,
``usage``). A streamed reply is written as one line per content block, each repeating the same
``message.id`` and the same ``usage``: usage is counted once per message id. A resumed session
replays earlier lines with the same ``uuid``: those are skipped so history is not doubled.

Claude Code 2.x writes each sub-agent's turns to a file of its own, not to the session file:
2.1 and later in ``<session>/subagents/agent-<id>.jsonl`` (deeper for workflows) beside
``<session>.jsonl``; 2.0 in ``agent-<id>.jsonl`` beside it, tied to the session by its
``sessionId``. :func:`subagent_files` finds them and :func:`read_claude_code` counts them with
the session (``arena submit`` stores them appended to the session file, which is how Claude
Code 1.x kept sub-agent turns, so the stored transcript reads the same).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def _note_edit(metrics: TranscriptMetrics, block: dict[str, object]) -> None:
    tool_input = block.get("input")
    if block.get("name") in EDIT_TOOLS and isinstance(tool_input, dict):
        target = tool_input.get("file_path") or tool_input.get("notebook_path")
        if isinstance(target, str) and target:
            metrics.edited_files.add(target)


def _session_stem(path: Path) -> str:
    name = path.name.removesuffix(".gz")
    return name.removesuffix(".jsonl")


def _session_id(path: Path) -> str | None:
    """The first ``sessionId`` among a file's first lines (None when there is none)."""
    with open_transcript(path) as handle:
        for _ in range(SESSION_ID_LINES):
            raw = handle.readline(1024 * 1024)
            if not raw:
                return None
            try:
                value = json.loads(decode_line(raw)[0])
            except json.JSONDecodeError:
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
    stem = _session_stem(path)
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


def read_claude_code_files(paths: list[Path]) -> TranscriptMetrics:
    """Recompute the metrics of a session file (first) and its sub-agent files, together."""
    metrics = TranscriptMetrics()
    clock = Clock()
    seen_uuids: set[str] = set()
    usage_by_message: dict[str, dict[str, int]] = {}
    model_of_message: dict[str, str] = {}
    tool_ids: set[str] = set()
    named_agents: set[str] = set()
    read_agents: set[str] = set()
    for index, number, event in _events(paths):
        uuid = event.get("uuid")
        if isinstance(uuid, str):
            if uuid in seen_uuids:  # history replayed by a resumed session
                continue
            seen_uuids.add(uuid)
        if index == 0:
            metrics.see_line(number)
        result = event.get("toolUseResult")
        if isinstance(result, dict) and isinstance(result.get("agentId"), str):
            named_agents.add(result["agentId"])
        if event.get("isSidechain") and isinstance(event.get("agentId"), str):
            read_agents.add(event["agentId"])
        clock.see(event.get("timestamp"))
        message = event.get("message")
        if event.get("type") != "assistant" or not isinstance(message, dict):
            continue
        if message.get("model") != "<synthetic>":
            metrics.add_model(message.get("model"))
        message_id = str(message.get("id") or f"line-{index}-{number}")
        if isinstance(message.get("model"), str):
            model_of_message.setdefault(message_id, message["model"])
        _keep_largest_usage(usage_by_message, message_id, message.get("usage"))
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tool_ids.add(str(block.get("id") or f"{message_id}-{len(tool_ids)}"))
                _note_edit(metrics, block)
    for message_id, figures in usage_by_message.items():
        metrics.count(model_of_message.get(message_id), uncached=figures.get("input", 0),
                      read=figures.get("read", 0), write=figures.get("write", 0),
                      output=figures.get("output", 0))
    metrics.iterations = len(usage_by_message)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.unread_subagents = named_agents - read_agents
    if len(paths) > 1:
        metrics.span_label = (f"{paths[0].name} and {len(paths) - 1} sub-agent file"
                              f"{'s' if len(paths) > 2 else ''}")
    return metrics


def _keep_largest_usage(
    usage_by_message: dict[str, dict[str, int]], message_id: str, usage: object
) -> None:
    """Record one message's usage. Every content block of a streamed message repeats the
    usage, later blocks with the final figures: keep the largest, count the message once."""
    if not isinstance(usage, dict):
        usage_by_message.setdefault(message_id, {})
        return
    figures = {
        "input": as_int(usage.get("input_tokens")),
        "output": as_int(usage.get("output_tokens")),
        "read": as_int(usage.get("cache_read_input_tokens")),
        "write": as_int(usage.get("cache_creation_input_tokens")),
    }
    previous = usage_by_message.get(message_id, {})
    usage_by_message[message_id] = {
        key: max(value, previous.get(key, 0)) for key, value in figures.items()
    }
