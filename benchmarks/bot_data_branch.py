"""Time the arena-data branch: save and restore of N stored results; prints figures.

A fresh publish runner restores the store, evaluates a few new submissions and saves; this
measures those steps on a local bare remote (network time on GitHub comes on top).

Usage: .venv/bin/python benchmarks/bot_data_branch.py [RESULTS]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena_bot.bot.datastore import restore, save

_ENV = ["-c", "user.name=bench", "-c", "user.email=bench@example"]


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *_ENV, *args], cwd=cwd, check=True, capture_output=True)


def _results(folder: Path, count: int, start: int = 0) -> None:
    body = '{"runs": [' + ", ".join(['{"feature": 1, "status": "passed"}'] * 40) + "]}\n"
    for i in range(start, start + count):
        path = folder / f"task{i % 50}" / f"sub{i:06d}.{i:032x}-0123456789ab.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def _timed(label: str, action) -> None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    outcome = action()
    print(f"{label}: {time.perf_counter() - start:.2f} s  ({outcome})")


def main(count: int = 5000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        remote = root / "remote.git"
        _git("init", "--quiet", "--bare", str(remote), cwd=root)
        seed = root / "seed"
        _git("clone", "--quiet", str(remote), str(seed), cwd=root)
        (seed / "README.md").write_text("x\n")
        _git("add", "README.md", cwd=seed)
        _git("commit", "--quiet", "-m", "init", cwd=seed)
        _git("push", "--quiet", "origin", "HEAD:main", cwd=seed)
        first = root / "first"
        _git("clone", "--quiet", str(remote), str(first), cwd=root)
        _results(first / "results", count)
        print(f"{count} result files of {len(_body_size())} bytes each")
        _timed("save, first (all new)", lambda: save(repo=first, results_dir=first / "results"))
        fresh = root / "fresh"
        _git("clone", "--quiet", str(remote), str(fresh), cwd=root)
        _timed("restore into a fresh runner",
               lambda: restore(repo=fresh, results_dir=fresh / "results"))
        _timed("save, nothing new", lambda: save(repo=fresh, results_dir=fresh / "results"))
        _results(fresh / "results", 50, start=count)
        _timed("save, 50 new", lambda: save(repo=fresh, results_dir=fresh / "results"))


def _body_size() -> str:
    return '{"runs": [' + ", ".join(['{"feature": 1, "status": "passed"}'] * 40) + "]}\n"


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
