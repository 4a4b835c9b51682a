"""Seed 002's reference functions (tests/support/seed002.py) against this engine.

Same random inputs on both sides; results must agree wherever the seed is well defined:

* baselines, component scores, overall score, difficulty adjustment;
* correctness with the criteria the seed really checks (no_errors, file_exists);
* ranks (ties share a rank) and the seed's percentile (share strictly below) — the
  engine's mid-rank percentile minus half the ties;
* category ranks when no two scores tie (the seed numbers ties arbitrarily);
* the confidence interval at n = 5, the one size where the seed's fixed t = 2.776 is right;
* outlier flags when every execution time is recorded (the seed flags a missing 0 s time);
* validation messages.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import seed002
from support.scoring_builders import make_input, make_run, make_submission, make_task

from arena_bot.core.config import ArenaConfig, ScoringConfig
from arena_bot.scoring.core import t_interval
from arena_bot.scoring.grouped import competition_ranks, midrank_percentile
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions
from arena_bot.scoring.leaderboard import build_leaderboard

# The seed002 policy reproduces the specification's composite exactly.
SEED002 = ScoringConfig(policy="seed002", weights="default")
OPTIONS = ScoringOptions(config=ArenaConfig(scoring=SEED002))

metrics = st.fixed_dictionaries({
    "total_tokens": st.integers(min_value=10, max_value=500_000),
    "tool_calls": st.integers(min_value=1, max_value=200),
    "iterations": st.integers(min_value=1, max_value=12),
    "execution_time": st.one_of(st.just(0.0), st.floats(min_value=1, max_value=3000)),
    "estimated_cost": st.one_of(st.just(0.0), st.floats(min_value=0.001, max_value=1.0)),
    "success": st.booleans(),
    "made_file": st.booleans(),
})


def run_engine(rows: list[dict], difficulty: str):
    task = make_task(
        difficulty=difficulty,
        success_criteria=[{"type": "no_errors"}, {"type": "file_exists", "path": "out.txt"}],
    )
    items = []
    for k, row in enumerate(rows):
        run = make_run(
            tokens={"total": row["total_tokens"]},
            tool_calls=row["tool_calls"],
            iterations=row["iterations"],
            execution_time=row["execution_time"],
            estimated_cost=row["estimated_cost"],
            success=row["success"],
            files_created=["out.txt"] if row["made_file"] else [],
        )
        items.append(make_input(f"s{k:03d}", make_submission(runs=[run])))
    lb = build_leaderboard(ScoringInputs(tasks={task.id: task}, submissions=items),
                           options=OPTIONS)
    return lb, {e.submission_id: e for e in lb.entries}


def seed_rows(rows: list[dict]) -> list[dict]:
    return [
        {**row, "id": f"s{k:03d}", "files_created": ["out.txt"] if row["made_file"] else []}
        for k, row in enumerate(rows)
    ]


SEED_TASK = {"success_criteria": [{"type": "no_errors"},
                                  {"type": "file_exists", "file_path": "out.txt"}]}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(metrics, min_size=1, max_size=12),
       difficulty=st.sampled_from(["beginner", "intermediate", "advanced"]))
def test_scores_and_baselines_match_the_seed(rows: list[dict], difficulty: str) -> None:
    lb, entries = run_engine(rows, difficulty)
    subs = seed_rows(rows)
    baseline = seed002.calculate_task_baseline("demo", subs)
    mine = lb.tasks[0].baseline
    for metric, key in (("tokens", "tokens"), ("tool_calls", "tool_calls"),
                        ("execution_time", "execution_time"), ("cost", "cost")):
        ours = getattr(mine, key)
        # published baselines carry 4 decimals
        assert ours.min == pytest.approx(baseline[f"min_{metric}"], abs=6e-5)
        assert ours.median == pytest.approx(baseline[f"median_{metric}"], abs=6e-5)
        assert ours.max == pytest.approx(baseline[f"max_{metric}"], abs=6e-5)
    assert mine.iterations.median == pytest.approx(baseline["median_iterations"])
    if len(subs) >= 5:
        assert mine.tokens.q25 == pytest.approx(baseline["q25_tokens"], abs=6e-5)
        assert mine.tokens.q75 == pytest.approx(baseline["q75_tokens"], abs=6e-5)
    for sub in subs:
        e = entries[sub["id"]]
        seed = seed002.calculate_overall_score(sub, SEED_TASK, baseline)
        assert e.scores.efficiency == pytest.approx(seed["efficiency_score"], abs=0.011)
        assert e.scores.speed == pytest.approx(seed["speed_score"], abs=0.011)
        assert e.scores.cost == pytest.approx(seed["cost_score"], abs=0.011)
        assert e.scores.correctness == pytest.approx(seed["correctness_score"], abs=0.011)
        assert e.scores.overall_unadjusted == pytest.approx(seed["overall_score"], abs=0.011)
        adjusted = seed002.apply_difficulty_adjustment(seed["overall_score"], difficulty)
        assert e.scores.overall == pytest.approx(adjusted, abs=0.02)
        seed_messages = seed002.validate_evaluation_metrics({
            "overall_score": e.scores.overall, "efficiency_score": e.scores.efficiency,
            "speed_score": e.scores.speed, "cost_score": e.scores.cost,
            "correctness_score": e.scores.correctness, "total_tokens": e.metrics.tokens,
        })
        assert e.validation == seed_messages


@settings(max_examples=60, deadline=None)
@given(scores=st.lists(st.integers(min_value=0, max_value=30).map(lambda v: v * 2.5),
                       min_size=1, max_size=40))
def test_ranks_and_percentiles_match_the_seed(scores: list[float]) -> None:
    evaluations = [
        {"id": k, "overall_score": s, "evaluated_at": "2025-01-01", "efficiency_score": s}
        for k, s in enumerate(scores)
    ]
    seed_ranked = seed002.calculate_rankings(evaluations)
    ranks = competition_ranks(np.array(scores), np.zeros(len(scores), dtype=np.int64),
                              n_groups=1)
    percent = midrank_percentile(ranks)
    ours = {k: (int(ranks.rank[k]), percent[k] - 50.0 * ranks.equal[k] / len(scores))
            for k in range(len(scores))}
    for row in seed_ranked:
        rank, strictly_below = ours[row["id"]]
        assert rank == row["overall_ranking"]
        assert round(strictly_below, 1) == pytest.approx(row["percentile"])
    if len(set(scores)) == len(scores):  # the seed's category ranks ignore ties
        seed_category = seed002.calculate_category_rankings(
            [dict(e) for e in evaluations], "efficiency"
        )
        for row in seed_category:
            assert ours[row["id"]][0] == row["efficiency_ranking"]


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(min_value=0, max_value=100), min_size=5, max_size=5))
def test_confidence_interval_matches_the_seed_at_four_degrees_of_freedom(
    values: list[float],
) -> None:
    import statistics

    low, high = seed002.calculate_confidence_interval(values)
    mean = np.array([statistics.mean(values)])
    std = np.array([statistics.stdev(values)])
    our_low, our_high = t_interval(mean, std, np.array([5]), confidence=0.95)
    # The seed's t value is a table's 2.776 (rounded to 3 decimals; exact 2.77645): the two
    # intervals may differ by that rounding times the standard error, and by no more.
    tolerance = 0.0005 * std[0] / np.sqrt(5) + 1e-9
    assert our_low[0] == pytest.approx(low, abs=tolerance)
    assert our_high[0] == pytest.approx(high, abs=tolerance)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(
    metrics.map(lambda r: {**r, "execution_time": max(r["execution_time"], 1.0)}),
    min_size=1, max_size=10,
))
def test_outlier_flags_match_the_seed_when_times_are_recorded(rows: list[dict]) -> None:
    _, entries = run_engine(rows, "beginner")
    seed_outliers = {o["submission_id"]: sorted(o["flags"])
                     for o in seed002.detect_outliers(seed_rows(rows))}
    seed_codes = {"extremely_efficient_tokens", "extremely_fast", "minimal_tool_usage"}
    ours = {}
    for sid, e in entries.items():
        flags = sorted(f.code for f in e.outliers if f.code in seed_codes)
        if len(flags) >= 2:
            ours[sid] = flags
    assert ours == seed_outliers
