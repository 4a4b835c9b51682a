"""The sandbox interface: run commands in a prepared, isolated container.

Evaluation code depends on these types only; :mod:`arena_bot.sandbox.docker` implements them
with docker-py. ``exec`` never raises for what the command did (non-zero exit, timeout,
out-of-memory kill, too much output): those are fields of :class:`ExecResult`. It raises
:class:`~arena_bot.core.errors.SandboxError` only when the engine itself fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

from arena_bot.models.task import Limits


@dataclass(frozen=True)
class ExecResult:
    """What one command did inside a sandbox."""

    #: Exit status; ``None`` when the command was killed before reporting one (timeout).
    exit_code: int | None
    #: Combined stdout and stderr, decoded as UTF-8 (invalid bytes replaced), capped.
    output: str
    #: True when output past the cap was discarded.
    truncated: bool
    #: True when the wall-clock timeout killed the sandbox.
    timed_out: bool
    #: True when the kernel's out-of-memory killer ended a process of the sandbox.
    oom_killed: bool
    duration: float

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@dataclass(frozen=True, kw_only=True)
class SandboxLimits:
    """Resource limits of one sandbox (from a task's ``limits``; defaults are safe)."""

    memory_mb: int = 1024
    pids: int = 256
    cpus: float = 1.0
    output_bytes: int = 1_000_000
    tmpfs_mb: int = 256
    #: Largest file any process may write (RLIMIT_FSIZE): a test writing past it gets
    #: EFBIG/SIGXFSZ instead of one file filling the whole workspace.
    file_mb: int = 1024
    #: Total size of everything under /workspace (the repository and whatever is written
    #: there): a size-capped tmpfs, so many files together stop at ENOSPC too and nothing
    #: ever reaches the host's disk. tmpfs pages count against ``memory_mb`` as well.
    workspace_mb: int = 512

    @classmethod
    def from_task(cls, limits: Limits) -> SandboxLimits:
        return cls(
            memory_mb=limits.memory_mb,
            pids=limits.pids,
            cpus=limits.cpus,
            output_bytes=limits.output_bytes,
            workspace_mb=limits.workspace_mb,
        )


#: Who runs a command: ``owner`` owns /workspace (git, setup, criteria); ``tester`` is another
#: unprivileged uid that can read the repository but write only /tmp, so code run by the
#: tests cannot change the test files (or anything else the owner wrote) after they are set.
SandboxUser = Literal["owner", "tester"]


class Sandbox(Protocol):
    """A running, isolated container with the task's repository at ``/workspace/repo``."""

    limits: SandboxLimits

    def exec(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        workdir: str | None = None,
        output_limit: int | None = None,
        user: SandboxUser = "owner",
        keep_tail: int | None = None,
    ) -> ExecResult:
        """Run ``command`` (argv, no shell) as ``user`` and wait at most ``timeout`` seconds.

        On timeout the whole sandbox is killed (no process can outlive it) and later calls
        fail with SandboxError. ``output_limit`` overrides the sandbox's output cap; past it
        the output's head and its last ``keep_tail`` bytes (default: a quarter of the cap)
        are kept, so a trailer the command prints last (a report) survives whole.
        """
        ...

    def write_files(self, files: Mapping[str, bytes], *, directory: str) -> None:
        """Create ``files`` (name → content) in ``directory`` of the sandbox (``/arena/...``
        or ``/tmp/...``), owned by root: both sandbox users can read them, neither can
        change them."""
        ...


class SandboxEngine(Protocol):
    """Opens sandboxes from images; closing the context removes everything it created."""

    def open(self, image: str, *, limits: SandboxLimits) -> AbstractContextManager[Sandbox]:
        """Start a sandbox from ``image`` with ``limits``."""
        ...

    def kill_all(self) -> None:
        """Kill every sandbox this engine has open (Ctrl-C): their commands end at once and
        each ``open`` context then removes its container. The engine opens no sandbox after
        this (one being created meanwhile is removed at once)."""
        ...
