"""An embedded index of what has been read, so unchanged files are not read again.

Rescoring a board re-reads every submission, patch and stored result; on a large board that
is most of the time (YAML parsing, hashing, JSON validation). The index keeps, in one SQLite
file under ``.arena/``:

* ``files``: the sha256 of each file read, keyed by its path and stat signature (size,
  modification time in ns, inode, status-change time in ns). A file whose signature is
  unchanged is not read again; any change to it (git checkout, an edit, a copy, ``touch -d``
  or ``cp -p`` restoring an old modification time: the kernel sets the change time, which no
  program can set back) changes the signature and the file is hashed afresh. Folders are
  rows too (their path ends in ``/``): their listing, trusted while the folder's own
  signature is unchanged (adding, removing or renaming an entry changes it; editing a file
  in place does not, which is why every file keeps its own row).
* ``memo``: values computed from content hashes only (a parsed submission, the verdict of a
  validation, the columns of a result), keyed by a namespace and a content key. Because the
  key is built from content hashes, a stale entry can never be served: changed inputs give a
  different key.

What the index trusts, then, is the stat signature, and only a *settled* one: a signature
whose modification time is less than :data:`RACY_NS` before the run started is used in the
run but never stored, because a second change within the same timestamp tick would leave it
unchanged (git's "racy clean" problem; file systems stamp times from a coarse clock, some
with 1-2 s granularity). Such files are simply hashed again next time.

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
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

#: Bump when the meaning of a stored value changes; an index of another version is rebuilt.
INDEX_VERSION = 2
INDEX_FILE = "index.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memo (
    namespace TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (namespace, key)
);
"""

Signature = tuple[int, int, int, int]
M = TypeVar("M", bound=BaseModel)
#: Files bigger than this are never cached models (the formats' own caps are smaller).
_MAX_CACHED_BYTES = 1024 * 1024
#: A signature modified less than this before the run started is not stored (see above).
RACY_NS = 2_000_000_000
#: Files up to this size are kept in memory after hashing, up to _RECENT_BYTES in all.
_RECENT_FILE = 256 * 1024
_RECENT_BYTES = 8 * 1024 * 1024


