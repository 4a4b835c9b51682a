from __future__ import annotations

from pathlib import Path

import pytest
from support.chat_server import ChatServer, Reply
from support.scoring_builders import make_result, make_run, make_submission, make_task

from arena_bot.models.evaluation import (
    CriterionObservation,
    EvaluationResult,
    FeatureResult,
    RunResult,
)
from arena_bot.scoring.correctness import (
    CRITERION_SCORERS,
    CriterionOutcome,
    RunContext,
    score_run,
    weighted_correctness,
)
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions, SubmissionInput
from arena_bot.scoring.judge import build_judge
from arena_bot.scoring.leaderboard import build_leaderboard


def context(task, submission, result, *, judge=None, run_index: int = 0) -> RunContext:
    run = submission.runs[run_index]
    by_id = {r.run_id: r for r in result.runs}
    return RunContext(
        task=task, submission=submission, run=run, result=by_id.get(run.id),
        evaluation=result, judge=judge,
    )


def test_every_criterion_type_has_a_real_scorer() -> None:
    from arena_bot.models.task import Criterion

    union = Criterion.__origin__.__args__  # type: ignore[attr-defined]
    types = {member.model_fields["type"].annotation.__args__[0] for member in union}
    assert types == set(CRITERION_SCORERS)


def test_tests_pass_is_the_share_of_features_passing() -> None:
    task = make_task(success_criteria=[{"type": "tests_pass"}])
    submission = make_submission(features=[1, 2])
    result = make_result(submission, "s")
    result = result.model_copy(update={"runs": [RunResult(run_id="r1", features=[
        FeatureResult(feature=1, status="passed", passed=True, apply_status="clean"),
        FeatureResult(feature=2, status="failed", passed=False, apply_status="clean"),
    ])]})
    [outcome] = score_run(context(task, submission, result))
    assert outcome.score == 0.5 and outcome.note == "1/2 features pass"
    # On the board: half the work solved, the run not resolved (pass@1 = 0).
    item = SubmissionInput(key="demo/s", submission_id="s", spec=submission, result=result)
    board = build_leaderboard(ScoringInputs(tasks={task.id: task}, submissions=[item]),
                              options=ScoringOptions())
    [entry] = board.entries
    assert [run.resolved for run in entry.runs] == [False]
    assert entry.scores is not None and entry.scores.resolve_rate == 0.5
    assert [(p.k, p.value) for p in entry.pass_at_k] == [(1, 0.0)]


def test_tests_pass_ignores_harness_errors_and_counts_missing_features() -> None:
    task = make_task(success_criteria=[{"type": "tests_pass"}])
    submission = make_submission(features=[1, 2])
    only_error = make_result(submission, "s").model_copy(update={"runs": [RunResult(
        run_id="r1",
        features=[FeatureResult(feature=1, status="error", passed=False, apply_status="clean")],
    )]})
    [outcome] = score_run(context(task, submission, only_error))
    # feature 1 errored (left out), feature 2 missing (counts as failed)
    assert outcome.score == 0.0 and outcome.note == "0/1 features pass"


def test_file_exists_prefers_the_observation_over_self_report() -> None:
    task = make_task(success_criteria=[{"type": "file_exists", "path": "src/new.py"}])
    submission = make_submission(runs=[make_run(files_created=["src/new.py"])])
    observed = make_result(submission, "s", observations={"r1": [
        CriterionObservation(criterion=0, target="file:src/new.py", exists=False)
    ]})
    [outcome] = score_run(context(task, submission, observed))
    assert outcome.score == 0.0 and "does not exist" in (outcome.note or "")
    unobserved = make_result(submission, "s")
    [outcome] = score_run(context(task, submission, unobserved))
    assert outcome.score == 1.0 and "self-reported" in (outcome.note or "")
    failed_check = make_result(submission, "s", observations={"r1": [
        CriterionObservation(criterion=0, target="exists:src/new.py",
                             error="the patch did not apply")
    ]})
    [outcome] = score_run(context(task, submission, failed_check))
    assert outcome.score == 0.0 and "did not apply" in (outcome.note or "")


def test_no_errors_checks_the_run_and_the_evaluation() -> None:
    task = make_task(success_criteria=[{"type": "no_errors"}])
    ok = make_submission()
    assert score_run(context(task, ok, make_result(ok, "s")))[0].score == 1.0
    failed_run = make_submission(runs=[make_run(success=False)])
    assert score_run(context(task, failed_run, make_result(failed_run, "s")))[0].score == 0.0
    timed_out = make_result(ok, "s").model_copy(update={"runs": [RunResult(
        run_id="r1",
        features=[FeatureResult(feature=1, status="timeout", passed=False, apply_status="clean")],
    )]})
    outcome = score_run(context(task, ok, timed_out))[0]
    assert outcome.score == 0.0 and "timeout" in (outcome.note or "")


