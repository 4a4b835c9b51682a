"""What a run may reuse from an earlier one: content ids of the board's files, and one memo.

A leaderboard repository is a git repository, so git already knows the content of every
file: ``git ls-files --stage`` names each tracked file's blob id (read from git's index, no
file is opened) and ``git status`` names the files that differ from it (edited, new,
untracked or ignored), which are hashed here the way git hashes a blob. Outside a git work
tree every file is hashed. Either way :func:`content_ids` gives one id per regular file.

:class:`Memo` keeps values computed from such ids (a task's scored part, the board's
summary), in one SQLite table under ``.arena/memo.sqlite``: ``key`` (a sha256 of everything
the value was computed from, the bot's own code included) and ``value``. A stale value can
never be served, because changed inputs give another key. The memo is never the source of
truth: deleting it costs one slower run; a corrupt or foreign file is discarded, and a
damaged value (each is stored behind its CRC-32) is not served: it is computed again. What a
run learnt is written in one transaction when it ends, so a killed run leaves the old memo.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import zlib
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.core.gitcmd import run_git

MEMO_FILE = "memo.sqlite"
#: Bump when the meaning of a stored value changes; a memo of another version is rebuilt.
MEMO_VERSION = "2"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, value BLOB NOT NULL);
"""


def _sealed(value: bytes) -> bytes:
    """``value`` as stored: behind its CRC-32, so that a damaged row is noticed."""
    return zlib.crc32(value).to_bytes(4, "big") + value


def _unsealed(stored: bytes) -> bytes | None:
    """The value of a stored row, or ``None`` if it was damaged (it is computed again)."""
    value = stored[4:]
    return value if len(stored) >= 4 and zlib.crc32(value) == int.from_bytes(
        stored[:4], "big") else None


def blob_id(data: bytes) -> str:
    """The id git gives a file of these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def content_ids(root: Path, folders: Sequence[Path], *, hashed: Sequence[Path] = ()
                ) -> dict[str, str]:
    """``{path: id}`` for every file under ``folders`` (paths relative to ``root``,
    ``/``-separated). An executable file's id starts ``x:``, a symbolic link's ``link:``
    (the id of its target text): a mode changing changes the id, as in git. The files under
    ``hashed`` (the stored results, which git does not hold, one folder per task) are
    walked and all hashed, whatever git knows of them, while ``git status`` looks at the
    board (a folder given as a symbolic link is followed: a store kept on another disk)."""
    top = _work_tree_top(root) if folders else None
    if top is None:
        return {**_hashed_under(root, hashed, modes=False), **_hashed_under(root, folders)}
    with ThreadPoolExecutor(max_workers=1) as pool:
        listed = pool.submit(_git_ids, root, top, folders)
        ids = _hashed_under(root, hashed, modes=False)
        ids.update(listed.result())
    return ids


def _work_tree_top(root: Path) -> Path | None:
    found = run_git(["rev-parse", "--show-toplevel"], cwd=root)
    if not found.ok:
        return None
    return Path(found.text.strip())


def _git_ids(root: Path, top: Path, folders: Sequence[Path]) -> dict[str, str]:
    """Ids from git's index, then the files ``git status`` names hashed here."""
    base = os.path.relpath(os.path.abspath(root), top)
    prefix = "" if base == "." else f"{base}/"
    specs = [os.path.relpath(os.path.abspath(folder), top) for folder in folders]
    # Folders outside the work tree (a results folder elsewhere): hashed here.
    inside = [spec for spec in specs if spec != ".." and not spec.startswith("../")]
    ids = _hashed_under(root, [folder for folder, spec in zip(folders, specs, strict=True)
                               if spec not in inside])
    if not inside:
        return ids
    pathspecs = ["--", *(f":(literal){spec}" for spec in inside)]
    with ThreadPoolExecutor(max_workers=1) as pool:
        asked = pool.submit(run_git, ["status", "--porcelain=v1", "-z", "--untracked-files=all",
                                      "--ignored=traditional", "--no-renames", *pathspecs],
                            cwd=top)
        staged = run_git(["-c", "core.quotePath=false", "ls-files", "--stage", "-z",
                          *pathspecs], cwd=top)
        status = asked.result()
    if not staged.ok or not status.ok:
        ids.update(_hashed_under(root, [folder for folder, spec in zip(folders, specs,
                                                                       strict=True)
                                        if spec in inside]))
        return ids
    # One decoding of the whole listing (names that are not UTF-8 keep their bytes as
    # os.fsdecode keeps them): "<mode> <id> <stage>\t<path>" per file.
    for record in os.fsdecode(staged.stdout).split("\0"):
        if not record:
            continue
        head, _, path = record.partition("\t")
        mode, blob, _stage = head.split(" ")
        if mode == "160000":  # a submodule: no file here
            continue
        if path.startswith(prefix):
            ids[path[len(prefix):]] = _KINDS.get(mode, "") + blob
    changed: dict[str, str] = {}
    for record in os.fsdecode(status.stdout).split("\0"):
        if len(record) < 4:
            continue
        path = record[3:]
        if not path.startswith(prefix) or path.endswith("/"):
            continue
        ids.pop(path[len(prefix):], None)
        changed[path[len(prefix):]] = os.path.join(top, path)
    ids.update(_file_ids(changed))
    return ids


