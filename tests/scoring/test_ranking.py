"""The overall order across tasks (Bradley-Terry over per-task meetings) and the paired,
shared-task-only comparison (McNemar + paired t), on boards built by the real scorer with
their per-task scores then set by hand."""

from __future__ import annotations

import pytest
from support.scoring_builders import make_input, make_run, make_submission, make_task

from arena_bot.models.leaderboard import Leaderboard
from arena_bot.scoring.compare import MIN_SHARED_TASKS, compare, mcnemar, render_table
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions
from arena_bot.scoring.leaderboard import build_leaderboard
from arena_bot.scoring.ranking import bradley_terry, fit, win_rates


def board_of(plan: dict[str, dict[str, tuple[float, bool]]]) -> Leaderboard:
    """``plan``: tool -> task -> (overall score, resolved). One single-run submission each."""
    tasks = sorted({t for by in plan.values() for t in by})
    items = []
    for tool, by in plan.items():
        for task in by:
            sub = make_submission(task, tool=tool, runs=[make_run("r1")])
            items.append(make_input(f"{tool.lower()}-x", sub))
    board = build_leaderboard(
        ScoringInputs(tasks={t: make_task(t) for t in tasks}, submissions=items),
        options=ScoringOptions())
    entries = []
    for e in board.entries:
        score, resolved = plan[e.tool][e.task_id]
        assert e.scores is not None
        entries.append(e.model_copy(update={
            "scores": e.scores.model_copy(update={"overall": score}),
            "runs": [r.model_copy(update={"resolved": resolved, "overall": score})
                     for r in e.runs]}))
    return board.model_copy(update={"entries": entries})


def test_one_easy_task_does_not_outrank_many_hard_wins() -> None:
    tasks = [f"t{i}" for i in range(6)]
    plan = {
        # Lucky ran one task, where Steady beat it; its mean (95) is the board's best.
        "Lucky": {"t0": (95.0, True)},
        "Steady": {t: (97.0 if t == "t0" else 60.0, True) for t in tasks},
        "Weak": {t: (40.0, False) for t in tasks},
    }
    board = board_of(plan)
    by_mean = max(board.tools, key=lambda a: a.overall.mean)
    assert by_mean.tool == "Lucky"  # the seed 002 order puts it first
    order = bradley_terry(board)
    assert [s.label.split(" /")[0] for s in order] == ["Steady", "Lucky", "Weak"]
    steady = order[0]
    assert steady.tasks == 6 and steady.of_tasks == 6
    assert order[1].tasks == 1
    assert all(s.low <= s.score <= s.high for s in order)


def test_bootstrap_over_tasks_is_reproducible_and_has_spread() -> None:
    # A wins on t0..t4 (70 + i > 55 + 4i), B on t5..t7: which tasks are drawn matters.
    plan = {"A": {f"t{i}": (70.0 + i, True) for i in range(8)},
            "B": {f"t{i}": (55.0 + 4 * i, True) for i in range(8)}}
    board = board_of(plan)
    first, again = bradley_terry(board), bradley_terry(board)
    assert first == again
    a, b = first
    assert a.label.startswith("A") and a.high > a.score > a.low
    assert a.meetings == b.meetings == 8
    assert a.score + b.score == pytest.approx(100.0, abs=0.02)
    # A board where A wins everything has no spread to bootstrap.
    sweep = bradley_terry(board_of({"A": plan["A"], "B": {t: (1.0, True) for t in plan["B"]}}))
    assert sweep[0].low == sweep[0].high == sweep[0].score


def test_fit_recovers_known_strengths() -> None:
    import numpy as np

    # i beats j with probability p_i / (p_i + p_j) for p = (4, 2, 1): expected win counts.
    p = np.array([4.0, 2.0, 1.0])
    n = 3000
    wins = n * p[:, None] / (p[:, None] + p[None, :])
    np.fill_diagonal(wins, 0)
    fitted = fit(wins, prior=0.0)
    assert fitted / fitted[2] == pytest.approx(p, rel=1e-4)
    rates = win_rates(fitted)
    assert rates[0] == pytest.approx(100 * (4 / 6 + 4 / 5) / 2, rel=1e-4)


