"""Time merge_patches on a conflicted pair with CooperBench's counting (a second, work-tree
merge plus `git diff`) against the seed's file counting. Prints seconds per merge."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena_bot.merge.gitmerge import merge_patches

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
FILES = 200  # a repository of this many files, so the work-tree checkout has some weight


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@x", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        repo = Path(temp)
        _git(repo, "init", "--quiet", "--initial-branch=main")
        for i in range(FILES):
            (repo / f"m{i}.py").write_text("".join(f"x{j} = {j}\n" for j in range(200)))
        _git(repo, "add", "-A")
        _git(repo, "commit", "--quiet", "-m", "base")
        base = _git(repo, "rev-parse", "HEAD").strip()
        patches = []
        for side in ("one", "two"):
            for i in range(0, FILES, 20):
                path = repo / f"m{i}.py"
                lines = path.read_text().splitlines(keepends=True)
                path.write_text("".join([*lines[:50], f"y = '{side}'\n", *lines[60:]]))
            patches.append(_git(repo, "diff"))
            _git(repo, "checkout", "--quiet", "--", ".")
        for counting in ("cooperbench", "files"):
            start = time.perf_counter()
            for _ in range(RUNS):
                outcome = merge_patches(base_repo=repo, base_commit=base, patch1=patches[0],
                                        patch2=patches[1], counting=counting)  # type: ignore[arg-type]
            elapsed = (time.perf_counter() - start) / RUNS
            details = outcome.details
            print(f"{counting:12s} {elapsed:.3f} s/merge  "
                  f"sections={details.conflict_sections} lines={details.conflict_lines}")


if __name__ == "__main__":
    main()
