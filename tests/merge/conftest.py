"""Real git repositories, real patches and a real (host pytest) test runner for merge tests."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena_bot.models.evaluation import FeatureResult

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@localhost",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@localhost",
}


def git(cwd: Path, *args: str, input_text: str | None = None) -> str:
    """Run git for a test; fail the test with git's message when it fails."""
    completed = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=GIT_ENV,
        input=input_text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, f"git {' '.join(args)}: {completed.stderr}"
    return completed.stdout


Content = str | bytes | None  # None deletes the file


def write_files(root: Path, files: Mapping[str, Content]) -> None:
    for relative, content in files.items():
        path = root / relative
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@dataclass
class BaseRepo:
    """A real repository with one base commit, and a way to write patches against it."""

    path: Path
    commit: str
    scratch: Path = field(repr=False)

    def patch(
        self,
        files: Mapping[str, Content],
        *,
        renames: Mapping[str, str] | None = None,
        start: str | None = None,
    ) -> str:
        """The ``git diff --binary`` of the base commit (or ``start``) with ``files`` changed.

        ``renames`` maps old → new paths moved with ``git mv`` before ``files`` are written.
        """
        start = start or self.commit
        with tempfile.TemporaryDirectory(dir=self.scratch) as temp:
            work = Path(temp) / "w"
            git(self.scratch, "clone", "--quiet", "--shared", str(self.path), str(work))
            git(work, "checkout", "--quiet", start)
            for old, new in (renames or {}).items():
                (work / new).parent.mkdir(parents=True, exist_ok=True)
                git(work, "mv", old, new)
            write_files(work, files)
            git(work, "add", "-A")
            return git(work, "diff", "--cached", "--binary", "-M", start)

    def git(self, *args: str) -> str:
        """Run git in the base repository."""
        return git(self.path, *args)

    def apply(self, diff: str) -> Path:
        """A fresh checkout of the base commit with ``diff`` applied (for checking results)."""
        target = Path(tempfile.mkdtemp(dir=self.scratch))
        git(self.scratch, "clone", "--quiet", "--shared", str(self.path), str(target / "w"))
        work = target / "w"
        git(work, "checkout", "--quiet", self.commit)
        if diff.strip():
            git(work, "apply", "--index", "-", input_text=diff)
        return work


def make_repo(root: Path, files: Mapping[str, Content]) -> BaseRepo:
    """Create a repository holding ``files`` in one commit, plus a later commit on top.

    The later commit makes sure the analysis uses the base commit, not the branch tip.
    """
    path = root / "base"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    write_files(path, files)
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "base")
    commit = git(path, "rev-parse", "HEAD").strip()
    (path / "LATER.txt").write_text("a commit after the base commit\n", encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "later")
    scratch = root / "scratch"
    scratch.mkdir()
    return BaseRepo(path=path, commit=commit, scratch=scratch)


@pytest.fixture
def make_base(tmp_path: Path):
    """Factory fixture: ``make_base({path: content})`` → BaseRepo."""

    def factory(files: Mapping[str, Content]) -> BaseRepo:
        return make_repo(tmp_path, files)

    return factory


@dataclass
class PytestRunner:
    """A real ``run_tests``: feature N's tests with host pytest on base + diff + tests patch.

    Stands in for the Docker runner of the evaluation engine: same contract (a fresh tree per
    call, the diff applied to the base commit), no container.
    """

    base: BaseRepo
    tests_patches: Mapping[int, str]
    calls: list[int] = field(default_factory=list)

    def __call__(self, diff_text: str, feature_id: int) -> FeatureResult:
        self.calls.append(feature_id)
        work = self.base.apply(diff_text)
        git(work, "apply", "-", input_text=self.tests_patches[feature_id])
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            # No third-party plugins (hypothesis, timeout, ...): a faster start, same verdict.
            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        )
        passed = completed.returncode == 0
        return FeatureResult(
            feature=feature_id,
            status="passed" if passed else "failed",
            passed=passed,
            apply_status="clean",
            exit_code=completed.returncode,
            output=completed.stdout + completed.stderr,
        )


@pytest.fixture
def host_runner():
    """Factory fixture: ``host_runner(base, {feature: tests_patch})`` → PytestRunner."""

    def factory(base: BaseRepo, tests_patches: Mapping[int, str]) -> PytestRunner:
        return PytestRunner(base=base, tests_patches=tests_patches)

    return factory
