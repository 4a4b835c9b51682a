"""Content digests of folders (task and submission folders), for content addressing."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from arena_bot.core.files import read_at_most

#: Files are hashed whole up to this size, in blocks of it beyond.
_BLOCK = 1 << 20


def _files(root: Path) -> list[tuple[list[str], str]]:
    """Every regular file under ``root``: its path's parts and its path, sorted as paths
    sort. Symlinks are skipped (neither followed nor hashed): a task or submission must not
    pull in files from elsewhere."""
    found: list[tuple[list[str], str]] = []
    stack: list[tuple[str, list[str]]] = [(os.fspath(root), [])]
    while stack:
        here, parts = stack.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, [*parts, entry.name]))
                    elif entry.is_file(follow_symlinks=False):
                        found.append(([*parts, entry.name], entry.path))
        except OSError:  # unreadable: none of its files are part of the digest
            continue
    return sorted(found)


def folder_digest(root: Path) -> str:
    """sha256 over the relative paths and contents of every regular file under ``root``."""
    digest = hashlib.sha256()
    for parts, path in _files(root):
        # The name's own bytes: a name that is not UTF-8 (git stores any bytes) is decoded
        # by Python with surrogate escapes, which plain UTF-8 cannot encode.
        relative = "/".join(parts).encode("utf-8", "surrogateescape")
        digest.update(len(relative).to_bytes(4, "big") + relative)
        with open(path, "rb") as handle:
            # Not hashlib.file_digest: its 256 KiB buffer per file costs more than hashing
            # the few KiB of a patch (a cold board hashes 100,000 files).
            raw = read_at_most(handle, _BLOCK)
            inner = hashlib.sha256(raw)
            if len(raw) > _BLOCK:  # a large file: the rest in blocks
                while block := handle.read(_BLOCK):
                    inner.update(block)
        digest.update(inner.digest())
    return digest.hexdigest()
