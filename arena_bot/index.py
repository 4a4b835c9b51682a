"""An embedded index of what has been read, so unchanged files are not read again.

Rescoring a board re-reads every submission, patch and stored result; on a large board that
is most of the time (YAML parsing, hashing, JSON validation). The index keeps, in one SQLite
file under ``.arena/``:

* ``files``: the sha256 of each file read, keyed by its path and stat signature (size,
  modification time in ns, inode). A file whose signature is unchanged is not read again;
  any change to it (git checkout, an edit, a copy) changes the signature and the file is
  hashed afresh.
* ``memo``: values computed from content hashes only (a parsed submission, the verdict of a
  validation, the columns of a result), keyed by a namespace and a content key. Because the
  key is built from content hashes, a stale entry can never be served: changed inputs give a
  different key.

The index is never the source of truth. Deleting it loses nothing but time (the next run
rebuilds it from the files); a corrupt or foreign file is discarded and rebuilt; writes
happen in one transaction at :meth:`Index.close`, so a run killed mid-way leaves the previous
index intact (SQLite's journal guarantees it). It is a cache for trusted machines: whoever
can write ``.arena/`` can also write the results it sits beside.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

#: Bump when the meaning of a stored value changes; an index of another version is rebuilt.
INDEX_VERSION = 1
INDEX_FILE = "index.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL, sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memo (
    namespace TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (namespace, key)
);
"""

Signature = tuple[int, int, int]


def signature(stat: os.stat_result) -> Signature:
    """What identifies one version of a file without reading it."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def sha256_file(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@dataclass
class Index:
    """File digests and content-keyed values, backed by SQLite (or by memory alone).

    ``Index(None)`` keeps everything in memory for one run: the same API, nothing stored.
    Use :func:`open_index` to get one backed by ``.arena/index.sqlite``.
    """

    path: Path | None
    _files: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    _memo: dict[tuple[str, str], bytes] = field(default_factory=dict)
    _new_files: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    _new_memo: dict[tuple[str, str], bytes] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def __post_init__(self) -> None:
        if self.path is not None:
            self._load()

    # -- files -----------------------------------------------------------------------------

    def file_digest(self, path: Path, stat: os.stat_result | None = None) -> str:
        """sha256 of ``path``'s bytes, read only when its stat signature is new."""
        key = os.fspath(path)
        current = signature(stat or path.stat())
        known = self._files.get(key)
        if known is not None and known[0] == current:
            self.hits += 1
            return known[1]
        self.misses += 1
        digest = sha256_file(path)
        self._files[key] = self._new_files[key] = (current, digest)
        return digest

    # -- memo ------------------------------------------------------------------------------

    def memo(self, namespace: str, key: str, compute: Callable[[], bytes]) -> bytes:
        """The value stored for ``(namespace, key)``, computing and storing it when absent.

        ``key`` must be derived from content hashes (never from paths or times), so that a
        stored value is always the value ``compute`` would return now.
        """
        slot = (namespace, key)
        value = self._memo.get(slot)
        if value is not None:
            self.hits += 1
            return value
        self.misses += 1
        value = compute()
        self._memo[slot] = self._new_memo[slot] = value
        return value

    # -- storage ---------------------------------------------------------------------------

    def close(self) -> None:
        """Write what this run learnt, in one transaction (atomic against a kill)."""
        if self.path is None or not (self._new_files or self._new_memo):
            return
        try:
            with _transaction(self.path) as db:
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),)
                )
                db.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
                    [(p, *sig, digest) for p, (sig, digest) in self._new_files.items()],
                )
                db.executemany(
                    "INSERT OR REPLACE INTO memo VALUES (?, ?, ?)",
                    [(ns, key, value) for (ns, key), value in self._new_memo.items()],
                )
        except sqlite3.Error:
            # The index only saves time; a store that cannot be written is dropped so the
            # next run starts clean, and this run's results stand.
            _discard(self.path)
        self._new_files.clear()
        self._new_memo.clear()

    def _load(self) -> None:
        assert self.path is not None
        try:
            with _transaction(self.path) as db:
                version = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if version is None or version[0] != str(INDEX_VERSION):
                    db.executescript("DELETE FROM files; DELETE FROM memo;")
                    db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),)
                    )
                    return
                for path, size, mtime_ns, inode, digest in db.execute("SELECT * FROM files"):
                    self._files[path] = ((size, mtime_ns, inode), digest)
                for namespace, key, value in db.execute("SELECT * FROM memo"):
                    self._memo[(namespace, key)] = bytes(value)
        except sqlite3.Error:
            # Corrupt, truncated or not an index at all: rebuild from the files.
            _discard(self.path)
            self._files.clear()
            self._memo.clear()


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=30)
    db.executescript(_SCHEMA)
    return db


@contextmanager
def _transaction(path: Path) -> Iterator[sqlite3.Connection]:
    """One connection, one transaction: committed when the block ends, else rolled back."""
    db = _connect(path)
    try:
        with db:
            yield db
    finally:
        db.close()


def _discard(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def open_index(cache_dir: Path | None) -> Iterator[Index]:
    """The index under ``cache_dir`` (``.arena/``) for the duration of a command.

    ``None`` gives an in-memory index. What was learnt is written when the block ends
    normally; on an error nothing is written and the stored index stays as it was.
    """
    index = Index(cache_dir / INDEX_FILE if cache_dir is not None else None)
    yield index
    index.close()


def folder_digest(root: Path, index: Index) -> str:
    """sha256 over the relative paths and file digests of every regular file under ``root``.

    The same value as :func:`arena_bot.evaluation.digest.folder_digest`, reading only files
    whose stat signature the index has not seen.
    """
    digest = hashlib.sha256()
    for path, stat in _regular_files(root):
        relative = path.relative_to(root).as_posix().encode()
        digest.update(len(relative).to_bytes(4, "big") + relative)
        digest.update(bytes.fromhex(index.file_digest(path, stat)))
    return digest.hexdigest()


def _regular_files(root: Path) -> list[tuple[Path, os.stat_result]]:
    found: list[tuple[Path, os.stat_result]] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                # Symlinks are skipped: a folder must not pull in files from elsewhere.
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    stack.append(Path(entry.path))
                elif entry.is_file():
                    found.append((Path(entry.path), entry.stat()))
    found.sort(key=lambda item: item[0])
    return found
