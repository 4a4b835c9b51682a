"""The cold path: what each submission costs when nothing is remembered (no memo).

A first run on a machine, or the first after a bot upgrade, parses every file of the board
afresh. ``bench_scale.py`` times whole commands; this script prints the per-file cost of
each stage they are made of, on the files of the same synthetic board, so a change to one
stage can be judged on its own (best of several rounds, microseconds per file):

* ``parse_yaml`` of a ``submission.yaml`` (libyaml's composer, our typing and checks),
* ``parse_patch`` of a submission's patch, and the task's protected-path check of it,
* ``normalize_patch`` (the duplicate-patch digest's input),
* ``canonical`` JSON of one leaderboard entry (what ``leaderboard.json`` is made of).

With ``--commands N``, ``arena score`` and ``arena validate`` are also run cold N times
each (the memo removed before every run) and their user+system CPU seconds printed: on a
shared machine CPU time varies far less than wall time. ``--baseline CMD`` interleaves
another bot's runs (e.g. the main checkout's ``.venv/bin/arena``) with this one's.

    .venv/bin/python benchmarks/bench_cold.py                          # stages, 2,000 files
    .venv/bin/python benchmarks/bench_cold.py --commands 3 --baseline /work/main/.venv/bin/arena
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.synthetic_board import generate  # noqa: E402

from arena_bot.core.yamlio import parse_yaml  # noqa: E402
from arena_bot.intake.patches import parse_patch, protected_paths_for  # noqa: E402
from arena_bot.scoring.export import canonical  # noqa: E402
from arena_bot.scoring.outliers import normalize_patch  # noqa: E402
from arena_bot.tasks.dataset import Dataset  # noqa: E402

ARENA = str(Path(sys.executable).with_name("arena"))


def best_per_item(work: Callable[[Any], object], items: Sequence[Any], rounds: int) -> float:
    """Microseconds per item of the fastest of ``rounds`` passes over ``items``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            work(item)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1e6


def stages(root: Path, *, rounds: int) -> None:
    """The per-file cost of each cold stage, on the board's own files."""
    yamls = sorted((root / "submissions").glob("*/*/submission.yaml"))
    texts = [path.read_text() for path in yamls]
    patches = [(path.parent / "change.patch").read_text() for path in yamls]
    task = Dataset(root / "dataset").all()[0]
    protected = protected_paths_for(task)
    parsed = [parse_patch(text) for text in patches]
    where = Path("submission.yaml")
    rows = {
        "parse_yaml (submission.yaml)": best_per_item(
            lambda text: parse_yaml(text, path=where), texts, rounds),
        "parse_patch": best_per_item(parse_patch, patches, rounds),
        "protected-path check of a patch": best_per_item(protected.violations, parsed, rounds),
        "normalize_patch": best_per_item(normalize_patch, patches, rounds),
    }
    board = root / "out" / "leaderboard.json"
    if board.is_file():
        entries = json.loads(board.read_text())["entries"][: len(texts)]
        rows["canonical JSON of an entry"] = best_per_item(canonical, entries, rounds)
    print(f"\nper file, best of {rounds} rounds over {len(texts):,} files:")
    for name, micros in rows.items():
        print(f"  {name:<34} {micros:8.1f} µs")


def cpu_seconds(args: list[str], *, cwd: Path) -> tuple[float, float]:
    """(wall, user + system CPU) seconds of one command run to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(root: Path, *, runs: int, bots: list[str]) -> None:
    """Cold ``arena score`` and ``arena validate``, each bot in turn, ``runs`` times."""
    print(f"\ncold commands (memo removed before each run), median of {runs}; "
          f"load average {os.getloadavg()[0]:.2f}:")
    for name, extra in (("score", ["score", "--output", str(root / "out")]),
                        ("validate", ["validate"])):
        figures: dict[str, list[tuple[float, float]]] = {bot: [] for bot in bots}
        for _ in range(runs):
            for bot in bots:
                for stale in (root / ".arena").glob("memo.sqlite*"):
                    stale.unlink()
                figures[bot].append(cpu_seconds([bot, "--root", str(root), *extra], cwd=root))
        for bot in bots:
            wall = statistics.median(w for w, _ in figures[bot])
            cpu = statistics.median(c for _, c in figures[bot])
            print(f"  arena {name:<9} {wall:7.2f} s wall {cpu:7.2f} s CPU   {bot}")
    print(f"  (load average at the end: {os.getloadavg()[0]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000, help="submissions on the board")
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7, help="passes per stage (best kept)")
    parser.add_argument("--commands", type=int, default=0,
                        help="also run cold arena score / validate this many times")
    parser.add_argument("--baseline", help="another bot's arena command, interleaved")
    parser.add_argument("--keep", type=Path, help="write the board here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="arena-cold-"))
    if args.keep is not None and args.keep.exists():
        shutil.rmtree(args.keep)
    try:
        generate(root, n_submissions=args.size, n_tasks=min(args.tasks, args.size))
        subprocess.run([ARENA, "--root", str(root), "score", "--output", str(root / "out")],
                       cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        print(f"{args.size:,} submissions over {min(args.tasks, args.size)} tasks")
        stages(root, rounds=args.rounds)
        if args.commands:
            bots = [args.baseline, ARENA] if args.baseline else [ARENA]
            commands(root, runs=args.commands, bots=bots)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
