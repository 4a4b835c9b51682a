"""Running git in the tests' own throwaway repositories (real git, never mocked)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

#: A fixed identity and no user or system configuration: commits are the same on every
#: machine and nothing of the developer's git setup leaks in.
GIT_ENV: dict[str, str] = {
    "GIT_AUTHOR_NAME": "Arena Test", "GIT_AUTHOR_EMAIL": "test@agentic-arena.invalid",
    "GIT_COMMITTER_NAME": "Arena Test", "GIT_COMMITTER_EMAIL": "test@agentic-arena.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def _environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """This process's environment without its ``GIT_*`` variables (a suite started from a
    git hook inherits ``GIT_DIR`` and ``GIT_INDEX_FILE``, which would point every command
    at the developer's checkout), plus the test identity and ``extra``."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**inherited, **GIT_ENV, **(extra or {})}


def git_run(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``cwd`` (``env`` added to the test identity, ``input_text`` on its
    standard input); never raises."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, input=input_text, env=_environment(env))


def git(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, input_text: str | None = None
) -> str:
    """``git ARGS`` in ``cwd``; its standard output. A failure fails the test with git's
    own message."""
    done = git_run(*args, cwd=cwd, env=env, input_text=input_text)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr.strip()}"
    return done.stdout


def commit_folder(folder: Path, *, message: str = "base", branch: str = "main") -> str:
    """Make ``folder`` a repository whose one commit holds all its files; the commit's id."""
    git("init", "--quiet", f"--initial-branch={branch}", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "--quiet", "-m", message, cwd=folder)
    return git("rev-parse", "HEAD", cwd=folder).strip()


def new_remote(parent: Path, *, clone: str = "seed") -> tuple[Path, Path]:
    """A bare repository ``parent/remote.git`` (branch main, no commit yet) and a clone of
    it ``parent/<clone>`` to fill and :func:`push_main` (a leaderboard repository)."""
    bare = parent / "remote.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare), cwd=parent)
    work = parent / clone
    git("clone", "--quiet", str(bare), str(work), cwd=parent)
    return bare, work


def push_main(checkout: Path, message: str) -> str:
    """Commit everything in ``checkout`` and push it to its origin's main; the commit id."""
    git("add", "-A", cwd=checkout)
    git("commit", "--quiet", "-m", message, cwd=checkout)
    git("push", "--quiet", "origin", "HEAD:main", cwd=checkout)
    return git("rev-parse", "HEAD", cwd=checkout).strip()


def clone_main(remote: Path, where: Path) -> Path:
    """A fresh checkout of ``remote``'s main at ``where`` (a runner's checkout)."""
    git("clone", "--quiet", "--branch", "main", str(remote), str(where), cwd=remote.parent)
    return where
