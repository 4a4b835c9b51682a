"""A transcript as a readable timeline for the submission page: turns, tool calls, tokens.

One tolerant reader for every shape (Claude Code and Codex JSONL, OpenHands and SWE-agent
JSON, Aider's Markdown history, the generic format); the metrics importers each read one
exactly. JSON records (an array, an object holding a list of steps, or one per line) are
events: role, text, tool calls and the nearest ``usage``; anything else is Aider's history,
a new turn at every ``####`` line.

Every text is redacted again with the stored transcripts' patterns (should a secret have
been missed when it was stored) and cut to :data:`MAX_TEXT` characters. At most
:data:`MAX_EVENTS` events are shown, and a transcript over :data:`MAX_BYTES` is not read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_bot.core.errors import ArenaError
from arena_bot.intake.transcripts.metrics import open_transcript
from arena_bot.intake.transcripts.redact import redact_text as redact

MAX_BYTES = 8 * 1024 * 1024
MAX_EVENTS = 400
MAX_TEXT = 6_000
#: Texts longer than this (characters or lines) are folded on the page.
FOLD_CHARS = 600
FOLD_LINES = 8

_TEXT_KEYS = ("content", "text", "message", "observation", "thought", "output", "result")
_ROLE_KEYS = ("role", "source", "type")


@dataclass
class Event:
    number: int
    role: str
    text: str
    tools: list[str] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    when: str = ""
    #: The tokens are running totals (OpenHands' accumulated usage): turned into this
    #: request's own when the timeline is collected.
    cumulative: bool = False
    #: The model response this record belongs to (Claude Code writes one line per content
    #: block of a response, each with the response's usage): its tokens count once.
    response: str = ""

    @property
    def folded(self) -> bool:
        return len(self.text) > FOLD_CHARS or self.text.count("\n") >= FOLD_LINES

    @property
    def first_line(self) -> str:
        first = self.text.strip().splitlines()[0] if self.text.strip() else ""
        return first[:140]


@dataclass
class Timeline:
    events: list[Event]
    #: Records beyond :data:`MAX_EVENTS` that were not shown.
    hidden: int = 0
    note: str = ""

    @property
    def tool_calls(self) -> int:
        return sum(len(e.tools) for e in self.events)

    @property
    def tokens(self) -> int:
        return sum((e.input_tokens or 0) + (e.output_tokens or 0) for e in self.events)


def read_timeline(path: Path) -> Timeline:
    """The transcript at ``path`` as events; an empty timeline with a note when unreadable."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return Timeline([], note=f"the transcript is larger than {MAX_BYTES:,} bytes: "
                                     "download it from the submission's folder")
        with open_transcript(path) as handle:
            raw = handle.read(MAX_BYTES + 1)
    except (OSError, ArenaError, EOFError) as exc:
        return Timeline([], note=f"the transcript could not be read ({exc})")
    if b"\x00" in raw:
        return Timeline([], note="the transcript is not text (it holds NUL bytes)")
    text = raw.decode("utf-8", "replace")
    records = list(_json_records(text))
    if records:
        return _collect(_event(r) for r in records)
    return _collect(_markdown_events(text))


def _collect(events: Iterable[Event | None]) -> Timeline:
    shown: list[Event] = []
    hidden = 0
    total_in = total_out = 0
    responses: set[str] = set()
    for event in events:
        if event is None:
            continue
        if event.response and not event.cumulative:
            if event.response in responses:
                event.input_tokens = event.output_tokens = None  # counted on its first line
            responses.add(event.response)
        if event.cumulative:
            now_in, now_out = event.input_tokens or 0, event.output_tokens or 0
            if (now_in, now_out) == (total_in, total_out):
                event.input_tokens = event.output_tokens = None  # same request as before
            else:
                event.input_tokens, event.output_tokens = now_in - total_in, now_out - total_out
                total_in, total_out = now_in, now_out
        if len(shown) >= MAX_EVENTS:
            hidden += 1
            continue
        event.number = len(shown) + 1
        shown.append(event)
    return Timeline(shown, hidden=hidden)


