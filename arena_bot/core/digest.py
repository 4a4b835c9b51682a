"""Content digests of folders (task and submission folders), for content addressing."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        # Symlinks are skipped: a task or submission must not pull in files from elsewhere.
        if path.is_file() and not path.is_symlink():
            yield path


def folder_digest(root: Path) -> str:
    """sha256 over the relative paths and contents of every regular file under ``root``."""
    digest = hashlib.sha256()
    for path in _files(root):
        relative = path.relative_to(root).as_posix().encode()
        digest.update(len(relative).to_bytes(4, "big") + relative)
        with path.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()
