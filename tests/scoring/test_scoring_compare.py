from __future__ import annotations

import pytest
from support.scoring_builders import make_input, make_run, make_submission, make_task

from arena_bot.core.errors import InputError
from arena_bot.scoring.calibration import (
    REFERENCE_SET,
    CalibrationSample,
    SampleResult,
    rate,
    render_report,
    summarize_samples,
)
from arena_bot.scoring.compare import compare, render_table
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions
from arena_bot.scoring.leaderboard import build_leaderboard
from arena_bot.scoring.stats import paired_test


def two_task_board():
    tasks = [make_task("alpha"), make_task("beta"), make_task("gamma")]
    items = []
    for task in tasks:
        for tool, scale in (("Aider", 1), ("Cursor", 3)):
            runs = [make_run(f"r{j}", tokens={"total": 10_000 * scale + 777 * j + len(task.id)},
                             tool_calls=5 * scale + j) for j in range(2)]
            items.append(make_input(f"{tool.lower()}-x",
                                    make_submission(task.id, tool=tool, runs=runs)))
    return build_leaderboard(ScoringInputs(tasks={t.id: t for t in tasks}, submissions=items),
                             options=ScoringOptions())


def test_paired_test_uses_per_task_differences() -> None:
    lb = two_task_board()
    result = compare(lb, "aider", "CURSOR")
    assert result.a.unit == "submissions" and len(result.a.values) == 3
    assert result.paired_tasks == ("alpha", "beta", "gamma")
    by = {(e.tool, e.task_id): e.scores.overall for e in lb.entries}
    differences = [by[("Aider", t)] - by[("Cursor", t)] for t in result.paired_tasks]
    expected = paired_test(differences)
    assert result.paired is not None
    assert result.paired.mean_difference == pytest.approx(expected.mean_difference)
    assert result.paired.p_value == pytest.approx(expected.p_value)
    table = render_table(result)
    assert "paired 95% CI" in table and "Welch t" in table


def test_single_submission_side_compares_runs() -> None:
    lb = two_task_board()
    result = compare(lb, "alpha/aider-x", "alpha/cursor-x")
    assert result.a.unit == "runs" and len(result.a.values) == 2
    assert result.paired is None and "1 in common" in (result.paired_note or "")


def test_unknown_selector_lists_labels() -> None:
    with pytest.raises(InputError, match="matches no scored submission") as info:
        compare(two_task_board(), "nobody", "aider")
    assert "Aider / gpt-5" in (info.value.hint or "")


@pytest.mark.parametrize(
    ("pass_rate", "mae", "corr", "rating"),
    [(95, 5, 0.95, "Excellent"), (95, 12, 0.95, "Good"), (80, 14, 0.85, "Good"),
     (60, 20, 0.7, "Fair"), (60, 20, 0.5, "Poor"), (40, 5, 0.99, "Poor"),
     (100, None, None, "Poor"), (100, 0.0, None, "Poor")],
)
def test_seed_rating_table(pass_rate, mae, corr, rating) -> None:
    assert rate(pass_rate=pass_rate, mae=mae, correlation=corr) == rating


def test_calibration_summary_statistics() -> None:
    samples = [CalibrationSample(id=str(k), kind="factual", rubric="r", response="x",
                                 expected=e) for k, e in enumerate([0.0, 50.0, 100.0, 80.0])]
    judged = [10.0, 50.0, 70.0, None]
    results = []
    for sample, score in zip(samples, judged, strict=True):
        if score is None:
            results.append(SampleResult(sample=sample, judged=None, error=None, passed=False,
                                        problem="judge failed"))
        else:
            error = score - sample.expected
            results.append(SampleResult(sample=sample, judged=score, error=error,
                                        passed=abs(error) <= 15))
    summary = summarize_samples(results)
    assert summary.total == 4 and summary.judged == 3 and summary.passed == 2
    assert summary.pass_rate == 50.0
    assert summary.mean_absolute_error == pytest.approx(40 / 3)
    assert summary.max_error == 30.0
    assert summary.bias == pytest.approx(-20 / 3)
    # Σdxdy = 3000, Σdx² = 5000, Σdy² = 5600/3 (by hand)
    assert summary.correlation == pytest.approx(3000 / (5000 * 5600 / 3) ** 0.5)
    assert summary.rating == "Fair"


def test_reference_set_covers_the_seed_kinds() -> None:
    kinds = {s.kind for s in REFERENCE_SET}
    assert len(REFERENCE_SET) >= 8
    assert {"factual", "empty", "irrelevant", "explanation"} <= kinds
    assert len({s.id for s in REFERENCE_SET}) == len(REFERENCE_SET)
    assert min(s.expected for s in REFERENCE_SET) == 0
    assert max(s.expected for s in REFERENCE_SET) == 100


def test_render_report_mentions_failures() -> None:
    sample = REFERENCE_SET[0]
    summary = summarize_samples([SampleResult(sample=sample, judged=None, error=None,
                                              passed=False, problem="no SCORE line")])
    from arena_bot.scoring.calibration import CalibrationReport

    text = render_report(CalibrationReport(judge_model="m", tolerance=15,
                                           samples=(SampleResult(sample=sample, judged=None,
                                                                 error=None, passed=False,
                                                                 problem="no SCORE line"),),
                                           summary=summary))
    assert "no SCORE line" in text and "rating      Poor" in text
