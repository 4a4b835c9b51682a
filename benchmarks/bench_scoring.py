"""Full rescoring speed: this engine vs seed 002's reference functions on the same data.

Full rescoring = baselines, every component and overall score, difficulty adjustment,
overall and category rankings, percentiles, outlier flags, multi-run intervals and the
seed's validation rules, for 100,000 submissions held in memory, once over 1,000 tasks
(100 submissions each) and once over 10 tasks (10,000 each). The engine runs on columns
(``arena_bot.scoring.core.score_columns``); the seed's functions run on the same numbers as
dicts. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_scoring.py            # everything (seed: minutes)
    .venv/bin/python benchmarks/bench_scoring.py --quick    # seed timed on a task sample

Target: engine under 0.5 s on one core in both shapes, growing as n log n.
"""

from __future__ import annotations

import os

# One core: no threaded BLAS (sorting is single-threaded anyway).
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from arena_bot.scoring import core  # noqa: E402

# A script run puts only benchmarks/ on sys.path; seed 002's reference functions are the
# test suite's helper (tests/support/seed002.py), imported the way the tests import them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import seed002  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)  # seed's datetime.utcnow()


@dataclass
class Data:
    n_tasks: int
    task: np.ndarray
    tokens: np.ndarray
    tool_calls: np.ndarray
    iterations: np.ndarray
    time: np.ndarray
    cost: np.ndarray
    success: np.ndarray
    made_file: np.ndarray
    runs_per_submission: int


def make_data(*, n_submissions: int, n_tasks: int, runs: int = 1, seed: int = 1) -> Data:
    rng = np.random.default_rng(seed)
    n = n_submissions * runs
    task = np.repeat(rng.integers(0, n_tasks, n_submissions), runs)
    time_ = np.round(rng.lognormal(5.5, 0.8, n), 1)
    time_[rng.random(n) < 0.05] = 0.0  # some runs did not record time
    cost = np.round(rng.lognormal(-2.5, 0.9, n), 4)
    cost[rng.random(n) < 0.1] = 0.0
    return Data(
        n_tasks=n_tasks,
        task=task.astype(np.int64),
        tokens=np.round(rng.lognormal(11, 0.9, n)),
        tool_calls=rng.integers(1, 150, n).astype(float),
        iterations=rng.integers(1, 8, n).astype(float),
        time=time_,
        cost=cost,
        success=rng.random(n) < 0.8,
        made_file=rng.random(n) < 0.7,
        runs_per_submission=runs,
    )


def engine_columns(data: Data) -> tuple[core.TaskColumns, core.SubmissionColumns, core.RunColumns]:
    n_runs = len(data.task)
    runs = data.runs_per_submission
    n_subs = n_runs // runs
    t = data.n_tasks
    ones = np.ones(t)
    tasks = core.TaskColumns(
        count=t,
        defaults=core.DefaultBaselines(
            tokens=(ones * 5_000, ones * 60_000, ones * 400_000),
            tool_calls=(ones * 3, ones * 30, ones * 150),
            execution_time=(ones * 60, ones * 300, ones * 1800),
            cost=(ones * 0.01, ones * 0.05, ones * 0.20),
            median_iterations=ones * 3,
        ),
        weights=np.tile([0.35, 0.25, 0.20, 0.20], (t, 1)),
        multiplier=np.where(np.arange(t) % 3 == 0, 1.0, np.where(np.arange(t) % 3 == 1, 1.1, 1.2)),
    )
    rates = np.full(n_subs, np.nan)
    submissions = core.SubmissionColumns(
        task=data.task[::runs].copy(), scored=np.ones(n_subs, dtype=bool),
        price_input=rates, price_cached=rates, price_output=rates,
    )
    nan = np.full(n_runs, np.nan)
    correctness = 50.0 * data.success + 50.0 * data.made_file  # no_errors + file_exists
    run_columns = core.RunColumns(
        submission=np.repeat(np.arange(n_subs, dtype=np.int64), runs),
        tokens=data.tokens, tool_calls=data.tool_calls, iterations=data.iterations,
        execution_time=data.time, cost=data.cost, correctness=correctness,
        prompt=nan, completion=nan, cached=nan,
        solved=data.success.astype(float),  # the share solved: all or nothing here
    )
    return tasks, submissions, run_columns


