"""Reading files up to a limit, and writing them so that readers never see half of one."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from arena_bot.core.errors import InputError


def write_atomically(target: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``target`` through a temporary file of the same folder renamed into
    place: readers (and a run interrupted half-way, by Ctrl-C or SIGTERM) see the old file or
    the whole new one, never a part. The folder must exist. ``durable=False`` skips the
    fsync, for copies of what is kept elsewhere (an fsync per file made restoring 1,000
    results from the data branch 2.6x slower). A target that is there and is neither a
    regular file nor a link (a device such as ``/dev/null``, a FIFO, a folder) is refused:
    the rename would replace the device node itself."""
    try:
        kind = os.lstat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):
        kind = None
    if kind is not None and not (stat.S_ISREG(kind) or stat.S_ISLNK(kind)):
        raise InputError("is not a regular file: it is not replaced by a written file",
                         path=target, hint="name a file (or a new path) to write to")
    handle, temp_name = tempfile.mkstemp(prefix=".tmp-", suffix=target.suffix,
                                         dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as temp:
            # mkstemp's file is private (0600): the mode of the file replaced, else 0644.
            try:
                mode = target.stat().st_mode & 0o777
            except FileNotFoundError:
                mode = 0o644
            os.fchmod(temp.fileno(), mode)
            temp.write(data)
            if durable:
                temp.flush()
                os.fsync(temp.fileno())
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of ``handle`` (more than ``limit`` tells the caller the file
    is over it), read into a buffer the file's size, not the limit's: a read of ``limit + 1``
    allocates that much first, and for the few hundred bytes of a submission.yaml the
    allocation of 256 KiB costs more than the read (a cold board reads 100,000 files). A file
    that grew since it was measured is read on, up to the limit."""
    size = os.fstat(handle.fileno()).st_size
    raw = handle.read(min(size, limit) + 1)
    if size < len(raw) <= limit:
        raw += handle.read(limit + 1 - len(raw))
    return raw