def test_answer_based_criteria_read_final_answer_and_observations() -> None:
    task = make_task(success_criteria=[
        {"type": "exact_match", "expected": "42"},
        {"type": "regex", "pattern": "/^ok$/im", "target": "command:python main.py"},
        {"type": "numeric_tolerance", "expected": 100.0, "target": "file:out.txt"},
        {"type": "boolean", "expected": "done"},
    ])
    submission = make_submission(runs=[make_run(final_answer="42")])
    result = make_result(submission, "s", observations={"r1": [
        CriterionObservation(criterion=1, target="command:python main.py", text="OK\n"),
        CriterionObservation(criterion=2, target="file:out.txt", text="value=101.5"),
    ]})
    outcomes = score_run(context(task, submission, result))
    assert [o.score for o in outcomes] == [1.0, 1.0, pytest.approx(1 - (0.015 / 0.25) ** 0.5),
                                           0.0]


def test_missing_text_fails_but_unobserved_target_is_unscored() -> None:
    task = make_task(success_criteria=[
        {"type": "exact_match", "expected": "42"},
        {"type": "boolean", "expected": "x", "target": "file:missing.txt"},
        {"type": "boolean", "expected": "x", "target": "file:broken.txt"},
        {"type": "regex", "pattern": "(bad"},
    ])
    submission = make_submission(runs=[make_run(final_answer=None)])
    result = make_result(submission, "s", observations={"r1": [
        CriterionObservation(criterion=2, target="file:broken.txt", error="no such file"),
    ]})
    outcomes = score_run(context(task, submission, result))
    assert outcomes[0].score == 0.0 and outcomes[0].note == "run has no final_answer"
    assert outcomes[1].score is None and "did not observe" in (outcomes[1].note or "")
    assert outcomes[2].score == 0.0 and "no such file" in (outcomes[2].note or "")
    assert outcomes[3].score == 0.0  # no answer at all
    answered = make_submission(runs=[make_run(final_answer="text")])
    bad_pattern = score_run(context(task, answered, make_result(answered, "s")))[3]
    assert bad_pattern.score is None and "cannot be scored" in (bad_pattern.note or "")


def test_judge_criteria_are_unscored_without_a_judge() -> None:
    task = make_task(success_criteria=[
        {"type": "tests_pass", "weight": 1},
        {"type": "llm_judge", "rubric": "Is it good?", "weight": 3},
    ])
    submission = make_submission(runs=[make_run(final_answer="An answer")])
    outcomes = score_run(context(task, submission, make_result(submission, "s", passed=False)))
    assert outcomes[1].score is None and "no judge configured" in (outcomes[1].note or "")
    # The unscored judge weight does not count: correctness is tests_pass alone (0), not 0/4
    # or a silent 100 for the judge.
    assert weighted_correctness(outcomes) == 0.0


def test_judge_criteria_with_a_real_judge(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.replies = [Reply(content="SCORE: 7")]
    judge = build_judge(base_url=chat_server.url, model="j", api_key=None, cache_dir=tmp_path)
    task = make_task(success_criteria=[{"type": "llm_judge", "rubric": "good?"}])
    submission = make_submission(runs=[make_run(final_answer="An answer")])
    [outcome] = score_run(context(task, submission, make_result(submission, "s"), judge=judge))
    assert outcome.score == 0.7 and outcome.note == "j: 7/10"
    chat_server.replies = [Reply(content="I refuse to score")]
    task2 = make_task(success_criteria=[{"type": "llm_judge", "rubric": "other rubric"}])
    [failed] = score_run(context(task2, submission, make_result(submission, "s"), judge=judge))
    assert failed.score is None and "judge failed" in (failed.note or "")


def test_weighted_correctness_rules() -> None:
    def o(score: float | None, weight: float) -> CriterionOutcome:
        return CriterionOutcome(index=0, type="x", weight=weight, score=score)

    assert weighted_correctness([o(1.0, 1), o(0.0, 3)]) == 25.0
    assert weighted_correctness([o(1.0, 1), o(None, 3)]) == 100.0
    assert weighted_correctness([o(None, 1)]) is None
    assert weighted_correctness([o(0.0, 0)]) is None  # weight 0 never decides
    assert weighted_correctness([]) is None


def test_result_without_the_run_is_unscored() -> None:
    task = make_task(success_criteria=[{"type": "tests_pass"}])
    submission = make_submission()
    empty = EvaluationResult.model_validate(
        {**make_result(submission, "s").model_dump(), "runs": []}
    )
    [outcome] = score_run(context(task, submission, empty))
    assert outcome.score is None
