"""Aider: the analytics log (``--analytics-log FILE``) and the chat history Markdown.

Analytics log (format ``aider``): JSONL, one ``{"event", "properties", "user_id", "time"}``
per line. Each ``message_send`` event is one model call; its properties carry
``main_model``, ``prompt_tokens``, ``completion_tokens``, ``total_tokens`` and ``cost``.
``time`` is epoch seconds. Aider has no tool-call protocol (it edits files from the reply
text), so the log cannot check ``tool_calls``: that figure is left unverified.

Chat history (format ``aider-history``, ``.aider.chat.history.md``): Markdown with a
``# aider chat started at YYYY-MM-DD HH:MM:SS`` header per session and, after each reply, a
quoted line ``> Tokens: 2.3k sent, 1.0k cache write, 8.1k cache hit, 245 received. Cost: ...``
plus ``> Applied edit to <file>`` lines (counted as tool calls). The figures are rounded to
three significant digits (``2.3k``), within the verification tolerance. "sent" is the
uncached input. ``Cost:`` is optional (absent for models without prices) and Aider ends the
line with two spaces (a Markdown line break); both are allowed. Bytes that are not UTF-8
are replaced, so the lines around them are still read. The history has no end time, so
wall-clock time is left unverified.
"""

from __future__ import annotations

import re
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.metrics import (
    MAX_LINE_BYTES,
    Clock,
    TranscriptMetrics,
    as_int,
    decode_line,
    empty_transcript,
    open_transcript,
    read_json_lines,
)

#: The figures end at the first "." not inside a number; what follows (``Cost: ...``, Aider's
#: trailing spaces, a stray byte) is not read.
TOKENS_LINE = re.compile(r"^> Tokens: (?P<parts>[^.]*(?:\.\d[^.]*)*)(?:\..*)?$")
TOKENS_PART = re.compile(r"^(?P<count>[0-9.]+)(?P<unit>[kM]?) (?P<what>.+)$")
STARTED = re.compile(r"^# aider chat started at (?P<stamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
MODEL = re.compile(r"^> (?:Main )?[Mm]odel: (?P<name>[^\s]+)")
UNITS = {"": 1, "k": 1_000, "M": 1_000_000}
PART_FIELDS = {
    "sent": "prompt_tokens",
    "received": "completion_tokens",
    "cache hit": "cache_read_tokens",
    "cache write": "cache_write_tokens",
}


def read_aider_analytics(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics(unverifiable={"tool_calls"})
    clock = Clock()
    for number, event in read_json_lines(path):
        metrics.see_line(number)
        clock.see(event.get("time"))
        properties = event.get("properties")
        if event.get("event") != "message_send" or not isinstance(properties, dict):
            continue
        model = properties.get("main_model")
        model = model if isinstance(model, str) else None
        metrics.add_model(model)
        # Architect mode's editor coder sends under its own model: priced per model.
        metrics.count(model, uncached=as_int(properties.get("prompt_tokens")),
                      output=as_int(properties.get("completion_tokens")))
        metrics.iterations += 1
    metrics.wall_clock_seconds = clock.seconds()
    return metrics


def _add_token_parts(*, metrics: TranscriptMetrics, parts: str, path: Path, line: int) -> None:
    for part in parts.split(", "):
        found = TOKENS_PART.match(part.strip())
        field = PART_FIELDS.get(found.group("what")) if found else None
        if found is None or field is None:
            raise InputError(
                f"unrecognised token figure {part!r} in a '> Tokens:' line", path=path, line=line,
                hint="expected e.g. '> Tokens: 2.3k sent, 245 received.'",
            )
        count = round(float(found.group("count")) * UNITS[found.group("unit")])
        setattr(metrics, field, getattr(metrics, field) + count)


def read_aider_history(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics(unverifiable={"execution_time"})
    clock = Clock()
    seen = False
    with open_transcript(path) as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise InputError(f"line longer than {MAX_LINE_BYTES} bytes", path=path, line=number)
            # A stray byte (replaced by U+FFFD) at either end does not hide the line.
            text = decode_line(raw)[0].rstrip().strip("\ufffd")
            seen = seen or bool(text)
            if started := STARTED.match(text):
                clock.see(started.group("stamp").replace(" ", "T"))
            elif model := MODEL.match(text):
                metrics.add_model(model.group("name"))
            elif tokens := TOKENS_LINE.match(text):
                _add_token_parts(
                    metrics=metrics, parts=tokens.group("parts"), path=path, line=number
                )
                metrics.iterations += 1
                metrics.see_line(number)
            elif text.startswith("> Applied edit to "):
                metrics.tool_calls += 1
                metrics.edited_files.add(text.removeprefix("> Applied edit to ").strip())
    if not seen:
        raise empty_transcript(path)
    return metrics
