"""Benchmark: the git part of merge analysis (issue 4's target: under 1 s).

Two 500-line patches on a 1,000-file repository: agent 1 and agent 2 each change 250 lines
in 10 files, two of which both agents touch (so the run goes through a conflict, the count,
the abort and the union retry: the slowest path). Prints the median and worst wall-clock
time of ``merge_patches`` over several runs, and how many git processes one analysis starts.

Run: ``.venv/bin/python benchmarks/bench_merge.py [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import git

from arena_bot.merge.gitmerge import merge_patches

FILES = 1_000
LINES_PER_FILE = 40
ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@localhost",
}


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True, check=True
    ).stdout


def _file_text(index: int, *, tag: str = "", edited: range = range(0)) -> str:
    lines = []
    for line in range(LINES_PER_FILE):
        if line in edited:
            lines.append(f"value_{index}_{line} = '{tag} edit {line}'\n")
        else:
            lines.append(f"value_{index}_{line} = {line}\n")
    return "".join(lines)


def build_repository(root: Path) -> tuple[Path, str]:
    repo = root / "base"
    for index in range(FILES):
        path = repo / f"pkg{index // 100}" / f"module_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_file_text(index))
    _git(repo, "init", "--quiet")
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "-m", "base")
    return repo, _git(repo, "rev-parse", "HEAD").strip()


def make_patch(repo: Path, commit: str, *, files: list[int], tag: str, edited: range) -> str:
    """A patch changing ``edited`` lines of each file: 2 * len(edited) * len(files) lines."""
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp) / "w"
        _git(repo.parent, "clone", "--quiet", "--shared", str(repo), str(work))
        for index in files:
            path = work / f"pkg{index // 100}" / f"module_{index}.py"
            path.write_text(_file_text(index, tag=tag, edited=edited))
        _git(work, "add", "-A")
        return _git(work, "diff", "--cached", commit)


def count_git_processes(run) -> int:
    """How many git commands one analysis starts (GitPython's execute, counted)."""
    original = git.Git.execute
    calls = 0

    def counting(self, command, *args, **kwargs):
        nonlocal calls
        calls += 1
        return original(self, command, *args, **kwargs)

    git.Git.execute = counting  # type: ignore[method-assign]
    try:
        run()
    finally:
        git.Git.execute = original  # type: ignore[method-assign]
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-merge-") as temp:
        root = Path(temp)
        started = time.perf_counter()
        repo, commit = build_repository(root)
        # 10 files x 25 edited lines x 2 (- and +) = 500 changed lines per patch.
        patch1 = make_patch(repo, commit, files=list(range(0, 10)), tag="one",
                            edited=range(0, 25))
        patch2 = make_patch(repo, commit, files=list(range(8, 18)), tag="two",
                            edited=range(10, 35))
        print(f"setup: {FILES} files, {time.perf_counter() - started:.1f} s")
        for name, patch in (("patch1", patch1), ("patch2", patch2)):
            changed = sum(
                1 for line in patch.splitlines()
                if line[:1] in "+-" and not line.startswith(("+++", "---"))
            )
            print(f"{name}: {changed} changed lines")

        def run():
            return merge_patches(
                base_repo=repo, base_commit=commit, patch1=patch1, patch2=patch2
            )

        outcome = run()  # warm the page cache
        print(
            f"result: {outcome.status}/{outcome.strategy}, "
            f"{outcome.details.conflict_sections} sections, "
            f"{outcome.details.conflict_lines} lines"
        )
        print(f"git processes per analysis: {count_git_processes(run)}")
        timings = []
        for _ in range(options.runs):
            begin = time.perf_counter()
            run()
            timings.append(time.perf_counter() - begin)
        print(
            f"merge analysis (git part): median {statistics.median(timings) * 1000:.0f} ms, "
            f"max {max(timings) * 1000:.0f} ms over {options.runs} runs (target < 1000 ms)"
        )


if __name__ == "__main__":
    main()