def time_engine(data: Data, *, repeat: int = 3) -> float:
    tasks, submissions, runs = engine_columns(data)
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        core.score_columns(tasks=tasks, submissions=submissions, runs=runs)
        best = min(best, time.perf_counter() - start)
    return best


SEED_TASK = {"success_criteria": [{"type": "no_errors"},
                                  {"type": "file_exists", "file_path": "out.txt"}]}
DIFFICULTIES = ("beginner", "intermediate", "advanced")


def seed_groups(data: Data, task_ids: list[int]) -> dict[int, list[dict]]:
    wanted = set(task_ids)
    groups: dict[int, list[dict]] = {t: [] for t in task_ids}
    for i in range(len(data.task)):
        t = int(data.task[i])
        if t in wanted:
            groups[t].append({
                "id": i, "task_id": t, "total_tokens": float(data.tokens[i]),
                "tool_calls": float(data.tool_calls[i]), "iterations": float(data.iterations[i]),
                "execution_time": float(data.time[i]), "estimated_cost": float(data.cost[i]),
                "success": bool(data.success[i]),
                "files_created": ["out.txt"] if data.made_file[i] else [],
            })
    return groups


def seed_rescore(groups: dict[int, list[dict]]) -> None:
    """Seed 002's pipeline on every task: the same steps the engine does."""
    for task_id, subs in groups.items():
        if not subs:
            continue
        baseline = seed002.calculate_task_baseline(task_id, subs)
        evaluations = []
        for sub in subs:
            evaluation = seed002.calculate_overall_score(sub, SEED_TASK, baseline)
            evaluation["overall_score"] = seed002.apply_difficulty_adjustment(
                evaluation["overall_score"], DIFFICULTIES[task_id % 3]
            )
            evaluation["evaluated_at"] = "2025-01-01T00:00:00"
            evaluation["total_tokens"] = sub["total_tokens"]
            evaluation["id"] = sub["id"]
            seed002.validate_evaluation_metrics(evaluation)
            evaluations.append(evaluation)
        seed002.calculate_rankings(evaluations)
        for metric in ("efficiency", "speed", "cost"):
            seed002.calculate_category_rankings(evaluations, metric)
        seed002.detect_outliers(subs)
        seed002.calculate_confidence_interval([e["overall_score"] for e in evaluations])


def time_seed(data: Data, *, sample_tasks: int | None) -> tuple[float, bool]:
    """Seconds for the seed on all tasks (or a sample, scaled up: then ``True``)."""
    task_ids = list(range(data.n_tasks))
    extrapolated = sample_tasks is not None and sample_tasks < data.n_tasks
    if extrapolated:
        task_ids = task_ids[:sample_tasks]
    groups = seed_groups(data, task_ids)
    start = time.perf_counter()
    seed_rescore(groups)
    elapsed = time.perf_counter() - start
    if extrapolated:
        elapsed *= data.n_tasks / len(task_ids)
    return elapsed, extrapolated


