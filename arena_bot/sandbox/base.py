"""The sandbox interface: run commands in a prepared, isolated container.

Evaluation code depends on these types only; :mod:`arena_bot.sandbox.docker` implements them
with docker-py. ``exec`` never raises for what the command did (non-zero exit, timeout,
out-of-memory kill, too much output): those are fields of :class:`ExecResult`. It raises
:class:`~arena_bot.errors.SandboxError` only when the engine itself fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

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
    #: EFBIG/SIGXFSZ instead of filling the host's disk through the workspace volume.
    file_mb: int = 1024

    @classmethod
    def from_task(cls, limits: Limits) -> SandboxLimits:
        return cls(
            memory_mb=limits.memory_mb,
            pids=limits.pids,
            cpus=limits.cpus,
            output_bytes=limits.output_bytes,
        )


class Sandbox(Protocol):
    """A running, isolated container with the task's repository at ``/workspace/repo``."""

    def exec(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        workdir: str | None = None,
        output_limit: int | None = None,
    ) -> ExecResult:
        """Run ``command`` (argv, no shell) and wait at most ``timeout`` seconds.

        On timeout the whole sandbox is killed (no process can outlive it) and later calls
        fail with SandboxError. ``output_limit`` overrides the sandbox's output cap.
        """
        ...

    def write_files(self, files: Mapping[str, bytes], *, directory: str) -> None:
        """Create ``files`` (name → content) in ``directory`` of the sandbox, owned by the
        sandbox user."""
        ...


class SandboxEngine(Protocol):
    """Opens sandboxes from images; closing the context removes everything it created."""

    def open(self, image: str, *, limits: SandboxLimits) -> AbstractContextManager[Sandbox]:
        """Start a sandbox from ``image`` with ``limits``."""
        ...

    def kill_all(self) -> None:
        """Kill every sandbox this engine has open (Ctrl-C): their commands end at once and
        each ``open`` context then removes its container."""
        ...