def signature(stat: os.stat_result) -> Signature:
    """What identifies one version of a file without reading it."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns)


def absolute_path(path: Path | str) -> str:
    """``os.path.abspath(path)``, without normalising a path that is already absolute and
    normal (a whole board's folders are: this is asked of each of them several times)."""
    text = os.fspath(path)
    if text[:1] == "/" and "/." not in text and "//" not in text and text[-1:] != "/":
        return text
    return os.path.abspath(text)


def spell(found: Signature | None) -> str:
    """A signature as text, ``""`` for a missing file: how task witnesses and the board's
    output manifest keep it."""
    return "" if found is None else "{}:{}:{}:{}".format(*found)


def sha256_file(path: Path | str) -> str:
    # One read for the small files a board is made of; hashlib.file_digest would allocate a
    # 256 KiB buffer per file, which costs more than hashing them.
    with open(path, "rb") as handle:
        data = handle.read(_SMALL_FILE)
        if len(data) < _SMALL_FILE:
            return hashlib.sha256(data).hexdigest()
        digest = hashlib.sha256(data)
        while chunk := handle.read(_SMALL_FILE):
            digest.update(chunk)
        return digest.hexdigest()


_SMALL_FILE = 1 << 20


@dataclass
class Index:
    """File digests and content-keyed values, backed by SQLite (or by memory alone).

    ``Index(None)`` keeps everything in memory for one run: the same API, nothing stored.
    Use :func:`open_index` to get one backed by ``.arena/index.sqlite``. Stored rows are read
    one by one as they are asked for (a PR's three submissions do not load a 50,000-row
    index); what a run learns is kept in memory and written by :meth:`close`.
    """

    path: Path | None
    _db: sqlite3.Connection | None = None
    _new_files: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    _new_memo: dict[tuple[str, str], bytes] = field(default_factory=dict)
    _preloaded: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    _preloaded_roots: list[str] = field(default_factory=list)
    _preloaded_listing_roots: list[str] = field(default_factory=list)
    _preloaded_memo: dict[tuple[str, str], bytes] = field(default_factory=dict)
    #: Listings taken in this run. A run is one command: a folder changed by the command
    #: itself (the result store's writes) must be listed afresh, see :meth:`forget`.
    _listed: dict[str, tuple[Signature, list[tuple[str, str]]]] = field(default_factory=dict)
    _preloaded_namespaces: set[str] = field(default_factory=set)
    hits: int = 0
    misses: int = 0
    #: :func:`code_fingerprint`, computed once per run.
    fingerprint: str | None = None
    #: When the run started (wall clock): signatures modified since ``started_ns - RACY_NS``
    #: are not stored.
    started_ns: int = field(default_factory=time.time_ns)
    #: The signature each path had when this run looked at it, before reading it (folders
    #: end in ``/``; ``None``: absent). What a witness of a computation is made of
    #: (see :mod:`arena_bot.scoring.witness`).
    observed: dict[str, Signature | None] = field(default_factory=dict)
    _recording: list[list[str]] = field(default_factory=list)
    #: Bytes of small files just hashed, for the parse that usually follows (one read, and
    #: the value parsed is the one hashed); at most _RECENT_BYTES in all.
    #: An OrderedDict: dropping the oldest is O(1) (``next(iter(dict))`` walks over every
    #: slot freed before it, which made a fresh checkout's 150,000 hashes quadratic-ish).
    _recent: OrderedDict[str, bytes] = field(default_factory=OrderedDict)
    _recent_size: int = 0
    #: Signatures (spelt) witnesses and listings found in this run, by path: a later
    #: witness of the same run trusts them (see :meth:`arena_bot.scoring.witness.Witness.
    #: holds`); what this run writes is dropped from it (:meth:`forget`). Absent paths are
    #: never kept.
    verified: dict[str, str] = field(default_factory=dict)
    _prune: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    _retain: dict[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.path is not None:
            self._open()

    # -- files -----------------------------------------------------------------------------

    def file_digest(self, path: Path | str, stat: os.stat_result | None = None) -> str:
        """sha256 of ``path``'s bytes, read only when its stat signature is new."""
        key = path if isinstance(path, str) and path.startswith("/") else os.path.abspath(path)
        current = signature(stat or os.stat(key))
        self._observe(key, current)
        known = self._new_files.get(key) or self._stored_file(key)
        if known is not None and known[0] == current:
            self.hits += 1
            return known[1]
        self.misses += 1
        data = None
        if current[0] <= _RECENT_FILE:
            with open(key, "rb") as handle:
                data = handle.read(_RECENT_FILE + 1)
        if data is not None and len(data) <= _RECENT_FILE:
            digest = hashlib.sha256(data).hexdigest()
            self._remember_bytes(key, data)
        else:  # big, or grown since its stat: hashed in chunks, never held whole
            digest = sha256_file(path)
        self._new_files[key] = (current, digest)
        self._preloaded.pop(key, None)  # superseded: a fresh checkout replaces every row
        return digest

    def _remember_bytes(self, key: str, data: bytes) -> None:
        self._recent[key] = data
        self._recent_size += len(data)
        while self._recent_size > _RECENT_BYTES:
            self._recent_size -= len(self._recent.popitem(last=False)[1])

    def recent_bytes(self, path: Path | str) -> bytes | None:
        """The bytes :meth:`file_digest` just read from ``path`` in this run, once."""
        data = self._recent.pop(os.path.abspath(path), None)
        if data is not None:
            self._recent_size -= len(data)
        return data

    def preload(self, *roots: Path) -> None:
        """Read at once every stored file row under ``roots`` (a whole-board run asks for
        nearly all of them; one range scan beats a query per file)."""
        for root in roots:
            self._preloaded_roots += self._preload_rows(root, "path > ?")

    def preload_listings(self, root: Path) -> None:
        """Read at once the stored listing of every folder under ``root`` (a walk of the
        whole board lists all of them), not the rows of its files."""
        self._preloaded_listing_roots += self._preload_rows(
            root, "path >= ? AND substr(path, -1) = '/'"
        )

    def _preload_rows(self, root: Path, where: str) -> list[str]:
        """The stored rows under ``root`` that ``where`` (given ``root/`` as its one
        parameter) selects, into the preloaded rows; ``[root/]`` (none without a store)."""
        if self._db is None:
            return []
        prefix = os.path.abspath(root)
        rows = self._read_all(
            "SELECT path, size, mtime_ns, inode, ctime_ns, sha256 FROM files "
            f"WHERE {where} AND path < ?", f"{prefix}/", f"{prefix}0",
        )
        for path, size, mtime_ns, inode, ctime_ns, digest in rows:
            self._preloaded[path] = ((size, mtime_ns, inode, ctime_ns), digest)
        return [f"{prefix}/"]

    def preload_memo(self, namespace: str) -> None:
        """Read at once every stored value of ``namespace`` (for whole-board runs)."""
        for key, value in self._read_all(
            "SELECT key, value FROM memo WHERE namespace = ?", namespace
        ):
            self._preloaded_memo[(namespace, key)] = bytes(value)
        self._preloaded_namespaces.add(namespace)

    def listing(self, folder: str) -> list[tuple[str, str]]:
        """``(name, kind)`` of each entry of ``folder``; kind ``f`` file, ``d`` folder,
        ``l`` symlink, ``o`` other. Symlinks are never followed.

        Remembered by the folder's stat signature: adding, removing or renaming an entry
        changes a folder's modification time (git's untracked cache relies on the same),
        so an unchanged folder costs one ``stat``, not a read of its entries.
        """
        absolute = folder if folder.startswith("/") else os.path.abspath(folder)
        key = f"{absolute}/"
        cached = self._listed.get(absolute)
        if cached is not None:  # already looked at in this run (walk, then digest)
            self._observe(key, cached[0])
            return cached[1]
        try:
            current = signature(os.lstat(absolute))
        except OSError:
            self._observe(key, None)
            raise
        self._observe(key, current)
        # What this run found, as a witness would have: the next witness need not look.
        self.verified[key] = spell(current)
        known = self._new_files.get(key) or self._stored_file(key)
        if known is not None and known[0] == current:
            text = known[1]
            listed = [(item[:-2], item[-1]) for item in text.split("\0")] if text else []
            self._listed[absolute] = (current, listed)
            return listed
        entries: list[tuple[str, str]] = []
        with os.scandir(key[:-1]) as scan:
            for entry in scan:
                if entry.is_symlink():
                    kind = "l"
                elif entry.is_dir(follow_symlinks=False):
                    kind = "d"
                elif entry.is_file(follow_symlinks=False):
                    kind = "f"
                else:
                    kind = "o"
                entries.append((entry.name, kind))
        entries.sort()
        self._new_files[key] = (current, "\0".join(f"{name}\x01{kind}" for name, kind in entries))
        self._preloaded.pop(key, None)
        self._listed[absolute] = (current, entries)
        return entries

    def forget(self, folder: Path | str, written: Path | str | None = None) -> None:
        """Drop this run's listing of ``folder`` (the command has just written into it,
        ``written`` if named), and what this run verified of it, the file and the folders
        above it (a folder made on the way changed its parent's entries)."""
        absolute = os.path.abspath(folder)
        self._listed.pop(absolute, None)
        self.observed.pop(f"{absolute}/", None)
        if written is not None:
            self.verified.pop(os.path.abspath(written), None)
        here = absolute
        while True:
            self.verified.pop(f"{here}/", None)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent

    def settled(self, current: Signature | None) -> bool:
        """Whether ``current`` may be trusted by a later run (see the module's docstring)."""
        return current is None or current[1] < self.started_ns - RACY_NS

    @contextmanager
    def recording(self) -> Iterator[list[str]]:
        """The paths (folders ending in ``/``) looked at while the block runs, in order,
        each with its signature in :attr:`observed`."""
        seen: list[str] = []
        self._recording.append(seen)
        try:
            yield seen
        finally:
            self._recording.remove(seen)

    def note(self, path: Path | str, stat: os.stat_result | None = None) -> None:
        """Record ``path``'s signature (``None``: absent) for the witness being recorded: a
        file read outside the index (a stored result) that a computation depended on."""
        if not self._recording:
            return
        key = os.path.abspath(path)
        try:
            current: Signature | None = signature(stat or os.stat(key))
        except OSError:
            current = None
        self._observe(key, current)

    def release(self, seen: Collection[str]) -> None:
        """Forget the signatures of ``seen`` (a witness has been made of them)."""
        for key in seen:
            self.observed.pop(key, None)

    def _observe(self, key: str, current: Signature | None) -> None:
        # Only while a witness is being recorded: a whole board has hundreds of thousands.
        if self._recording:
            self.observed[key] = current
            for seen in self._recording:
                seen.append(key)

    def retain(self, namespace: str, keys: Collection[str]) -> None:
        """Drop, when the run ends, every value of ``namespace`` but those of ``keys`` (the
        board's parts and summary of an earlier state will not be asked for again)."""
        self._retain[namespace] = frozenset(keys)

    def prune(self, folder: str, keep: Collection[str]) -> None:
        """Drop, when the run ends, the rows under ``folder`` (absolute) except ``keep``:
        files that are gone. Rows are keyed as :attr:`observed` is (folders end in ``/``)."""
        self._prune.append((f"{folder.rstrip('/')}/", frozenset(keep)))

    # -- memo ------------------------------------------------------------------------------

    def memo(self, namespace: str, key: str, compute: Callable[[], bytes]) -> bytes:
        """The value stored for ``(namespace, key)``, computing and storing it when absent.

        ``key`` must be derived from content hashes (never from paths or times), so that a
        stored value is always the value ``compute`` would return now.
        """
        value = self.lookup(namespace, key)
        if value is None:
            value = compute()
            self.store(namespace, key, value)
        return value

    def lookup(self, namespace: str, key: str) -> bytes | None:
        """The value stored for ``(namespace, key)``, or ``None`` (see :meth:`memo`)."""
        value = self._new_memo.get((namespace, key))
        if value is None:
            value = self._stored_memo(namespace, key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def store(self, namespace: str, key: str, value: bytes) -> None:
        """Remember ``value``; ``key`` must be derived from content hashes (see :meth:`memo`)."""
        self._new_memo[(namespace, key)] = value

    # -- storage ---------------------------------------------------------------------------

    def close(self) -> None:
        """Write what this run learnt, in one transaction (atomic against a kill).

        Values computed by another version of the bot (a different :func:`code_fingerprint`)
        can never be asked for again: they are dropped in the same transaction.
        """
        self._close_reader()
        if self.path is None or not (self._new_files or self._new_memo or self._prune
                                     or self._retain):
            return
        try:
            with _transaction(self.path) as db:
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),)
                )
                db.executemany(  # a generator: a fresh checkout writes every row anew
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
                    ((p, *sig, digest) for p, (sig, digest) in self._new_files.items()
                     if self.settled(sig)),
                )
                self._write_prunes(db)
                for namespace, keys in self._retain.items():
                    stored = db.execute(
                        "SELECT key FROM memo WHERE namespace = ?", (namespace,)
                    ).fetchall()
                    db.executemany(
                        "DELETE FROM memo WHERE namespace = ? AND key = ?",
                        [(namespace, key) for (key,) in stored if key not in keys],
                    )
                if self.fingerprint is not None and self._new_memo:
                    db.execute(
                        "DELETE FROM memo WHERE key LIKE '%:%' AND substr(key, 1, ?) != ?",
                        (len(self.fingerprint) + 1, f"{self.fingerprint}:"),
                    )
                db.executemany(
                    "INSERT OR REPLACE INTO memo VALUES (?, ?, ?)",
                    [(ns, key, value) for (ns, key), value in self._new_memo.items()],
                )
        except (sqlite3.Error, OSError, UnicodeError):
            # The index only saves time; a store that cannot be written is dropped so the
            # next run starts clean, and this run's results stand.
            _discard(self.path)
        self._new_files.clear()
        self._new_memo.clear()
        self._prune.clear()
        self._retain.clear()

    def _write_prunes(self, db: sqlite3.Connection) -> None:
        """Delete the rows of files that are gone (see :meth:`prune`), and the parsed models
        and patch digests of contents no remaining file has."""
        gone: list[tuple[str]] = []
        for prefix, keep in self._prune:
            rows = db.execute(
                "SELECT path FROM files WHERE path > ? AND path < ?",
                (prefix, f"{prefix[:-1]}0"),
            ).fetchall()
            gone += [(path,) for (path,) in rows
                     if path not in keep and path not in self._new_files]
        if not gone:
            return
        db.executemany("DELETE FROM files WHERE path = ?", gone)
        if self.fingerprint is not None:
            db.execute(
                "DELETE FROM memo WHERE (namespace LIKE 'model:%' OR namespace = "
                "'patch-digest') AND substr(key, ?) NOT IN (SELECT sha256 FROM files)",
                (len(self.fingerprint) + 2,),
            )

    def abandon(self) -> None:
        """Forget what this run learnt and release the stored index (nothing is written)."""
        self._close_reader()
        self._new_files.clear()
        self._new_memo.clear()
        self._prune.clear()
        self._retain.clear()

    def _open(self) -> None:
        assert self.path is not None
        try:
            db = _connect(self.path)
            version = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if version is not None and version[0] == str(INDEX_VERSION):
                self._db = db
                return
            with db:
                # Another version's tables may have other columns: start them afresh.
                db.executescript(
                    "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS memo;" + _SCHEMA
                )
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),)
                )
            db.close()
        except (sqlite3.Error, OSError):
            # Corrupt, truncated, unreadable or not an index at all: rebuild from the files.
            self._close_reader()
            _discard(self.path)

    def _stored_file(self, key: str) -> tuple[Signature, str] | None:
        known = self._preloaded.get(key)
        if known is not None or any(key.startswith(r) for r in self._preloaded_roots):
            return known
        if key.endswith("/") and any(key.startswith(r) for r in self._preloaded_listing_roots):
            return None
        row = self._read(
            "SELECT size, mtime_ns, inode, ctime_ns, sha256 FROM files WHERE path = ?", key
        )
        return ((row[0], row[1], row[2], row[3]), row[4]) if row is not None else None

    def _stored_memo(self, namespace: str, key: str) -> bytes | None:
        if namespace in self._preloaded_namespaces:
            return self._preloaded_memo.get((namespace, key))
        row = self._read("SELECT value FROM memo WHERE namespace = ? AND key = ?", namespace, key)
        return bytes(row[0]) if row is not None else None

    def _read_all(self, query: str, *args: str) -> list[tuple[Any, ...]]:
        if self._db is None:
            return []
        try:
            return self._db.execute(query, args).fetchall()
        except sqlite3.Error:
            self._close_reader()
            if self.path is not None:
                _discard(self.path)
            return []

    def _read(self, query: str, *args: str) -> tuple[Any, ...] | None:
        if self._db is None:
            return None
        try:
            row: tuple[Any, ...] | None = self._db.execute(query, args).fetchone()
            return row
        except sqlite3.Error:
            # Damaged mid-run: stop reading it; close() rewrites what this run learnt.
            self._close_reader()
            if self.path is not None:
                _discard(self.path)
            return None

    def _close_reader(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


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
        # A read-only cache folder: there is nothing to clean up then.
        with suppress(OSError):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


@dataclass(frozen=True)
class IndexSummary:
    """What ``arena index show`` prints: where the index is and what it holds."""

    path: Path
    exists: bool
    size_bytes: int = 0
    version: str | None = None
    files: int = 0
    folders: int = 0
    memo: dict[str, int] = field(default_factory=dict)
    #: Why the file could not be read (it would be rebuilt on the next run), if it could not.
    problem: str | None = None


def summarize_index(cache_dir: Path) -> IndexSummary:
    """Count what the index under ``cache_dir`` holds, reading it only (never repairing)."""
    path = cache_dir / INDEX_FILE
    if not path.is_file():
        return IndexSummary(path=path, exists=False)
    size = path.stat().st_size
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            version = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            files, folders = db.execute(
                "SELECT COUNT(*) - SUM(path LIKE '%/'), SUM(path LIKE '%/') FROM files"
            ).fetchone()
            memo = dict(db.execute(
                "SELECT namespace, COUNT(*) FROM memo GROUP BY namespace ORDER BY namespace"
            ).fetchall())
        finally:
            db.close()
    except sqlite3.Error as exc:
        return IndexSummary(path=path, exists=True, size_bytes=size,
                            problem=f"not a readable index ({exc}); the next run rebuilds it")
    return IndexSummary(
        path=path, exists=True, size_bytes=size,
        version=version[0] if version else None,
        files=int(files or 0), folders=int(folders or 0), memo=memo,
    )


def clear_index(cache_dir: Path) -> bool:
    """Delete the index under ``cache_dir`` (and SQLite's side files); ``True`` if one was
    there. Nothing else under ``.arena/`` is touched: results are the store, not a cache."""
    path = cache_dir / INDEX_FILE
    existed = path.exists()
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return existed


@contextmanager
def open_index(cache_dir: Path | None) -> Iterator[Index]:
    """The index under ``cache_dir`` (``.arena/``) for the duration of a command.

    ``None`` gives an in-memory index. What was learnt is written when the block ends
    normally; on an error nothing is written and the stored index stays as it was.
    """
    index = Index(cache_dir / INDEX_FILE if cache_dir is not None else None)
    try:
        yield index
    except BaseException:
        index.abandon()
        raise
    index.close()


def folder_digest(root: Path | str, index: Index) -> str:
    """sha256 over the relative paths and file digests of every regular file under ``root``.

    The same value as :func:`arena_bot.core.digest.folder_digest`, reading only files
    whose stat signature the index has not seen, and folders whose own has changed.
    """
    digest = hashlib.sha256()
    top = root if isinstance(root, str) and root.startswith("/") else os.path.abspath(root)
    for parts, path in regular_files(top, index):
        relative = "/".join(parts).encode(errors="surrogateescape")
        digest.update(len(relative).to_bytes(4, "big") + relative)
        digest.update(bytes.fromhex(index.file_digest(path)))
    return digest.hexdigest()


def regular_files(root: str, index: Index) -> list[tuple[tuple[str, ...], str]]:
    """(relative parts, path) of every regular file under ``root``, in path order.

    Symlinks are skipped: a folder must not pull in files from elsewhere. The order is that
    of :class:`pathlib.Path` (part by part), which the content addresses were defined with.
    """
    found: list[tuple[tuple[str, ...], str]] = []
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, parts = stack.pop()
        for name, kind in index.listing(folder):
            if kind == "d":
                stack.append((f"{folder}/{name}", (*parts, name)))
            elif kind == "f":
                found.append(((*parts, name), f"{folder}/{name}"))
    found.sort(key=lambda item: item[0])
    return found


def code_fingerprint(index: Index) -> str:
    """A digest of this package's own files (code, schemas, price table).

    Memo keys of values computed *by* the bot (validation verdicts, parsed models) include it,
    so upgrading or editing the bot never serves a value an older version computed.
    """
    if index.fingerprint is None:
        index.fingerprint = source_digest(Path(__file__).resolve().parent, index)
    return index.fingerprint


def source_digest(root: Path, index: Index) -> str:
    """sha256 over the relative paths and digests of a package's files, bytecode left out.

    Compiled files (``__pycache__/``) are not the code: their headers carry the source's
    modification time, which every install and every checkout changes, and Python writes
    more of them as a run imports more modules. Counting them made each CI runner (pip
    compiles at install) and each first import of a module look like a new version of the
    bot, so nothing remembered was ever served.
    """
    digest = hashlib.sha256()
    for parts, path in regular_files(os.path.abspath(root), index):
        if "__pycache__" in parts or parts[-1].endswith((".pyc", ".pyo")):
            continue
        relative = "/".join(parts).encode(errors="surrogateescape")
        digest.update(len(relative).to_bytes(4, "big") + relative)
        digest.update(bytes.fromhex(index.file_digest(path)))
    return digest.hexdigest()


def cached_model(
    path: Path,
    model: type[M],
    index: Index | None,
    load: Callable[[Path], M],
    parse: Callable[[Path, bytes], M] | None = None,
) -> M:
    """``load(path)``, or the model stored for these exact file bytes by an earlier run.

    ``load`` parses and validates the file (raising on a bad one, which is never stored); a
    stored value is re-validated from JSON, which is several times faster than YAML with line
    tracking. Only a file that loaded cleanly is ever stored. ``parse`` does what ``load``
    does from the bytes the index has just hashed (the file is not read twice).
    """
    if index is None:
        return load(path)
    try:
        stat = path.stat()
    except OSError:
        return load(path)  # missing or unreadable: ``load`` says so in its own words
    if stat.st_size > _MAX_CACHED_BYTES:
        return load(path)  # ``load`` applies its size cap before reading
    digest = index.file_digest(path, stat)
    key = f"{code_fingerprint(index)}:{digest}"
    namespace = f"model:{model.__name__}"
    stored = index.lookup(namespace, key)
    if stored is not None:
        return model.model_validate_json(stored)
    data = index.recent_bytes(path) if parse is not None else None
    value = parse(path, data) if parse is not None and data is not None else load(path)
    index.store(namespace, key, value.model_dump_json().encode())
    return value


def tree_state(root: Path, index: Index) -> str:
    """A digest of everything under ``root`` a check can see: names, kinds, modes, bytes.

    Unlike :func:`folder_digest` (what a container sees: regular files only), symbolic links
    (with their targets), folders and permission bits count here, because validation refuses
    some of them: a memoised verdict must change when any of them does. A missing ``root``
    has a state of its own.
    """
    top_path = os.path.abspath(root)
    try:
        top = os.lstat(top_path)
    except OSError:
        return hashlib.sha256(b"absent").hexdigest()
    digest = hashlib.sha256(f"root {top.st_mode:o}\n".encode())
    if os.path.islink(top_path):
        index.note(top_path)  # a witness of a link never holds (stat follows it): checked
        digest.update(os.readlink(top_path).encode(errors="surrogateescape"))
        return digest.hexdigest()
    stack = [(top_path, "")]
    while stack:
        folder, relative = stack.pop()
        try:
            entries = index.listing(folder)
        except OSError as exc:  # not a folder, or unreadable: its state is that
            digest.update(f"{relative}\0error {exc.errno}\n".encode())
            continue
        for name, kind in entries:
            path = f"{folder}/{name}"
            shown = f"{relative}{name}"
            try:
                stat = os.lstat(path)
            except OSError:  # gone since the listing: a state of its own
                digest.update(f"{shown}\0vanished\n".encode(errors="surrogateescape"))
                continue
            digest.update(f"{shown}\0{stat.st_mode:o}\0".encode(errors="surrogateescape"))
            if kind == "o":
                index.note(path, stat)  # its mode counts, and no listing or digest covers it
            if kind == "l":
                digest.update(os.readlink(path).encode(errors="surrogateescape"))
            elif kind == "d":
                stack.append((path, f"{shown}/"))
            elif kind == "f":
                digest.update(index.file_digest(path, stat).encode())
            digest.update(b"\n")
    return digest.hexdigest()
