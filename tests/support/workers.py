"""The suite on several pytest-xdist workers (scripts/test.sh runs ``-n 2 --dist loadfile``)
without doing anything twice and without load where load matters.

- ``--dist loadfile`` sends each test file to one worker, so a module-scoped fixture (a
  Docker evaluation the file's tests read) runs once.
- Work a session-scoped fixture does once for the whole run (importing and checking the real
  CooperBench task, building the shared task images) is done by the first worker that needs
  it, under a file lock in the run's shared temporary folder (:func:`once`); the others wait
  and read what it left.
- A module marked ``alone`` runs with the other workers paused (:func:`machine_turn`): every
  other test holds the machine lock shared while it runs (set-up and tear-down included);
  the ``alone_on_machine`` fixture of tests/conftest.py holds it exclusively from the
  module's first set-up to its last tear-down (the interrupt tests stop commands at chosen
  moments and are load-sensitive).

Without xdist (one process) every helper here does its work directly, with no lock.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def worker() -> str | None:
    """This xdist worker's id (``gw0``...), or None when pytest runs in one process."""
    return os.environ.get("PYTEST_XDIST_WORKER")


def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this run sees: the run's base temporary folder (each xdist
    worker's own base temporary folder is a child of it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if worker() else base


@contextmanager
def file_lock(path: Path, *, shared: bool = False) -> Iterator[None]:
    """``flock`` on ``path`` (created if missing), exclusive unless ``shared``; released on
    exit (and by the kernel if the worker dies)."""
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def machine_turn(tmp_path_factory: pytest.TempPathFactory, *, alone: bool) -> Iterator[None]:
    """Hold the machine shared (``alone=False``) or exclusively. A worker waiting to be alone
    holds the turnstile, so the other worker cannot keep taking shared turns ahead of it.
    Lock order: the machine lock is taken holding no other lock of this module."""
    if not worker():
        yield
        return
    root = shared_dir(tmp_path_factory)
    with file_lock(root / "machine.turnstile"):
        handle = open(root / "machine.lock", "a+b")  # noqa: SIM115 (held past the turnstile)
        fcntl.flock(handle, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def once(tmp_path_factory: pytest.TempPathFactory, name: str,
         make: Callable[[Path], T], save: Callable[[T, Path], None],
         load: Callable[[Path], T]) -> T:
    """``make(folder)`` run once for the whole run: by this process without xdist, else by
    the first worker to ask, which ``save``s what it made into the shared folder ``name``;
    the other workers wait for it and ``load`` it. A failed ``make`` leaves no record, so
    the next worker tries again (and fails the same way, with its own traceback)."""
    if not worker():
        return make(tmp_path_factory.mktemp(name))
    root = shared_dir(tmp_path_factory)
    folder = root / name
    done = root / f"{name}.done"
    with file_lock(root / f"{name}.lock"):
        if done.is_file():
            return load(Path(done.read_text(encoding="utf-8")))
        if folder.exists():  # a worker failed half-way: start again in a fresh folder
            folder = root / f"{name}-{worker()}"
        folder.mkdir()
        made = make(folder)
        save(made, folder)
        done.write_text(str(folder), encoding="utf-8")
        return made