def test_mcnemar_known_values() -> None:
    result = mcnemar([(False, True)] * 6 + [(True, True)] * 3)
    assert (result.both, result.only_a, result.only_b, result.neither) == (3, 0, 6, 0)
    assert result.p_value == pytest.approx(0.03125)
    assert result.significant
    assert mcnemar([(True, True), (False, False)]).p_value == 1.0
    assert mcnemar([(True, False), (False, True)]).p_value == pytest.approx(1.0)


def test_no_verdict_without_shared_tasks() -> None:
    # A far better than B, but on different tasks: no verdict, however many tasks.
    plan = {"A": {f"a{i}": (95.0 + i / 10, True) for i in range(6)},
            "B": {f"b{i}": (10.0 + i / 10, False) for i in range(6)}}
    result = compare(board_of(plan), "A", "B")
    assert result.shared == 0 and result.paired is None and result.mcnemar is None
    assert result.verdict == "thin"
    assert "not enough overlap: 0 shared tasks" in result.verdict_text
    # Welch over the pooled values would call it significant: it is not the verdict.
    assert result.welch is not None and result.welch.significant
    assert "verdict" in render_table(result) and "not enough overlap" in render_table(result)


def test_thin_overlap_gives_no_verdict_and_enough_does() -> None:
    few = {"A": {f"t{i}": (90.0 + i, True) for i in range(MIN_SHARED_TASKS - 1)},
           "B": {f"t{i}": (20.0 + i, False) for i in range(MIN_SHARED_TASKS - 1)}}
    assert compare(board_of(few), "A", "B").verdict == "thin"
    many = {"A": {f"t{i}": (90.0 - i, True) for i in range(6)},
            "B": {f"t{i}": (20.0 + 2 * i, False) for i in range(6)}}
    result = compare(board_of(many), "A", "B")
    assert result.verdict == "a" and result.shared == 6
    assert result.mcnemar is not None and result.mcnemar.only_a == 6
    assert result.mcnemar.p_value == pytest.approx(0.03125)
    assert result.verdict_text == "A ahead on scores and pass / fail over 6 shared tasks"


def test_shared_tasks_only_are_paired() -> None:
    # B also ran tasks A never did, where it scored far higher: they must not count.
    plan = {"A": {f"t{i}": (50.0 + i, True) for i in range(4)},
            "B": {**{f"t{i}": (50.0 + i, True) for i in range(4)},
                  **{f"x{i}": (99.0, True) for i in range(5)}}}
    result = compare(board_of(plan), "A", "B")
    assert result.paired_tasks == ("t0", "t1", "t2", "t3")
    assert result.verdict == "none"
    assert result.paired is not None and result.paired.mean_difference == 0


def test_an_entry_held_for_review_moves_no_order_until_cleared() -> None:
    tasks = [f"t{i}" for i in range(4)]
    plan = {"Cheat": {t: (99.0, True) for t in tasks},
            "Honest": {t: (70.0, True) for t in tasks},
            "Other": {t: (50.0, False) for t in tasks}}
    board = board_of(plan)
    assert bradley_terry(board)[0].label.startswith("Cheat")
    held = board.model_copy(update={"entries": [
        e.model_copy(update={"review_status": "under-review", "rank": None})
        if e.tool == "Cheat" else e for e in board.entries]})
    assert [s.label.split(" /")[0] for s in bradley_terry(held)] == ["Honest", "Other"]
    # By tool it is left out (nothing else to compare); by its key a maintainer still can.
    with pytest.raises(Exception, match="matches no scored submission"):
        compare(held, "Cheat", "Honest")
    key = next(e.key for e in held.entries if e.tool == "Cheat" and e.task_id == "t0")
    assert compare(held, key, "Honest").a.entries == (key,)
