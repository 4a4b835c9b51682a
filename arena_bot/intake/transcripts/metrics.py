"""What a transcript reader returns (figures and activity), and the bounded line reader every
reader shares."""

from __future__ import annotations

import gzip
import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, cast

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import Activity

# One transcript line larger than this is refused: a real event is far smaller, and reading an
# unbounded line would defeat the line-by-line, bounded-memory design.
MAX_LINE_BYTES = 16 * 1024 * 1024


@dataclass
class TranscriptMetrics:
    """Figures recomputed from a transcript, never taken from what a submitter reported."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    tool_calls: int = 0
    iterations: int = 0
    wall_clock_seconds: float = 0.0
    models: list[str] = field(default_factory=list)
    first_line: int = 0
    last_line: int = 0
    #: Per model: (uncached input, cache read, cache write, output), when the format splits
    #: usage by model (so a session with a cheaper sub-agent model is priced per model).
    usage_by_model: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    #: Where the figures came from, when not a line range (JSON documents: ``events 1-57``).
    span_label: str = ""
    #: Files the agent edited with its own edit tools (as the transcript spells them, often
    #: absolute); empty when the format does not show edits. Used to tie transcript to patch.
    edited_files: set[str] = field(default_factory=set)
    #: Figures the format cannot show (e.g. Aider has no tool calls); never flagged.
    unverifiable: set[str] = field(default_factory=set)
    #: Figures the transcript holds only in part, each said in a sentence (``arena submit``
    #: prints them with what it could not read).
    notes: list[str] = field(default_factory=list)
    #: How the run ended in an error, in the transcript's words (empty: it did not, or the
    #: format does not say): the tool did not report finishing, so the run is no success.
    error_end: str = ""
    #: Models that served only sub-agents, warm-ups or side calls, never the main agent
    #: (Claude Code's haiku helpers): a submission may leave them out of its ``models``.
    helper_models: set[str] = field(default_factory=set)
    #: Sub-agents the transcript names (Claude Code's ``toolUseResult.agentId``) whose own
    #: transcript was not found, so their usage is in no figure.
    unread_subagents: set[str] = field(default_factory=set)
    #: The edits and requests, for the formats that show edit tool calls this package can
    #: replay (``None`` for the others).
    activity: Activity | None = None

    @property
    def prompt_total(self) -> int:
        """Every prompt token: uncached, cache reads and cache writes. This is what a
        submission reports as ``tokens.prompt`` (cache reads also as ``tokens.cached``)."""
        return self.prompt_tokens + self.cache_read_tokens + self.cache_write_tokens

    def see_line(self, number: int) -> None:
        """Widen the span of lines the figures came from to include line ``number``."""
        self.first_line = self.first_line or number
        self.last_line = number

    def add_model(self, name: object) -> None:
        """Record a model name once, in order of first use; a value that is no string (or
        an empty one) names no model."""
        if isinstance(name, str) and name and name not in self.models:
            self.models.append(name)

    def charge(
        self, model: str | None, *, uncached: int = 0, read: int = 0, write: int = 0,
        output: int = 0,
    ) -> None:
        """Count tokens of one model call (or one step of a running total) against ``model``
        in :attr:`usage_by_model` only; the totals are each importer's business (several
        formats carry a session total that is more exact than the sum of the steps)."""
        before = self.usage_by_model.get(model or "", (0, 0, 0, 0))
        self.usage_by_model[model or ""] = (
            before[0] + max(uncached, 0), before[1] + max(read, 0),
            before[2] + max(write, 0), before[3] + max(output, 0),
        )

    def count(
        self, model: str | None, *, uncached: int = 0, read: int = 0, write: int = 0,
        output: int = 0,
    ) -> None:
        """Add one model call's tokens to the totals, charged to ``model`` as well."""
        self.prompt_tokens += uncached
        self.cache_read_tokens += read
        self.cache_write_tokens += write
        self.completion_tokens += output
        self.charge(model, uncached=uncached, read=read, write=write, output=output)


class Clock:
    """Tracks the earliest and latest timestamp seen, for wall-clock time."""

    def __init__(self) -> None:
        self.first: datetime | None = None
        self.last: datetime | None = None

    def see(self, stamp: object) -> None:
        """Take an ISO-8601 string or epoch number; ignore anything unparseable or out of
        range (``1e300``, ``Infinity``, year 1 with an offset)."""
        try:
            if isinstance(stamp, str):
                when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            elif isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
                when = datetime.fromtimestamp(float(stamp), tz=UTC)
            else:
                return
            # Compare everything in naive UTC; a stamp without zone is taken as UTC.
            if when.tzinfo is not None:
                when = when.astimezone(UTC).replace(tzinfo=None)
        except (ValueError, OverflowError, OSError):
            return
        self.first = min(self.first or when, when)
        self.last = max(self.last or when, when)

    def seconds(self) -> float:
        """Elapsed seconds between the first and last timestamp (0 when fewer than two)."""
        if self.first is None or self.last is None:
            return 0.0
        return (self.last - self.first).total_seconds()