def _json_records(text: str) -> Iterator[dict[str, Any]]:
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        try:
            whole = json.loads(stripped)
        except ValueError:
            whole = None
        if isinstance(whole, list):
            yield from (r for r in whole if isinstance(r, dict))
            return
        if isinstance(whole, dict):
            for key in ("trajectory", "history", "messages", "events", "steps"):
                if isinstance(whole.get(key), list):
                    yield from (r for r in whole[key] if isinstance(r, dict))
                    return
            yield whole
            return
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def _event(record: dict[str, Any]) -> Event | None:
    inner = record.get("message") if isinstance(record.get("message"), dict) else None
    payload = record.get("payload") if isinstance(record.get("payload"), dict) else None
    parts = [part for part in (inner, payload, record) if part is not None]
    role = next((value for part in parts for key in _ROLE_KEYS
                 if isinstance(value := part.get(key), str) and value), "")
    texts: list[str] = []
    tools: list[str] = []
    for part in parts:
        _walk(part, texts, tools, depth=0)
    metadata = record.get("tool_call_metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("function_name"), str):
        tools.append(metadata["function_name"])
    elif isinstance(record.get("action"), str) and record.get("source") == "agent" \
            and record["action"] not in ("message", "finish"):
        tools.append(record["action"])
    usage_in, usage_out, cumulative = _usage(record)
    text = redact("\n".join(t for t in texts if t.strip()))[:MAX_TEXT]
    if not text and not tools and usage_in is None:
        return None
    when = record.get("timestamp") or (inner or {}).get("timestamp") or ""
    return Event(number=0, role=role or "event", text=text, tools=[redact(t) for t in tools],
                 input_tokens=usage_in, output_tokens=usage_out, cumulative=cumulative,
                 response=str((inner or {}).get("id") or record.get("requestId") or "")
                 if usage_in is not None or usage_out is not None else "",
                 when=str(when)[:32] if isinstance(when, str | int | float) else "")


def _walk(value: Any, texts: list[str], tools: list[str], *, depth: int) -> None:
    """Collect the readable text and tool calls of one record (a few levels deep)."""
    if depth > 4:
        return
    if isinstance(value, str):
        texts.append(value)
        return
    if isinstance(value, list):
        for item in value:
            _walk(item, texts, tools, depth=depth + 1)
        return
    if not isinstance(value, dict):
        return
    kind = value.get("type")
    if kind in ("tool_use", "function_call", "custom_tool_call") and isinstance(
            value.get("name"), str):
        tools.append(value["name"])
        arguments = value.get("input", value.get("arguments"))
        if arguments is not None:
            texts.append(arguments if isinstance(arguments, str) else json.dumps(arguments))
        return
    if isinstance(value.get("tool_calls"), list):
        for call in value["tool_calls"]:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                tools.append(function["name"])
                args = function.get("arguments")
                if isinstance(args, str):
                    texts.append(args)
    for key in _TEXT_KEYS:
        if key == "observation" and "content" in value:
            continue  # OpenHands: the observation's kind; its text is the content
        if key in value and not isinstance(value[key], dict):
            _walk(value[key], texts, tools, depth=depth + 1)
    args = value.get("args")
    if isinstance(args, dict):
        for key in ("command", "code", "path", "content"):
            if isinstance(args.get(key), str):
                texts.append(f"{key}: {args[key]}")


def _usage(record: dict[str, Any]) -> tuple[int | None, int | None, bool]:
    """Input and output tokens of the request this record reports, when it says, and
    whether they are running totals. A headless Claude Code run's ``result`` event sums the
    replies shown before it (not one more request); ``codex exec``'s ``turn.completed``
    usage is the thread's running total."""
    if record.get("type") == "result" and "session_id" in record:
        return None, None, False
    cumulative_usage = record.get("type") == "turn.completed"
    candidates: list[tuple[Any, bool]] = [(record.get("usage"), cumulative_usage)]
    for key in ("message", "payload", "llm_metrics", "info"):
        inner = record.get(key)
        if isinstance(inner, dict):
            candidates += [(inner.get("usage"), False), (inner.get("last_token_usage"), False),
                           (inner.get("accumulated_token_usage"), True)]
            info = inner.get("info")
            if isinstance(info, dict):
                candidates += [(info.get("last_token_usage"), False)]
    for usage, cumulative in candidates:
        if not isinstance(usage, dict):
            continue
        got_in = _int(usage, "input_tokens", "prompt_tokens")
        got_out = _int(usage, "output_tokens", "completion_tokens")
        # Anthropic counts cached prompt tokens apart from input_tokens; they were sent too.
        cached = [_int(usage, key) for key in ("cache_read_input_tokens",
                                                "cache_creation_input_tokens")]
        if got_in is not None and any(c is not None for c in cached):
            got_in += sum(c or 0 for c in cached)
        if got_in is not None or got_out is not None:
            return got_in, got_out, cumulative
    return None, None, False


def _int(usage: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _markdown_events(text: str) -> Iterator[Event]:
    """Aider's chat history: ``####`` lines are the user's, the rest the assistant's."""
    role, lines = "", list[str]()

    def flush() -> Event | None:
        body = redact("\n".join(lines).strip())[:MAX_TEXT]
        return Event(number=0, role=role or "transcript", text=body) if body else None

    for line in text.splitlines():
        is_user = line.startswith("#### ")
        current = "user" if is_user else "assistant"
        if line.startswith("# aider chat started"):
            continue
        if role and current != role:
            event = flush()
            if event:
                yield event
            lines = []
        role = current
        lines.append(line[5:] if is_user else line)
    event = flush()
    if event:
        yield event
