"""Leaderboard scale: the commands a user runs, end to end from files, on a synthetic board.

Generates a git repository of 200 tasks (copies of the sample task ``slugkit-options`` under
new ids) and N submissions spread over them, committed, each with a stored EvaluationResult
written through the real :class:`~arena_bot.evaluation.store.ResultStore` under ``.arena/``
(ignored by git, content-addressed exactly as ``arena evaluate`` addresses it), then runs, as
separate ``arena`` processes:

* ``arena score`` over every stored result (time and peak memory): with no memo, with a
  warm one, after one new submission (untracked), and on a fresh ``git clone`` with
  ``.arena/`` (results and memo) restored (what the publish workflow's runner has),
* ``arena validate`` of every submission, and of one PR's three submissions,
* ``arena --help`` and ``arena --version``,
* optionally ``arena pipeline`` with every result cached (``--pipeline``: needs a Docker engine
  and the ``arena-base:bookworm`` image, as the results are addressed to it).

Prints one table per size; asserts nothing. Time per n·log2(n) is printed so growth can be
read off directly.

    .venv/bin/python benchmarks/bench_scale.py                     # 5,000 submissions
    .venv/bin/python benchmarks/bench_scale.py --sizes 5000 25000 50000 100000 --score-only
    .venv/bin/python benchmarks/bench_scale.py --keep /tmp/board   # keep the repository
    .venv/bin/python benchmarks/bench_scale.py --keep /tmp/board --reuse  # time it again
    .venv/bin/python benchmarks/bench_scale.py --baseline /path/to/old/arena  # before/after

Targets (issue 29, at 50,000 submissions): a warm ``arena score`` at most 2 s; a fresh clone
with the memo restored at most 5 s; a cold run within 3x the I/O floor (the floor rows). The
last floor row is what PyYAML alone takes to load every submission.yaml on the same cores: a
cold run reads every submission, so it cannot go below that row either.
Earlier targets (issue 12): validate of one PR's submissions under 0.5 s; --help/--version
under 0.3 s; pipeline with everything cached within 2x of score.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A script run puts only benchmarks/ on sys.path; the synthetic board is the test suite's
# helper (tests/support/synthetic_board.py), imported the way the tests import it.
sys.path.insert(0, str(ROOT / "tests"))
from support.synthetic_board import (  # noqa: E402
    BASE_IMAGE,
    NEW_ARRIVAL,
    add_submission,
    generate,
)

ARENA = [str(Path(sys.executable).with_name("arena"))]


@dataclass(frozen=True)
class Measure:
    seconds: float
    max_rss_mb: float
    status: int
    #: User + system CPU seconds of the command and the processes it waited for (git): on a
    #: shared machine the wall time follows the load, this far less.
    cpu: float = 0.0


def run(args: list[str], *, cwd: Path) -> Measure:
    """Run one command; wall time and the child's peak resident memory (from wait4)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    # stderr goes to a file, not a pipe: a command that prints more than a pipe holds
    # (the pipeline's progress lines) would block on a pipe nobody reads until it exits.
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(
            args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=errors
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(f"  ! {' '.join(args[3:])} exited {code}: {stderr.strip()[-400:]}")
    return Measure(seconds=seconds, max_rss_mb=usage.ru_maxrss / 1024, status=code,
                   cpu=usage.ru_utime + usage.ru_stime)


#: What either bot keeps under .arena/ between runs (this one's memo, an older one's index).
STORES = ("memo.sqlite*", "index.sqlite*")


def reset(root: Path) -> None:
    """The board as generated: no memo, no output, no new arrival (to time another bot)."""
    if (root / ".git").is_dir() and list(root.glob(f"submissions/*/{NEW_ARRIVAL}")):
        _git(root, "reset", "-q", "--hard", "HEAD~1")  # the new arrival's commit
    for path in [root / "out", *root.glob(f"submissions/*/{NEW_ARRIVAL}"),
                 *root.glob(f".arena/results/*/{NEW_ARRIVAL}")]:  # an older bot's layout
        shutil.rmtree(path, ignore_errors=True)
    for path in root.glob(f".arena/results/*/{NEW_ARRIVAL}.*.json"):
        path.unlink()
    for pattern in STORES:
        for path in (root / ".arena").glob(pattern):
            path.unlink()


def commit(root: Path) -> None:
    """Make the generated board what a leaderboard is: a git repository, .arena/ ignored."""
    (root / ".gitignore").write_text(".arena/\nout/\n", encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "board"]):
        _git(root, *args)


def _git(root: Path, *args: str) -> None:
    # No automatic gc: one detached in the background repacks the board's loose objects
    # while the fresh checkout's `git clone` copies them (which then fails).
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org",
                    "-c", "gc.auto=0", *args], cwd=root, check=True)


