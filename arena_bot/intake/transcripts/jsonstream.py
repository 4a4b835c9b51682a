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
#: Deepest nesting read. ijson keeps the path of every level it is in, so memory grows with
#: the square of the depth (a 200 KB file of brackets took 24 GB); 4,096 levels cost it
#: some 50 MB, and tools' transcripts nest a few dozen.
MAX_DEPTH = 4096
#: Opening brackets one item may hold before the fast path (ijson's own C loop, which nests
#: without a check) gives way to the checked one: no deeper than this can it have nested.
_FAST_BRACKETS = MAX_DEPTH
#: The checked path's reads: ijson parses a whole read before the depth is seen, so a read
#: this small can nest at most this much past the limit.
_CHECKED_READ_SIZE = 1024


class _TooManyBrackets(Exception):
    """An item holds more opening brackets than the fast path reads unchecked."""


class CountingReader:
    """A binary reader that counts newlines and bytes read since the last :meth:`mark`.

    Bytes that are not UTF-8 (stray bytes in a command's output) are replaced by U+FFFD as
    they pass, so the parser never stops on them and no event around them is lost.
    """

    def __init__(self, handle: IO[bytes], path: Path, *, read_size: int = READ_SIZE) -> None:
        self.handle = handle
        self.path = path
        self.read_size = read_size
        self.line = 1
        self.since_mark = 0
        self.saw_text = False
        #: Opening brackets since the last mark, counted while the fast path reads.
        self.brackets: int | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self, size: int = -1) -> bytes:
        """Read at most about ``size`` bytes (as UTF-8), refusing an item past the cap.

        An empty result means the end of the file, so a read that only gave the first bytes
        of a character (held back by the decoder) reads on.
        """
        while True:
            raw = self._read_raw(self.read_size if size < 0 else min(size, self.read_size))
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
        if self.brackets is not None:
            self.brackets += chunk.count(b"[") + chunk.count(b"{")
            if self.brackets > _FAST_BRACKETS:
                raise _TooManyBrackets
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
        if self.brackets is not None:
            self.brackets = 0


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
    done = 0
    if len(prefixes) == 1:  # ijson builds the items of one prefix in C: 2-3x faster
        (only,) = prefixes
        with open_transcript(path) as handle:
            reader = CountingReader(handle, path)
            reader.brackets = 0
            try:
                for found in ijson.items(reader, only, use_float=True):
                    yield only, found
                    done += 1
                    reader.mark()
                return
            except _TooManyBrackets:
                pass  # read again below, the depth checked, past the items yielded
            except ijson.JSONError as exc:
                raise _parse_error(path=path, reader=reader, exc=exc) from exc
    with open_transcript(path) as handle:
        reader = CountingReader(handle, path, read_size=_CHECKED_READ_SIZE)
        try:
            events = _depth_checked(ijson.parse(reader, use_float=True), path, reader)
            for prefix, event, value in events:
                if event in ("start_map", "start_array"):
                    reader.mark()
                if prefix not in prefixes or event in ("end_map", "end_array", "map_key"):
                    continue
                if event not in ("start_map", "start_array"):
                    item: Any = value
                else:
                    item = _built(event, value, events)
                if done:  # yielded by the fast path already
                    done -= 1
                    continue
                yield prefix, item
        except ijson.JSONError as exc:
            raise _parse_error(path=path, reader=reader, exc=exc) from exc


def iter_document_items(path: Path, prefix: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(document, item)`` for every item at ``prefix`` of each JSON document in the
    file, one after another (``document`` counts from 0): a session stored with the
    documents of its sub-agents appended. Memory is bounded by the largest item."""
    with open_transcript(path) as handle:
        reader = CountingReader(handle, path, read_size=_CHECKED_READ_SIZE)
        document = -1
        try:
            events = _depth_checked(ijson.parse(reader, use_float=True, multiple_values=True),
                                    path, reader)
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


def _depth_checked(events: Iterator[tuple[str, str, Any]], path: Path, reader: CountingReader
                   ) -> Iterator[tuple[str, str, Any]]:
    """``events`` as they come, refused past :data:`MAX_DEPTH` levels of nesting."""
    depth = 0
    for prefix, event, value in events:
        if event in ("start_map", "start_array"):
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(
                    f"the transcript nests JSON too deeply to read (over {MAX_DEPTH:,} "
                    "levels)", path=path, line=reader.line,
                    hint="the transcript is corrupt or not in the format named")
        elif event in ("end_map", "end_array"):
            depth -= 1
        yield prefix, event, value


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
