"""Bounded-memory reading of one large JSON document (OpenHands, SWE-agent, ATIF).

Those tools write a single JSON array or object, not JSONL, and a long session runs to
hundreds of megabytes. ``ijson`` parses it as a stream; a counting reader underneath tracks
the line reached (so errors name a line) and refuses any single item larger than
:data:`MAX_LINE_BYTES`, so memory stays bounded whatever the file holds.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import ijson
from ijson.common import ObjectBuilder

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.metrics import MAX_LINE_BYTES, empty_transcript, open_transcript

# Small reads keep the reported line close to where the parser actually stopped.
READ_SIZE = 16 * 1024


class CountingReader:
    """A binary reader that counts newlines and bytes read since the last :meth:`mark`.

    Bytes that are not UTF-8 (stray bytes in a command's output) are replaced by U+FFFD as
    they pass, so the parser never stops on them and no event around them is lost.
    """

    def __init__(self, handle: IO[bytes], path: Path) -> None:
        self.handle = handle
        self.path = path
        self.line = 1
        self.since_mark = 0
        self.saw_text = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self, size: int = -1) -> bytes:
        """Read at most about ``size`` bytes (as UTF-8), refusing an item past the cap.

        An empty result means the end of the file, so a read that only gave the first bytes
        of a character (held back by the decoder) reads on.
        """
        while True:
            raw = self._read_raw(READ_SIZE if size < 0 else min(size, READ_SIZE))
            chunk = self._decoder.decode(raw, final=not raw).encode("utf-8")
            if chunk or not raw:
                return chunk

    def _read_raw(self, size: int) -> bytes:
        try:
            chunk = self.handle.read(size)
        except (OSError, EOFError) as exc:
            raise InputError(
                f"cannot decompress transcript: {exc}", path=self.path, line=self.line,
                hint="store the complete .gz file (gzip -t checks it)",
            ) from exc
        self.line += chunk.count(b"\n")
        self.since_mark += len(chunk)
        self.saw_text = self.saw_text or bool(chunk.strip())
        if self.since_mark > MAX_LINE_BYTES + READ_SIZE:
            raise InputError(
                f"one transcript item is larger than {MAX_LINE_BYTES} bytes", path=self.path,
                line=self.line, hint="the transcript is corrupt or not in the format named",
            )
        return chunk

    def mark(self) -> None:
        """Start counting a new item."""
        self.since_mark = 0


def _parse_error(*, path: Path, reader: CountingReader, exc: Exception) -> InputError:
    if not reader.saw_text:
        return empty_transcript(path)
    text = str(exc)
    truncated = "incomplete" in text.lower() or "premature" in text.lower()
    what = "truncated JSON (file cut off?)" if truncated else f"invalid JSON: {text}"
    hint = ("copy the transcript again after the tool has finished writing it" if truncated
            else "check --format: this file is not a JSON document of that tool")
    return InputError(f"{what} near this line", path=path, line=reader.line, hint=hint)


def iter_objects(path: Path, prefixes: frozenset[str]) -> Iterator[tuple[str, Any]]:
    """Yield ``(prefix, value)`` for every value found at one of ``prefixes``, in one pass.

    Lets a reader take a few top-level fields and each item of a long array from the same
    stream (ATIF's ``agent``, ``steps.item`` and ``final_metrics``); each value is built
    alone, so memory is bounded by the largest one. A parse error is an :class:`InputError`.
    """
    with open_transcript(path) as handle:
        reader = CountingReader(handle, path)
        try:
            if len(prefixes) == 1:  # ijson builds the items of one prefix in C: 2-3x faster
                (only,) = prefixes
                for item in ijson.items(reader, only, use_float=True):
                    yield only, item
                    reader.mark()
                return
            events = ijson.parse(reader, use_float=True)
            for prefix, event, value in events:
                if event in ("start_map", "start_array"):
                    reader.mark()
                if prefix not in prefixes or event in ("end_map", "end_array", "map_key"):
                    continue
                if event not in ("start_map", "start_array"):
                    yield prefix, value
                    continue
                yield prefix, _built(event, value, events)
        except ijson.JSONError as exc:
            raise _parse_error(path=path, reader=reader, exc=exc) from exc


def iter_document_items(path: Path, prefix: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(document, item)`` for every item at ``prefix`` of each JSON document in the
    file, one after another (``document`` counts from 0): a session stored with the
    documents of its sub-agents appended. Memory is bounded by the largest item."""
    with open_transcript(path) as handle:
        reader = CountingReader(handle, path)
        document = -1
        try:
            events = ijson.parse(reader, use_float=True, multiple_values=True)
            for current, event, value in events:
                if current == "" and event in ("start_map", "start_array"):
                    document += 1
                if current != prefix or event not in ("start_map", "start_array"):
                    if current == prefix and event not in (
                            "end_map", "end_array", "map_key"):
                        yield document, value
                    continue
                reader.mark()
                yield document, _built(event, value, events)
        except ijson.JSONError as exc:
            raise _parse_error(path=path, reader=reader, exc=exc) from exc


def _built(event: str, value: Any, events: Iterator[tuple[str, str, Any]]) -> Any:
    """The object or array that starts with ``event`` (``start_map`` or ``start_array``),
    built from ``events`` up to its end."""
    builder = ObjectBuilder()
    builder.event(event, value)
    depth = 1
    for _inner, inner_event, inner_value in events:
        builder.event(inner_event, inner_value)
        if inner_event in ("start_map", "start_array"):
            depth += 1
        elif inner_event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                break
    return builder.value