#: What a cold run must do at least: list every folder of the board and read and hash every
#: file once (no parsing, no memo). Printed beside the fresh-checkout row.
_FLOOR = """
import hashlib, os
for top in ("submissions", "dataset", ".arena/results"):
    for folder, _, files in os.walk(top):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                hashlib.sha256(handle.read()).hexdigest()
"""

#: What reading the submissions costs at least with the chosen YAML library, on top of the
#: floor: PyYAML's C loader (libyaml) on every submission.yaml, in two processes (the cores
#: ``arena score`` uses here), nothing checked or scored. A cold run cannot go below it.
_YAML_FLOOR = """
import glob, multiprocessing, yaml
def load(path):
    with open(path, encoding="utf-8") as handle:
        yaml.load(handle.read(), Loader=yaml.CSafeLoader)
if __name__ == "__main__":
    with multiprocessing.Pool(2) as pool:
        pool.map(load, glob.glob("submissions/*/*/submission.yaml"), chunksize=256)
"""


#: What any run must do at least to know the board's contents with git: the ids of every
#: tracked file and the files that differ (the ignored results are hashed on top of it).
_GIT_FLOOR = ("git ls-files --stage -z -- dataset submissions > /dev/null && "
              "git status --porcelain -z --untracked-files=all --ignored=traditional "
              "-- dataset submissions .arena/results > /dev/null")


def fresh_checkout(root: Path, *, keep_output: bool = False, settle: bool = False) -> None:
    """The board as a CI runner sees it: a fresh ``git clone`` (every file new), with
    ``.arena/`` (the stored results and the memo, or an older bot's index) restored where
    the bot keeps it; the output folder only with ``keep_output`` (a runner has none).
    ``settle`` waits out the age an older bot's index requires of the files it stores."""
    copy = root.with_name(root.name + ".checkout")
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(root), str(copy)], check=True)
    subprocess.run(["cp", "-R", str(root / ".arena"), str(copy / ".arena")], check=True)
    if keep_output and (root / "out").is_dir():
        shutil.move(root / "out", copy / "out")
    shutil.rmtree(root)
    copy.rename(root)
    if settle:
        time.sleep(2.5)  # an older bot's index never stores files seconds old


def report(size: int, name: str, measures: list[Measure], *, per_nlogn: bool = False) -> None:
    """One row: the figures of each bot timed, and the ratio of the last to the first."""
    cells = []
    for measure in measures:
        flag = "" if measure.status == 0 else f" (exit {measure.status})"
        cells.append(f"{measure.seconds:8.2f} s {measure.cpu:6.2f} cpu "
                     f"{measure.max_rss_mb:5.0f} MB{flag}")
    extra = ""
    if len(measures) == 2 and measures[1].seconds > 0:
        extra = f"  x{measures[0].seconds / measures[1].seconds:.1f} faster"
    elif per_nlogn:
        extra = f"  {measures[0].seconds / (size * math.log2(size)) * 1e6:.3f} µs per n·log2 n"
    print(f"  {name:<40} {' | '.join(cells)}{extra}")


def _rows(root: Path, arena: list[str], *, score_only: bool, pipeline: bool, settle: bool
          ) -> dict[str, Measure]:
    """Every command of the table, in order, as one bot on the board at ``root``."""
    board = [*arena, "--root", str(root)]
    out = ["--output", str(root / "out")]
    rows = {
        "arena score (no memo yet)": run([*board, "score", *out], cwd=root),
        "arena score (memo warm)": run([*board, "score", *out], cwd=root),
    }
    add_submission(root)  # a pull request merged: committed
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a new submission")
    rows["arena score (one new submission)"] = run([*board, "score", *out], cwd=root)
    fresh_checkout(root, settle=settle)
    rows["arena score (fresh clone + memo)"] = run([*board, "score", *out], cwd=root)
    rows["arena score (memo warm, again)"] = run([*board, "score", *out], cwd=root)
    rows["floor: list + read + hash every file"] = run([sys.executable, "-c", _FLOOR], cwd=root)
    rows["floor: git ls-files + git status"] = run(["sh", "-c", _GIT_FLOOR], cwd=root)
    rows["floor: PyYAML loads each submission"] = run([sys.executable, "-c", _YAML_FLOOR],
                                                      cwd=root)
    if score_only:
        return rows
    for pattern in STORES:
        for path in (root / ".arena").glob(pattern):
            path.unlink()
    rows["arena validate (all, no memo)"] = run([*board, "validate"], cwd=root)
    rows["arena validate (all, again)"] = run([*board, "validate"], cwd=root)
    fresh_checkout(root, keep_output=True, settle=settle)  # validate does not write it
    rows["arena validate (fresh clone + memo)"] = run([*board, "validate"], cwd=root)
    some = sorted((root / "submissions").glob("*/*"))[:3]
    rows["arena validate (one PR: 3)"] = run([*board, "validate", *map(str, some)], cwd=root)
    if pipeline:
        pipeline_args = [*board, "pipeline", "--base-image", BASE_IMAGE, *out]
        # The memo holds verdicts but no task parts here (it was cleared before validate):
        # the first run scores the board afresh, the second has nothing to redo.
        rows["arena pipeline (all cached)"] = run(pipeline_args, cwd=root)
        rows["arena pipeline (all cached, again)"] = run(pipeline_args, cwd=root)
        # The target is a ratio on one machine, whose wall times vary up to 2x from one
        # minute to the next here: both warm, interleaved, medians of several pairs.
        pairs = [(run([*board, "score", *out], cwd=root), run(pipeline_args, cwd=root))
                 for _ in range(PAIRS)]
        rows[f"arena score (warm, median of {PAIRS})"] = _median([s for s, _ in pairs])
        rows[f"arena pipeline (warm, median of {PAIRS})"] = _median([p for _, p in pairs])
        ratios = sorted(p.seconds / s.seconds for s, p in pairs)
        print(f"  pipeline / score, warm, {PAIRS} interleaved pairs: median "
              f"{ratios[len(ratios) // 2]:.2f}x (each: {', '.join(f'{r:.2f}' for r in ratios)})")
    rows["arena --help"] = run([*arena, "--help"], cwd=root)
    rows["arena --version"] = run([*arena, "--version"], cwd=root)
    return rows


