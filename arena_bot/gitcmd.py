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

import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import git

#: Exit status reported when git itself could not be started.
NOT_STARTED = 127

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
) -> GitResult:
    """Run ``git ARGS`` in ``cwd`` and wait (killed after ``timeout`` seconds). ``env`` is
    added to this process's environment; git never prompts for credentials. ``stdin`` is a
    real file or bytes (spooled to a temporary file: the child needs a file descriptor)."""
    if isinstance(stdin, bytes):
        with tempfile.TemporaryFile() as spool:
            spool.write(stdin)
            spool.seek(0)
            return run_git(args, cwd=cwd, timeout=timeout, env=env, stdin=spool)
    if cwd is not None and not cwd.is_dir():
        # GitPython would quietly run git in this process's own folder instead: a command
        # meant for a throwaway repository could then change the checkout it runs from.
        return GitResult(status=NOT_STARTED, stdout=b"", stderr=f"no such folder: {cwd}")
    runner = git.Git(str(cwd) if cwd is not None else None)
    try:
        status, stdout, stderr = runner.execute(
            ["git", *args],
            istream=stdin,
            with_extended_output=True,
            with_exceptions=False,
            stdout_as_string=False,
            strip_newline_in_stdout=False,
            kill_after_timeout=timeout,
            env={**(env or {}), "GIT_TERMINAL_PROMPT": "0"},
        )
    except git.GitCommandNotFound:
        return GitResult(status=NOT_STARTED, stdout=b"",
                         stderr="git is not installed or not on PATH")
    except OSError as exc:
        return GitResult(status=NOT_STARTED, stdout=b"", stderr=f"git could not start: {exc}")
    return GitResult(status=int(status), stdout=stdout or b"", stderr=str(stderr or ""))


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
