"""The one way this package runs git: GitPython's command runner (``git.Git.execute``).

Every module that drives git (the merge analysis, the base-repository cache, the CooperBench
import, the data branch, the site's commit stamp, ``arena submit``) goes through
:func:`run_git` or :func:`read_blobs` (and the small questions built on them:
:func:`is_work_tree_top`, :func:`has_commit`, :func:`scratch_index`), so how git is started,
how a missing git or a hung command is reported, and which environment it sees is decided
here once. Callers turn a failed :class:`GitResult` into their own error (they know what was
being done and why).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import git

#: Exit status reported when git itself could not be started.
NOT_STARTED = 127

#: How often a running command checks whether it was told to stop (``run_git(stop=...)``).
_STOP_POLL = 0.2

#: Seconds a question about a repository (where its top is, whether a commit is in it) may
#: take; such a command reads a few files, so a longer wait means git is stuck.
QUESTION_TIMEOUT = 60.0


@dataclass(frozen=True)
class GitResult:
    """A finished git command: exit status, standard output (bytes) and standard error."""

    status: int
    stdout: bytes
    stderr: str

    @property
    def ok(self) -> bool:
        return self.status == 0

    @property
    def text(self) -> str:
        """Standard output as text; bytes that are not UTF-8 are replaced, never fatal."""
        return self.stdout.decode("utf-8", "replace")

    def last_error_line(self) -> str:
        """The last line of standard error (what git says went wrong), or the exit status."""
        lines = self.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit status {self.status}"


def run_git(
    args: Sequence[str],
    *,
    cwd: Path | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    stdin: BinaryIO | bytes | None = None,
    stop: threading.Event | None = None,
) -> GitResult:
    """Run ``git ARGS`` in ``cwd`` and wait (killed after ``timeout`` seconds, or as soon as
    ``stop`` is set: a clone in a worker thread, which Ctrl-C does not reach). ``env`` is
    added to this process's environment; git never prompts for credentials. ``stdin`` is a
    real file or bytes (spooled to a temporary file: the child needs a file descriptor).
    Whatever ends the wait early (the timeout, ``stop``, Ctrl-C in this thread) kills git
    first: no git process outlives its call."""
    if isinstance(stdin, bytes):
        with tempfile.TemporaryFile() as spool:
            spool.write(stdin)
            spool.seek(0)
            return run_git(args, cwd=cwd, timeout=timeout, env=env, stdin=spool, stop=stop)
    if cwd is not None and not cwd.is_dir():
        # GitPython would quietly run git in this process's own folder instead: a command
        # meant for a throwaway repository could then change the checkout it runs from.
        return GitResult(status=NOT_STARTED, stdout=b"", stderr=f"no such folder: {cwd}")
    runner = git.Git(str(cwd) if cwd is not None else None)
    try:
        handle = runner.execute(
            ["git", *args],
            istream=stdin,
            as_process=True,
            env={**(env or {}), "GIT_TERMINAL_PROMPT": "0"},
            # A group of its own: git's helpers (git-remote-https holds the connection and
            # git's output pipes) are killed with it.
            process_group=0,
        )
    except git.GitCommandNotFound:
        return GitResult(status=NOT_STARTED, stdout=b"",
                         stderr="git is not installed or not on PATH")
    except OSError as exc:
        return GitResult(status=NOT_STARTED, stdout=b"", stderr=f"git could not start: {exc}")
    process: subprocess.Popen[bytes] | None = handle.proc
    if process is None:  # GitPython hands over the process it started: never None here
        return GitResult(status=NOT_STARTED, stdout=b"", stderr="git could not start")
    try:
        stdout, stderr, why = _wait(process, timeout=timeout, stop=stop)
    finally:
        if process.returncode is None:  # Ctrl-C (or any error) while waiting: git goes too
            _kill_group(process)
            process.wait()
    text = (stderr or b"").decode("utf-8", "replace").removesuffix("\n")
    if why is not None:
        text = f"{why} (git {' '.join(args[:1])}){': ' + text if text else ''}"
    return GitResult(status=int(process.returncode), stdout=stdout or b"", stderr=text)


def _wait(
    process: subprocess.Popen[bytes], *, timeout: float | None, stop: threading.Event | None,
) -> tuple[bytes, bytes, str | None]:
    """Standard output and error of ``process`` once it ends; killed (with the reason as the
    third item) when ``timeout`` passes or ``stop`` is set first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        wait = None if stop is None else _STOP_POLL
        if deadline is not None:
            left = max(0.0, deadline - time.monotonic())
            wait = left if wait is None else min(wait, left)
        try:
            stdout, stderr = process.communicate(timeout=wait)
            return stdout, stderr, None
        except subprocess.TimeoutExpired:
            why = ("stopped: the run was interrupted" if stop is not None and stop.is_set()
                   else f"Timeout: did not complete in {timeout:g} secs"
                   if deadline is not None and time.monotonic() >= deadline else None)
            if why is not None:
                _kill_group(process)
                stdout, stderr = process.communicate()
                return stdout, stderr, why


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill every process of ``process``'s group (its own: see :func:`run_git`); only while
    ``process`` is not reaped yet, so its id still names this group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def read_blobs(repo: Path, ids: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """``(type, content)`` of each object id, one at a time through one ``git cat-file
    --batch`` (GitPython's persistent reader): thousands of objects never sit in memory."""
    if not repo.is_dir():
        raise ValueError(f"no such folder: {repo}")
    runner = git.Git(str(repo))
    try:
        for object_id in ids:
            _sha, kind, _size, data = runner.get_object_data(object_id)
            yield kind.decode() if isinstance(kind, bytes) else str(kind), data
    finally:
        runner.clear_cache()


def is_work_tree_top(folder: Path) -> bool:
    """Whether ``folder`` is the top folder of a git working tree: not a folder inside one
    (whose changes would be only part of the tree's), not a bare repository, not missing."""
    done = run_git(["rev-parse", "--show-toplevel"], cwd=folder, timeout=QUESTION_TIMEOUT)
    return done.ok and Path(done.text.strip()).resolve() == folder.resolve()


def has_commit(repo: Path, revision: str) -> bool:
    """Whether ``revision`` (an id, a branch, a tag) names a commit in ``repo``."""
    done = run_git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], cwd=repo,
                   timeout=QUESTION_TIMEOUT)
    return done.ok


@contextmanager
def scratch_index(prefix: str = "arena-index-") -> Iterator[dict[str, str]]:
    """The environment (``GIT_INDEX_FILE``) of git commands that stage into a throwaway index
    deleted afterwards, so a repository's own staging area is never read or changed."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        yield {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