#: Interleaved (score, pipeline) pairs timed for the pipeline's ratio.
PAIRS = 5


def _median(measures: list[Measure]) -> Measure:
    return sorted(measures, key=lambda measure: measure.seconds)[len(measures) // 2]


def bench(
    size: int, *, n_tasks: int, pipeline: bool, keep: Path | None, score_only: bool = False,
    baseline: list[str] | None = None, reuse: bool = False,
) -> None:
    root = keep or Path(tempfile.mkdtemp(prefix="arena-scale-"))
    reused = reuse and keep is not None and (keep / ".git").is_dir()
    if keep is not None and keep.exists() and not reused:
        shutil.rmtree(keep)
    try:
        start = time.perf_counter()
        if not reused:
            generate(root, n_submissions=size, n_tasks=n_tasks)
        print(f"\n{size:,} submissions over {n_tasks} tasks "
              f"({'reused' if reused else 'generated'} in {time.perf_counter() - start:.1f} s;"
              f" load average {os.getloadavg()[0]:.2f})")
        if not reused:
            commit(root)
        # An older bot's index (--baseline) never stores a signature younger than 2 s.
        settle = baseline is not None
        if settle:
            time.sleep(2.5)
        bots = [ARENA] if baseline is None else [baseline, ARENA]
        if baseline is not None:
            print(f"  {'':<40} {'before (--baseline)':>30} | {'after (this bot)':>30}")
        runs = []
        for bot in bots:
            reset(root)
            runs.append(_rows(root, bot, score_only=score_only, pipeline=pipeline, settle=settle))
        for name in runs[0]:
            report(size, name, [rows[name] for rows in runs],
                   per_nlogn=name in ("arena score (no memo yet)", "arena score (memo warm)"))
        size_mb = (root / "out" / "leaderboard.json").stat().st_size / 1e6
        print(f"  {'leaderboard.json (full export)':<40} {size_mb:8.1f} MB")
        largest = max(p.stat().st_size for p in (root / "out" / "tasks").glob("*.json"))
        print(f"  {'largest tasks/<task>.json':<40} {largest / 1e6:8.2f} MB")
        summary_mb = (root / "out" / "board.json").stat().st_size / 1e6
        print(f"  {'board.json (no entries)':<40} {summary_mb:8.2f} MB")
        for pattern in STORES:
            for stored in (root / ".arena").glob(pattern):
                print(f"  {'.arena/' + stored.name:<40} {stored.stat().st_size / 1e6:8.1f} MB")
        print(f"  (load average at the end: {os.getloadavg()[0]:.2f})")
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--pipeline", action="store_true", help="also time arena pipeline")
    parser.add_argument("--keep", type=Path, help="write the repository here and keep it")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: time the board kept there by an earlier run of the "
                        "same size instead of generating it again (minutes at 50,000)")
    parser.add_argument("--score-only", action="store_true",
                        help="time arena score only (the growth table: 5k to 100k)")
    parser.add_argument(
        "--baseline", help="another bot's arena command (e.g. a script running an older "
        "checkout): every row is timed for it first, then for this one, on the same board, "
        "and the ratio printed (figures taken minutes apart on a shared machine mislead)")
    args = parser.parse_args()
    baseline = args.baseline.split() if args.baseline else None
    for size in args.sizes:
        bench(size, n_tasks=min(args.tasks, size), pipeline=args.pipeline, keep=args.keep,
              score_only=args.score_only, baseline=baseline, reuse=args.reuse)


if __name__ == "__main__":
    main()