#: The UTF-8 byte-order mark: no tool writes one, but a file saved again by a Windows editor
#: or PowerShell's ``Out-File -Encoding utf8`` starts with it.
UTF8_BOM = b"\xef\xbb\xbf"


def open_transcript(path: Path) -> IO[bytes]:
    """Open a transcript for binary reading, past a UTF-8 byte-order mark at its start; a
    ``.gz`` file is decompressed as it streams.

    Large transcripts are stored gzip-compressed in submission folders, so every importer
    reads through here: none sees the mark (``json`` refused it, "Unexpected UTF-8 BOM", the
    JSON document parser called it a lexical error and the readers of printed output passed
    its line over). A reader that seeks to a position it counted seeks from where the handle
    starts (``SEEK_CUR``), past the mark.
    """
    handle: io.BufferedReader | gzip.GzipFile
    try:
        handle = gzip.GzipFile(path, "rb") if path.suffix == ".gz" else path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read transcript: {exc.strerror}", path=path) from exc
    try:
        if handle.peek(len(UTF8_BOM))[:len(UTF8_BOM)] == UTF8_BOM:
            handle.read(len(UTF8_BOM))
    except (OSError, EOFError):
        pass  # a damaged .gz: the reader names it, with the line
    return cast(IO[bytes], handle)


def opening(path: Path) -> bytes:
    """The first character of the file that is not a byte-order mark or white space (``b""``
    for a file of none, or one that cannot be read: the reader names the damage)."""
    try:
        with open_transcript(path) as handle:
            while chunk := handle.read(4096):
                start = chunk.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
                if start:
                    return start
    except (OSError, EOFError, InputError):
        pass
    return b""


def not_an_object(path: Path, what: str, hint: str) -> InputError | None:
    """The error for a JSON document that is no object where ``what`` (one JSON object, as
    SWE-agent's and ATIF's are) is read: an array read for its fields found none and gave a
    run of nothing. ``None`` when the file opens as an object (or is empty, or not JSON,
    which the reader says)."""
    start = opening(path)
    if start in (b"{", b""):
        return None
    shape = "an array" if start == b"[" else "no object"
    return InputError(f"not {what}: the file holds a JSON document that is {shape}, where "
                      "one JSON object belongs", path=path, hint=hint)


def decode_line(raw: bytes) -> tuple[str, bool]:
    """``raw`` as text, and whether it held bytes that are not UTF-8.

    Tools write UTF-8, but a command's output can carry stray bytes (a Latin-1 file cat'ed, a
    multi-byte character cut at a buffer edge). Such bytes are replaced (U+FFFD) so the rest of
    the line, and every model call around it, is still read.
    """
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


def empty_transcript(path: Path) -> InputError:
    """The error for a transcript that holds nothing (or only blank lines)."""
    return InputError(
        "the transcript is empty", path=path,
        hint="pass the session file the tool wrote during the run (it was empty: was the run "
        "logged to another file, or was the file copied before the tool finished?)",
    )


def read_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw line)`` of a transcript, one at a time; a line over
    :data:`MAX_LINE_BYTES` or a damaged ``.gz`` file gives an :class:`InputError`."""
    with open_transcript(path) as handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES + 1)
            except (OSError, EOFError) as exc:
                raise InputError(
                    f"cannot decompress transcript: {exc}", path=path, line=number + 1,
                    hint="store the complete .gz file (gzip -t checks it)",
                ) from exc
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise InputError(
                    f"line longer than {MAX_LINE_BYTES} bytes", path=path, line=number,
                    hint="the transcript is corrupt or not in the format named",
                )
            yield number, raw


def read_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank JSONL line, one at a time.

    A line that is not a JSON object or is cut off gives an :class:`InputError` naming the
    file and line; a file with no line at all is refused as empty. Bytes that are not UTF-8
    are replaced, not fatal (:func:`decode_line`).
    """
    seen = False
    for number, raw in read_lines(path):
        text, replaced = decode_line(raw)
        text = text.strip()
        if not text:
            continue
        seen = True
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _bad_line(path=path, number=number, raw=raw, replaced=replaced,
                            exc=exc) from exc
        except ValueError as exc:  # an integer past Python's digit limit
            raise number_too_long(path=path, line=number) from exc
        if not isinstance(value, dict):
            raise InputError(
                "expected a JSON object on each line", path=path, line=number,
                hint="check --format: this is not a JSONL transcript of that tool",
            )
        yield number, value
    if not seen:
        raise empty_transcript(path)


