"""A checkout of a task's base commit where the red-team tests write attack patches with git
(the exploit corpus and the path-shadowing tests)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from arena_bot.tasks.dataset import TaskFolder
from support.gitrepo import git as _git


class Workbench:
    """A checkout of one task's base commit where attack patches are written with git."""

    def __init__(self, task: TaskFolder, root: Path) -> None:
        assert task.bundle is not None
        self.task = task
        self.repo = root / task.id
        subprocess.run(["git", "clone", "--quiet", str(task.bundle), str(self.repo)],
                       check=True, capture_output=True)
        _git("checkout", "--quiet", task.spec.source.commit, cwd=self.repo)
        self.package_init = self._package_init()

    def _package_init(self) -> str:
        tracked = _git("ls-files", cwd=self.repo).splitlines()
        inits = sorted(
            (p for p in tracked if p.endswith("/__init__.py") and not p.startswith("tests")),
            key=lambda p: p.count("/"),
        )
        assert inits, f"{self.task.id}: no package __init__.py to attack"
        return inits[0]

    def tracked_test_file(self) -> str:
        tests = [p for p in _git("ls-files", cwd=self.repo).splitlines()
                 if p.startswith("tests/") and p.endswith(".py")]
        assert tests
        return tests[0]

    def diff(self, changes: dict[str, str]) -> str:
        """The patch writing ``changes`` (path -> content; ``+=`` prefix appends)."""
        for path, content in changes.items():
            target = self.repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if content.startswith("+="):
                content = target.read_text() + "\n" + content[2:]
            target.write_text(content)
        _git("add", "-A", "--force", cwd=self.repo)  # hostile files may be ignored ones
        diff = _git("diff", "--cached", "HEAD", cwd=self.repo)
        _git("reset", "--quiet", "--hard", "HEAD", cwd=self.repo)
        _git("clean", "-fdxq", cwd=self.repo)
        return diff
