"""Bounded-memory reading of one large JSON document (OpenHands, SWE-agent transcripts).

Those tools write a single JSON array or object, not JSONL, and a long session runs to
hundreds of megabytes. ``ijson`` parses it as a stream; a counting reader underneath tracks
the line reached (so errors name a line) and refuses any single item larger than
:data:`MAX_LINE_BYTES`, so memory stays bounded whatever the file holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import ijson

from arena_bot.errors import InputError
from arena_bot.transcripts.metrics import MAX_LINE_BYTES, open_transcript

# Small reads keep the reported line close to where the parser actually stopped.
READ_SIZE = 16 * 1024


class CountingReader:
    """A binary reader that counts newlines and bytes read since the last :meth:`mark`."""

    def __init__(self, handle: IO[bytes], path: Path) -> None:
        self.handle = handle
        self.path = path
        self.line = 1
        self.since_mark = 0

    def read(self, size: int = -1) -> bytes:
        """Read at most ``size`` bytes, refusing an item that grows past the cap."""
        try:
            chunk = self.handle.read(READ_SIZE if size < 0 else min(size, READ_SIZE))
        except (OSError, EOFError) as exc:
            raise InputError(
                f"cannot decompress transcript: {exc}", path=self.path, line=self.line
            ) from exc
        self.line += chunk.count(b"\n")
        self.since_mark += len(chunk)
        if self.since_mark > MAX_LINE_BYTES + READ_SIZE:
            raise InputError(
                f"one transcript item is larger than {MAX_LINE_BYTES} bytes",
                path=self.path,
                line=self.line,
                hint="the transcript is corrupt or not in the format named",
            )
        return chunk

    def mark(self) -> int:
        """Start counting a new item; return the current line."""
        self.since_mark = 0
        return self.line


def _parse_error(*, path: Path, reader: CountingReader, exc: Exception) -> InputError:
    text = str(exc)
    truncated = "incomplete" in text.lower() or "premature" in text.lower()
    what = "truncated JSON (file cut off?)" if truncated else f"invalid JSON: {text}"
    return InputError(
        f"{what} near this line", path=path, line=reader.line, hint="store the complete file"
    )


def iter_items(path: Path, *, prefix: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, item)`` for every JSON value under ``prefix`` (ijson syntax, e.g. ``item``).

    ``line`` is where the reader stood when the item was complete (exact to within one read).
    """
    with open_transcript(path) as handle:
        reader = CountingReader(handle, path)
        try:
            for item in ijson.items(reader, prefix, use_float=True):
                yield reader.line, item
                reader.mark()
        except ijson.JSONError as exc:
            raise _parse_error(path=path, reader=reader, exc=exc) from exc


def iter_events(path: Path) -> Iterator[tuple[int, str, str, Any]]:
    """Yield ``(line, prefix, event, value)`` parser events, for picking a few scalar fields."""
    with open_transcript(path) as handle:
        reader = CountingReader(handle, path)
        try:
            for prefix, event, value in ijson.parse(reader, use_float=True):
                if event in ("start_map", "start_array"):
                    reader.mark()
                yield reader.line, prefix, event, value
        except ijson.JSONError as exc:
            raise _parse_error(path=path, reader=reader, exc=exc) from exc