def time_typed(n_submissions: int, *, n_tasks: int) -> float:
    """``build_leaderboard`` end to end on typed models (built before the clock starts)."""
    import datetime as dt

    from arena_bot.models.evaluation import EvaluationResult, FeatureResult, RunResult
    from arena_bot.models.submission import Submission
    from arena_bot.models.task import Task
    from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions, SubmissionInput
    from arena_bot.scoring.leaderboard import build_leaderboard

    data = make_data(n_submissions=n_submissions, n_tasks=n_tasks)
    tasks = {
        f"t{t:04d}": Task.model_validate({
            "id": f"t{t:04d}", "title": "T", "description": "d",
            "category": "debugging", "difficulty": DIFFICULTIES[t % 3], "language": "Python",
            "source": {"url": "https://example.org/r.git", "commit": "0" * 40},
            "tests": {"command": "pytest"}, "features": [{"id": 1, "title": "F"}],
        })
        for t in range(n_tasks)
    }
    items = []
    for i in range(n_submissions):
        task_id = f"t{int(data.task[i]):04d}"
        spec = Submission.model_validate({
            "task": task_id, "tool": {"name": "Tool", "version": "1"},
            "models": [f"model-{i % 7}"], "contributor": {"name": "c"},
            "date": dt.date(2025, 1, 1), "setting": "single", "features": [1],
            "runs": [{
                "id": "r1", "tokens": {"total": int(data.tokens[i])},
                "tool_calls": int(data.tool_calls[i]), "iterations": int(data.iterations[i]),
                "execution_time": float(data.time[i]), "estimated_cost": float(data.cost[i]),
                "patches": ["p.diff"],
            }],
        })
        passed = bool(data.success[i])
        result = EvaluationResult(
            task_id=task_id, submission_id=f"s{i}", input_hash="h", harness_version="b",
            evaluated_at=dt.datetime(2025, 1, 1, tzinfo=dt.UTC),
            runs=[RunResult(run_id="r1", features=[FeatureResult(
                feature=1, status="passed" if passed else "failed", passed=passed,
                apply_status="clean")])],
        )
        items.append(SubmissionInput(key=f"{task_id}/s{i:06d}", submission_id=f"s{i:06d}",
                                     spec=spec, result=result))
    inputs = ScoringInputs(tasks=tasks, submissions=items)
    options = ScoringOptions()
    start = time.perf_counter()
    build_leaderboard(inputs, options=options)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="time the seed on 1 of the 10 big tasks and 100 of the 1,000 "
                        "small ones, scaled up (marked 'extrapolated')")
    parser.add_argument("--submissions", type=int, default=100_000,
                        help="submissions per shape; the growth table runs from a quarter "
                        "to four times this, the typed path a tenth (the test suite runs "
                        "the smallest board every measurement still makes sense on)")
    args = parser.parse_args()
    n = args.submissions
    print(f"Full rescoring of {n:,} submissions in memory (one core)\n")
    print(f"{'shape':<28} {'engine':>10} {'seed 002':>14} {'speed-up':>10}")
    for n_tasks, sample in ((1_000, 100), (10, 1)):
        data = make_data(n_submissions=n, n_tasks=n_tasks)
        engine = time_engine(data)
        seed, extrapolated = time_seed(data, sample_tasks=sample if args.quick else None)
        mark = "*" if extrapolated else ""
        shape = f"{n_tasks:,} tasks × {n // n_tasks:,} each"
        print(f"{shape:<28} {engine:>9.3f}s {seed:>12.2f}s{mark:1} {seed / engine:>9.0f}x")
    if args.quick:
        print("* extrapolated from a sample of tasks (--quick)")

    print("\nGrowth of the engine (10 tasks, single-run submissions):")
    print(f"{'submissions':>12} {'seconds':>9} {'µs / (n log2 n)':>16}")
    for size in (n // 4, n // 2, n, 2 * n, 4 * n):
        seconds = time_engine(make_data(n_submissions=size, n_tasks=10))
        print(f"{size:>12,} {seconds:>9.3f} {1e6 * seconds / (size * math.log2(size)):>16.4f}")

    data = make_data(n_submissions=n, n_tasks=1_000, runs=3)
    print(f"\nMulti-run: {n:,} submissions × 3 runs over 1,000 tasks: "
          f"{time_engine(data):.3f}s (intervals over {3 * n:,} runs)")
    typed = max(n // 10, 10)
    print(f"Typed path (build_leaderboard: criteria per run + the pydantic Leaderboard) for "
          f"{typed:,} submissions over 100 tasks: {time_typed(typed, n_tasks=100):.2f}s")


if __name__ == "__main__":
    main()
