"""Real git repositories, real patches and a real (host pytest) test runner for the merge
analysis' tests: a base commit to write agents' patches against, and a stand-in for the Docker
test runner with the same contract."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena_bot.models.evaluation import FeatureResult
from support.gitrepo import git

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
            git("clone", "--quiet", "--shared", str(self.path), str(work), cwd=self.scratch)
            git("checkout", "--quiet", start, cwd=work)
            for old, new in (renames or {}).items():
                (work / new).parent.mkdir(parents=True, exist_ok=True)
                git("mv", old, new, cwd=work)
            write_files(work, files)
            git("add", "-A", cwd=work)
            return git("diff", "--cached", "--binary", "-M", start, cwd=work)

    def git(self, *args: str) -> str:
        """Run git in the base repository."""
        return git(*args, cwd=self.path)

    def apply(self, diff: str) -> Path:
        """A fresh checkout of the base commit with ``diff`` applied (for checking results)."""
        target = Path(tempfile.mkdtemp(dir=self.scratch))
        git("clone", "--quiet", "--shared", str(self.path), str(target / "w"), cwd=self.scratch)
        work = target / "w"
        git("checkout", "--quiet", self.commit, cwd=work)
        if diff.strip():
            git("apply", "--index", "-", input_text=diff, cwd=work)
        return work


def make_repo(root: Path, files: Mapping[str, Content]) -> BaseRepo:
    """Create a repository holding ``files`` in one commit, plus a later commit on top.

    The later commit makes sure the analysis uses the base commit, not the branch tip.
    """
    path = root / "base"
    path.mkdir()
    git("init", "--quiet", "--initial-branch=main", cwd=path)
    write_files(path, files)
    git("add", "-A", cwd=path)
    git("commit", "--quiet", "-m", "base", cwd=path)
    commit = git("rev-parse", "HEAD", cwd=path).strip()
    (path / "LATER.txt").write_text("a commit after the base commit\n", encoding="utf-8")
    git("add", "-A", cwd=path)
    git("commit", "--quiet", "-m", "later", cwd=path)
    scratch = root / "scratch"
    scratch.mkdir()
    return BaseRepo(path=path, commit=commit, scratch=scratch)


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
        git("apply", "-", input_text=self.tests_patches[feature_id], cwd=work)
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
