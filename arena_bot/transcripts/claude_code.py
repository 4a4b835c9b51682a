"""Claude Code session transcripts (``~/.claude/projects/<dir>/<session>.jsonl``).

Each line is one event: ``type`` ``user``/``assistant``/``summary``/..., with ``uuid``,
``timestamp``, ``isSidechain`` (sub-agent turns, which are counted too) and for assistant
lines a ``message`` in Anthropic Messages API shape (``id``, ``model``, ``content`` blocks,
``usage``). A streamed reply is written as one line per content block, each repeating the same
``message.id`` and the same ``usage``: usage is counted once per message id. A resumed session
replays earlier lines with the same ``uuid``: those are skipped so history is not doubled.
"""

from __future__ import annotations

from pathlib import Path

from arena_bot.transcripts.metrics import Clock, TranscriptMetrics, as_int, read_json_lines

EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}


def _note_edit(metrics: TranscriptMetrics, block: dict[str, object]) -> None:
    tool_input = block.get("input")
    if block.get("name") in EDIT_TOOLS and isinstance(tool_input, dict):
        target = tool_input.get("file_path") or tool_input.get("notebook_path")
        if isinstance(target, str) and target:
            metrics.edited_files.add(target)


def read_claude_code(path: Path) -> TranscriptMetrics:
    """Recompute the metrics of one Claude Code session JSONL file."""
    metrics = TranscriptMetrics()
    clock = Clock()
    seen_uuids: set[str] = set()
    usage_by_message: dict[str, dict[str, int]] = {}
    model_of_message: dict[str, str] = {}
    tool_ids: set[str] = set()
    for number, event in read_json_lines(path):
        uuid = event.get("uuid")
        if isinstance(uuid, str):
            if uuid in seen_uuids:  # history replayed by a resumed session
                continue
            seen_uuids.add(uuid)
        metrics.see_line(number)
        clock.see(event.get("timestamp"))
        message = event.get("message")
        if event.get("type") != "assistant" or not isinstance(message, dict):
            continue
        if message.get("model") != "<synthetic>":
            metrics.add_model(message.get("model"))
        message_id = str(message.get("id") or f"line-{number}")
        if isinstance(message.get("model"), str):
            model_of_message.setdefault(message_id, message["model"])
        _keep_largest_usage(usage_by_message, message_id, message.get("usage"))
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tool_ids.add(str(block.get("id") or f"{message_id}-{len(tool_ids)}"))
                _note_edit(metrics, block)
    for message_id, figures in usage_by_message.items():
        uncached, read = figures.get("input", 0), figures.get("read", 0)
        write, output = figures.get("write", 0), figures.get("output", 0)
        metrics.prompt_tokens += uncached
        metrics.completion_tokens += output
        metrics.cache_read_tokens += read
        metrics.cache_write_tokens += write
        metrics.charge(model_of_message.get(message_id), uncached=uncached, read=read,
                       write=write, output=output)
    metrics.iterations = len(usage_by_message)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
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