def _hashed_under(root: Path, folders: Sequence[Path], *, modes: bool = True
                  ) -> dict[str, str]:
    """The ids of every file under ``folders``, hashed here (a folder named is followed
    when it is a link; a link inside is not: its id is its target's text, as in git).
    Without ``modes`` (the stored results: data, never run) the files are read as the store
    reads them: a link inside is followed (a folder once: a link back up is not walked
    again), a file's id leaves out whether it is executable, which saves a ``stat`` per
    file: the folder listing already tells files from folders."""
    found: dict[str, str] = {}
    plain: dict[str, str] = {}
    followed = set() if modes else {os.path.realpath(folder) for folder in folders}
    for folder in folders:
        base = os.path.relpath(os.path.abspath(folder), os.path.abspath(root))
        base = base.replace(os.sep, "/")
        stack = [(os.fspath(folder), "" if base == "." else f"{base}/")]
        while stack:
            here, prefix = stack.pop()
            try:
                with os.scandir(here) as entries:
                    for entry in entries:
                        name = f"{prefix}{entry.name}"
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((entry.path, f"{name}/"))
                        elif modes:
                            found[name] = entry.path
                        elif entry.is_dir():
                            target = os.path.realpath(entry.path)
                            if target not in followed:
                                followed.add(target)
                                stack.append((entry.path, f"{name}/"))
                        elif entry.is_file():
                            plain[name] = entry.path
            except OSError:  # absent or unreadable: nothing of it is part of the board
                continue
    return {**_file_ids(found), **_file_ids(plain, plain=True)}


#: How an id spells a file's kind, as git's modes say it: a plain file has no prefix.
_KINDS = {"100755": "x:", "120000": "link:"}


def _file_ids(paths: dict[str, str], *, plain: bool = False) -> dict[str, str]:
    """``{name: id}`` for ``{name: path}``, as git's index would give them (see
    :data:`_KINDS`), or, with ``plain``, as for files known to be plain files, whatever
    their mode; anything but a file or a link (a folder, a device, a file gone since it
    was listed) has none. One ``git hash-object`` reads the plain files."""
    ids: dict[str, str] = dict.fromkeys(paths, "") if plain else {}
    files: dict[str, str] = paths if plain else {}
    for name, path in () if plain else paths.items():
        try:
            found = os.lstat(path)
            if stat.S_ISLNK(found.st_mode):
                ids[name] = "link:" + blob_id(os.fsencode(os.readlink(path)))
            elif stat.S_ISREG(found.st_mode):
                ids[name] = "x:" if found.st_mode & 0o111 else ""
                files[name] = path
        except OSError:
            continue
    blobs: list[str | None] = [*_hash_objects(list(files.values()))]
    if len(blobs) != len(files):  # no git, or a file gone meanwhile: read them here
        blobs = [_read_id(path) for path in files.values()]
    for name, blob in zip(files, blobs, strict=True):
        if blob is None:
            del ids[name]
        else:
            ids[name] += blob
    return ids


def _hash_objects(paths: list[str]) -> list[str]:
    """git's blob ids of the plain files ``paths``, in order; ``[]`` when git cannot give
    them all (no git, a file gone, a name with a line break: git's standard input cannot
    carry it). One process: a warm ``arena score`` of 50,000 submissions hashes their
    50,000 stored results (git does not hold them) while ``git status`` looks at the board,
    which takes longer."""
    if not paths or any("\n" in path for path in paths):
        return []
    done = run_git(["hash-object", "--no-filters", "--stdin-paths"],
                   stdin=os.fsencode("".join(f"{path}\n" for path in paths)))
    blobs = done.text.split() if done.ok else []
    return blobs if len(blobs) == len(paths) else []


