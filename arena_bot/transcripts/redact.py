"""Secrets and e-mail addresses are redacted before a transcript is stored with a submission.

Agent sessions see environment variables, config files and git logs, so a transcript can
carry an API key. Each pattern is replaced by ``[REDACTED:<kind>]``: the replacement holds no
quote or backslash, so a JSON line stays valid JSON and the importers read the same figures.
The copy streams line by line (bounded memory) and gzip-compresses large transcripts.
"""

from __future__ import annotations

import gzip
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from arena_bot.errors import InputError
from arena_bot.transcripts.metrics import MAX_LINE_BYTES, open_transcript

SECRET_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "private-key": re.compile(
        rb"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    ),
    "anthropic-key": re.compile(rb"sk-ant-[A-Za-z0-9_-]{20,}"),
    "openai-key": re.compile(rb"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    "github-token": re.compile(rb"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "aws-key": re.compile(rb"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "google-key": re.compile(rb"\bAIza[0-9A-Za-z_-]{35}\b"),
    "slack-token": re.compile(rb"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "bearer-token": re.compile(rb"(?i)(?<=bearer )[A-Za-z0-9._~+/-]{20,}=*"),
    "email": re.compile(rb"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
}

#: Transcripts larger than this are stored gzip-compressed.
COMPRESS_ABOVE_BYTES = 1024 * 1024
#: A stored (possibly compressed) transcript larger than this is refused.
MAX_STORED_BYTES = 20 * 1024 * 1024


@dataclass
class RedactionReport:
    """Which lines were changed, by kind, so the contributor can check them."""

    lines: dict[str, list[int]] = field(default_factory=dict)

    def add(self, *, kind: str, line: int) -> None:
        found = self.lines.setdefault(kind, [])
        if not found or found[-1] != line:
            found.append(line)

    @property
    def changed(self) -> bool:
        return bool(self.lines)

    def describe(self) -> str:
        """``email on lines 3, 9; openai-key on line 12`` (first ten lines per kind)."""
        parts = []
        for kind, numbers in sorted(self.lines.items()):
            shown = ", ".join(str(n) for n in numbers[:10])
            more = f" and {len(numbers) - 10} more" if len(numbers) > 10 else ""
            parts.append(f"{kind} on line{'s' if len(numbers) > 1 else ''} {shown}{more}")
        return "; ".join(parts)


def redact_line(line: bytes, *, number: int, report: RedactionReport) -> bytes:
    """``line`` with every secret replaced; each replacement is recorded in ``report``."""
    for kind, pattern in SECRET_PATTERNS.items():
        line, count = pattern.subn(b"[REDACTED:" + kind.encode() + b"]", line)
        if count:
            report.add(kind=kind, line=number)
    return line


def find_secrets(path: Path) -> RedactionReport:
    """Scan a stored transcript; a non-empty report means it must not be committed."""
    report = RedactionReport()
    with open_transcript(path) as handle:
        for number, raw in enumerate(_lines(handle, path), start=1):
            redact_line(raw, number=number, report=report)
    return report


def _lines(handle: IO[bytes], path: Path) -> Iterator[bytes]:
    number = 0
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(f"line longer than {MAX_LINE_BYTES} bytes", path=path, line=number)
        yield raw


def store_redacted(*, source: Path, folder: Path, stem: str) -> tuple[Path, RedactionReport]:
    """Copy ``source`` into ``folder`` as ``stem`` + its suffix, redacted; gzip it when large.

    Returns the stored file and what was redacted. Raises :class:`InputError` when the stored
    file would exceed :data:`MAX_STORED_BYTES`.
    """
    report = RedactionReport()
    suffix = "".join(s for s in source.suffixes[-1:] if s != ".gz") or ".log"
    if source.suffix == ".gz" and len(source.suffixes) > 1:
        suffix = source.suffixes[-2]
    plain = folder / f"{stem}{suffix}"
    with open_transcript(source) as handle, plain.open("wb") as out:
        for number, raw in enumerate(_lines(handle, source), start=1):
            out.write(redact_line(raw, number=number, report=report))
    stored = plain
    if plain.stat().st_size > COMPRESS_ABOVE_BYTES:
        stored = plain.with_name(plain.name + ".gz")
        with plain.open("rb") as raw_in, gzip.open(stored, "wb", compresslevel=9) as packed:
            shutil.copyfileobj(raw_in, packed)
        plain.unlink()
    if stored.stat().st_size > MAX_STORED_BYTES:
        raise InputError(
            f"transcript is {stored.stat().st_size:,} bytes stored, over the "
            f"{MAX_STORED_BYTES:,}-byte cap",
            path=source,
            hint="submit the session of this run only, not a whole history",
        )
    return stored, report