def printed_objects(path: Path, *, hint: str, cut_off_ends: bool = False,
                    starts: str = "{") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` of each JSON object a program printed, one per line,
    as harnesses capture it (stdout with stderr): a line not starting with ``{`` is passed
    over, and so is a JSON value that is no object; a line that starts like an object (like
    ``starts``, when the program's objects all begin so: a stderr dump's lone ``{`` is then
    passed over) but does not parse is an :class:`InputError` naming it (``hint``: what to
    pass), unless it is the last line and unfinished and ``cut_off_ends`` (a killed run):
    then reading stops."""
    for number, raw in read_lines(path):
        text = decode_line(raw)[0].strip()
        if not text.startswith("{"):
            continue
        try:
            value = json.loads(text)
        except ValueError as exc:  # not JSON, or an integer past Python's digit limit
            if not text.startswith(starts):
                continue
            if cut_off_ends and not raw.endswith(b"\n"):
                return
            if not isinstance(exc, json.JSONDecodeError):
                raise number_too_long(path=path, line=number) from exc
            raise InputError(f"invalid JSON: {exc}", path=path, line=number,
                             hint=hint) from exc
        if isinstance(value, dict):
            yield number, value


def number_too_long(*, path: Path, line: int | None) -> InputError:
    """The error for JSON holding an integer of more digits than Python converts (4,300 by
    default: ``json`` raises a plain :class:`ValueError` for it, not a decode error)."""
    return InputError(
        f"a JSON number has more than {sys.get_int_max_str_digits():,} digits, more than can "
        "be read", path=path, line=line,
        hint="the transcript is corrupt or not in the format named (no tool writes such a "
        "number)",
    )


def _bad_line(
    *, path: Path, number: int, raw: bytes, replaced: bool, exc: json.JSONDecodeError
) -> InputError:
    if not raw.endswith(b"\n"):
        return InputError(
            "truncated JSON on the last line (file cut off?)", path=path, line=number,
            hint="copy the transcript again after the tool has finished writing it",
        )
    if replaced:
        return InputError(
            f"line is not JSON and holds bytes that are not UTF-8 text ({exc.msg})", path=path,
            line=number,
            hint="pass the transcript exactly as the tool wrote it (not re-encoded or "
            "damaged), and check --format",
        )
    return InputError(
        f"invalid JSON: {exc}", path=path, line=number,
        hint="check --format; a hand-edited transcript must stay one JSON object per line",
    )


#: The largest count (of tokens, calls, milliseconds) a transcript's figure is read as: 2**53,
#: the last integer a float holds exactly, some nine million billion and past any real run. A
#: figure above it is no count (``1`` and 400 zeros made the comparison with the reported
#: figures overflow a float), as ``Infinity`` is not.
MAX_COUNT = 2**53


def as_int(value: object) -> int:
    """A token count (or another count, or a duration) as an int; anything else (negative,
    ``NaN``, ``Infinity``, above :data:`MAX_COUNT`, not a number) is zero."""
    if isinstance(value, int | float) and not isinstance(value, bool) and (
            0 <= value <= MAX_COUNT):
        return int(value)
    return 0


def litellm_usage(usage: object) -> dict[str, int]:
    """One LiteLLM (OpenAI-shaped) response's ``usage``: ``prompt`` (every prompt token,
    cache reads and writes included), ``read`` (``cache_read_input_tokens``, else
    ``prompt_tokens_details.cached_tokens``), ``write`` (``cache_creation_input_tokens``) and
    ``output`` (``completion_tokens``). OpenHands and mini-swe-agent keep usage so."""
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = as_int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return {
        "prompt": as_int(usage.get("prompt_tokens")),
        "read": as_int(usage.get("cache_read_input_tokens")) or cached,
        "write": as_int(usage.get("cache_creation_input_tokens")),
        "output": as_int(usage.get("completion_tokens")),
    }


def cooperbench_run_file(path: Path, keys: set[str]) -> InputError | None:
    """The error for a CooperBench runner file passed as a transcript (``keys``: the
    document's top-level keys), or ``None`` when it is not one.

    CooperBench's runner keeps, beside each run's patches, ``result.json`` (its summary:
    ``agent_framework``, ``setting``, per-agent cost and token totals the agents reported) and
    ``agent<N>_traj.json`` / ``solo_traj.json`` (``agent_id``, ``model``, ``status``,
    ``cost``, ``steps``, ``messages``); the agents' own logs are beside them.
    """
    where = ("pass the agent's own log from the same folder: `<agent>_stream.jsonl` "
             "(Claude Code, --format claude-code), or `agent<N>_traj.json` / "
             "`<agent>_full_traj.json` (mini-swe-agent, --format swe-agent)")
    if {"agent_framework", "setting"} <= keys:
        return InputError("this is CooperBench's run summary (result.json), not a transcript: "
                          "its figures are what the agents reported", path=path, hint=where)
    if {"agent_id", "messages", "steps", "cost"} <= keys:
        return InputError(
            "this CooperBench trajectory's messages carry no usage (CooperBench keeps only "
            "their text for Claude Code, SWE-agent and OpenHands runs)", path=path,
            hint="for Claude Code pass `<agent>_stream.jsonl` from the same folder (--format "
            "claude-code); CooperBench keeps no log with usage of a SWE-agent run (its .traj "
            "goes to a temporary folder) or an OpenHands run: submit those without a "
            "transcript (self-reported)")
    return None