def _read_id(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return blob_id(handle.read())
    except OSError:
        return None


@cache
def code_version() -> str:
    """sha256 over this package's source files: a memo key includes it, so an upgraded or
    edited bot never serves a value an older one computed. Bytecode is not the code."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for here, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(here, name)
            relative = os.path.relpath(path, package).encode(errors="surrogateescape")
            digest.update(len(relative).to_bytes(4, "big") + relative)
            with open(path, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


@dataclass
class Memo:
    """Values keyed by content (see the module's note), backed by SQLite or by memory.

    ``Memo(None)`` keeps everything in memory for one run. Rows are read as they are asked
    for; what a run learns is written by :meth:`close`.
    """

    path: Path | None
    _db: sqlite3.Connection | None = None
    _new: dict[str, bytes] = field(default_factory=dict)
    #: Key prefixes whose rows not asked for in this run are dropped by :meth:`close`.
    _retain: dict[str, set[str]] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def __post_init__(self) -> None:
        if self.path is not None and self.path.is_file():
            try:
                db = sqlite3.connect(self.path, timeout=30)
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is not None and row[0] == MEMO_VERSION:
                    self._db = db
                else:
                    db.close()
                    _discard(self.path)
            except sqlite3.Error:
                _discard(self.path)

    def get(self, key: str) -> bytes | None:
        """The value stored under ``key`` (a content key), or ``None``."""
        value = self._new.get(key)
        if value is None and self._db is not None:
            try:
                row = self._db.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error:  # damaged mid-run: stop reading it; close() rewrites it
                self._db.close()
                self._db = None
                row = None
            stored = row[0] if row is not None else None
            # a row of another type (a foreign or hand-edited file) is damage too: bytes()
            # of a number allocated that many zero bytes
            value = _unsealed(stored) if isinstance(stored, bytes) else None
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put(self, key: str, value: bytes) -> None:
        """Remember ``value``; ``key`` must be derived from content alone."""
        self._new[key] = value

    def retain(self, prefix: str, keys: set[str]) -> None:
        """When the run ends, drop every row whose key starts with ``prefix`` but ``keys``
        (a whole board's run: earlier states' parts will not be asked for again)."""
        self._retain[prefix] = keys

    def close(self) -> None:
        """Write what this run learnt, in one transaction."""
        if self._db is not None:
            self._db.close()
            self._db = None
        if self.path is None or not (self._new or self._retain):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30)
            try:
                with db:
                    db.executescript(_SCHEMA)
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)",
                               (MEMO_VERSION,))
                    for prefix, keys in self._retain.items():
                        stored = db.execute("SELECT key FROM memo WHERE substr(key, 1, ?) = ?",
                                            (len(prefix), prefix)).fetchall()
                        db.executemany("DELETE FROM memo WHERE key = ?",
                                       [(key,) for (key,) in stored if key not in keys])
                    db.executemany("INSERT OR REPLACE INTO memo VALUES (?, ?)",
                                   [(key, _sealed(value)) for key, value in self._new.items()])
            finally:
                db.close()
        except (sqlite3.Error, OSError):
            _discard(self.path)  # the memo only saves time: the next run starts clean
        self._new.clear()
        self._retain.clear()

    def abandon(self) -> None:
        """Release the stored memo; nothing this run learnt is written."""
        if self._db is not None:
            self._db.close()
            self._db = None
        self._new.clear()
        self._retain.clear()


def _discard(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with suppress(OSError):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def open_memo(cache_dir: Path | None) -> Iterator[Memo]:
    """The memo under ``cache_dir`` (``.arena/``) for one command (``None``: in memory).
    Written when the block ends normally; on an error nothing is written."""
    memo = Memo(cache_dir / MEMO_FILE if cache_dir is not None else None)
    try:
        yield memo
    except BaseException:
        memo.abandon()
        raise
    memo.close()


def clear_memo(cache_dir: Path) -> bool:
    """Delete the memo under ``cache_dir``; ``True`` if there was one."""
    path = cache_dir / MEMO_FILE
    existed = path.exists()
    try:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot delete the memo: {exc.strerror}", path=path,
            hint="check the folder's permissions, or delete the file by hand",
        ) from None
    return existed


@dataclass(frozen=True)
class MemoSummary:
    """What ``arena memo show`` prints: the memo file and what it remembers."""

    path: Path
    #: ``None`` when there is no memo yet.
    size: int | None = None
    #: The memo's format version (``None``: not recorded); it is rebuilt unless MEMO_VERSION.
    version: str | None = None
    #: Remembered values per key prefix (``part``, ``board``, ``verdict``...), by prefix.
    kinds: tuple[tuple[str, int], ...] = ()
    #: Why the file could not be read (the next run rebuilds it), or ``None``.
    unreadable: str | None = None


def describe_memo(cache_dir: Path) -> MemoSummary:
    """Read the memo under ``cache_dir`` without changing or repairing it."""
    path = cache_dir / MEMO_FILE
    if not path.is_file():
        return MemoSummary(path=path)
    size = path.stat().st_size
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            version = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            kinds = db.execute(
                "SELECT substr(key, 1, instr(key, ':') - 1) AS kind, COUNT(*) FROM memo "
                "GROUP BY kind ORDER BY kind").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        return MemoSummary(path=path, size=size, unreadable=str(exc))
    return MemoSummary(path=path, size=size, version=str(version[0]) if version else None,
                       kinds=tuple((str(kind), int(count)) for kind, count in kinds))
