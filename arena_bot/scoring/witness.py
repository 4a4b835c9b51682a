"""Witnesses: what a task's part of the board was computed from, by stat signature.

A warm ``arena score`` must still notice any change to any file of the board, but it need
not hash anything to do so. When a task's key (:func:`.incremental.task_key`) is computed,
the index records every path it looked at (every folder listed, every file digested) with
the stat signature it had *before* it was read (:attr:`arena_bot.index.Index.observed`).
That list, with the key, is the task's witness. The next run ``stat``\\s each path of the
witness: if every signature is the one recorded, every input is the one the key was
computed from, so the key (and the part stored under it) still holds; one difference, and
the task is keyed afresh the slow way.

This trusts exactly what :mod:`arena_bot.index` trusts (an unchanged size, modification and
change time and inode mean unchanged bytes; an unchanged folder signature means unchanged
entries), and only settled signatures: a witness with a path modified within
:data:`~arena_bot.index.RACY_NS` of the run's start is not stored. Paths are checked one
by one, files with ``stat`` and folders with ``lstat`` (as they were observed): a folder's
signature only covers its entries, never the bytes of a file edited in place.

Witnesses are memo rows keyed by the bot's code fingerprint, the scoring options and the
task id, so a new bot version or configuration never uses an old one.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena_bot.index import Index, absolute_path, spell

_NAMESPACE = "task-witness"


@dataclass(frozen=True)
class Witness:
    """A task key and the signatures of everything it was computed from."""

    key: str
    #: The submission folders scored (absolute paths, sorted).
    folders: list[str]
    #: Path, signature spelt as text ("" when the path was absent), alternating.
    checks: list[str]
    #: Every signature is old enough to be trusted by a later run (only then is it stored).
    settled: bool = True

    @classmethod
    def of(cls, *, key: str, folders: Sequence[str], seen: Sequence[str], index: Index
           ) -> Witness:
        """The witness of a key computed while ``seen`` was recorded."""
        checks: list[str] = []
        settled = True
        for path in dict.fromkeys(seen):
            current = index.observed.get(path)
            settled = settled and index.settled(current)
            checks += (path, spell(current))
        return cls(key=key, folders=list(folders), checks=checks, settled=settled)

    def holds(self, verified: dict[str, str] | None = None) -> bool:
        """Whether every path still has the signature recorded.

        ``verified`` (:attr:`arena_bot.index.Index.verified`): signatures already found in
        this run by another witness (the pipeline's three stages check mostly the same
        paths); a path found there with the recorded signature is not looked at again, and
        each path looked at is added. Leave it out to look at every path now (a check that
        nothing changed *during* a computation must).
        """
        stat, lstat = os.stat, os.lstat
        known: Callable[[str], str | None] = (verified if verified is not None else {}).get
        pairs = iter(self.checks)
        for path, recorded in zip(pairs, pairs, strict=True):
            if known(path) == recorded:
                continue
            try:
                found = lstat(path[:-1]) if path[-1] == "/" else stat(path)
            except OSError:
                if recorded:
                    return False
                continue
            # index.spell(index.signature(found)), spelt inline: this loop is the warm run.
            spelt = f"{found.st_size}:{found.st_mtime_ns}:{found.st_ino}:{found.st_ctime_ns}"
            if spelt != recorded:
                return False
            if verified is not None:
                verified[path] = spelt
        return True

    def encode(self) -> bytes:
        """The key (as JSON), the number of folders, then the folders and the checks, one
        NUL between each: no path holds a NUL, and splitting text is far quicker than
        decoding a JSON list (a warm run decodes hundreds of witnesses of a thousand
        paths)."""
        items = [json.dumps(self.key), str(len(self.folders)), *self.folders, *self.checks]
        return zlib.compress("\0".join(items).encode(errors="surrogateescape"), 1)

    @classmethod
    def decode(cls, blob: bytes) -> Witness:
        """The witness :meth:`encode` stored; ValueError when the blob is not one."""
        text = zlib.decompress(blob).decode(errors="surrogateescape")
        spelt, counted, *items = text.split("\0")
        key, count = json.loads(spelt), int(counted)
        folders, checks = items[:count], items[count:]
        if not (isinstance(key, str) and 0 <= count <= len(items) and len(checks) % 2 == 0
                and "" not in folders and "" not in checks[::2]):
            raise ValueError("not a witness")
        return cls(key=key, folders=folders, checks=checks)


def by_parent(folders: Iterable[Path]) -> dict[str, tuple[list[Path], list[str]]]:
    """``folders`` grouped by the folder holding them (absolute, as text), each group with
    its folders' absolute paths (what a witness names), in the order given."""
    groups: dict[str, tuple[list[Path], list[str]]] = {}
    for folder in folders:
        name = absolute_path(folder)
        group, names = groups.setdefault(os.path.dirname(name), ([], []))
        group.append(folder)
        names.append(name)
    return groups


def witness_key(common: str, task_id: str) -> str:
    """The memo key of a task's witness (``common``: fingerprint and options digest)."""
    return f"{common}:{task_id}"


def stored_witness(
    index: Index, common: str, task_id: str, *, namespace: str = _NAMESPACE
) -> Witness | None:
    """The task's witness from an earlier run, if any (``namespace``: whose witness; the
    default is scoring's)."""
    blob = index.lookup(namespace, witness_key(common, task_id))
    if blob is None:
        return None
    try:
        return Witness.decode(blob)
    except (ValueError, TypeError, zlib.error):
        return None  # a damaged row costs a slow key, never a wrong one


def store_witness(
    index: Index, common: str, task_id: str, witness: Witness, *, namespace: str = _NAMESPACE
) -> None:
    index.store(namespace, witness_key(common, task_id), witness.encode())


@dataclass
class Witnesses:
    """One run's witnesses of one namespace, by name: the loop every user of witnesses
    shares (the folder walk, whole-board validation, the pipeline's evaluation stage).

    For each name: :meth:`holding` answers with the stored witness while it holds; when it
    does not, the caller computes under :meth:`Index.recording <arena_bot.index.Index.
    recording>` and hands what it saw to :meth:`remember`. :meth:`retain` keeps the names
    asked about in this run and drops the rest when the index is written.
    """

    index: Index
    namespace: str
    #: What every witness of the namespace depends on besides its own paths (the bot's
    #: code fingerprint, options): a part of each key.
    common: str
    _names: list[str] = field(default_factory=list)

    def holding(self, name: str, folders: Sequence[str] | None = None) -> Witness | None:
        """``name``'s witness from an earlier run when every path it checks is unchanged
        (and, given ``folders``, it was made for exactly those); else ``None``."""
        self._names.append(witness_key(self.common, name))
        witness = stored_witness(self.index, self.common, name, namespace=self.namespace)
        if witness is None or (folders is not None and witness.folders != list(folders)):
            return None
        return witness if witness.holds(self.index.verified) else None

    def remember(self, name: str, *, key: str, folders: Sequence[str], seen: Sequence[str],
                 complete: bool = True) -> Witness:
        """The witness of what was computed while ``seen`` was recorded, stored for the next
        run when ``complete`` and settled; the run then forgets the signatures of ``seen``."""
        witness = Witness.of(key=key, folders=folders, seen=seen, index=self.index)
        if complete and witness.settled:
            store_witness(self.index, self.common, name, witness, namespace=self.namespace)
        self.index.release(seen)
        return witness

    def retain(self) -> None:
        """Keep only the witnesses asked about in this run (see :meth:`Index.retain
        <arena_bot.index.Index.retain>`)."""
        self.index.retain(self.namespace, self._names)
