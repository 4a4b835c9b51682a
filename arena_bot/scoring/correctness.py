"""Correctness (seed 002, made real): every success criterion scored 0..1 per run.

Seed 002's ``check_criterion`` returns True for anything it does not know; here every
criterion type of the task format has a real scorer, and a criterion that cannot be scored
(no judge configured, nothing observed) is *unscored*: it is left out of the weighted
average with a note, never counted as a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from arena_bot.core.errors import JudgeError
from arena_bot.models.evaluation import CriterionObservation, EvaluationResult, RunResult
from arena_bot.models.submission import Run, Submission
from arena_bot.models.task import Task
from arena_bot.scoring.judge import Judge
from arena_bot.scoring.methods import TEXT_METHODS

#: Feature verdicts that mean "the evaluation did not finish" for no_errors.
_EVALUATION_ERRORS = frozenset({"timeout", "error", "apply_failed"})


@dataclass(frozen=True)
class CriterionOutcome:
    """One criterion on one run: ``score`` on 0..1, or ``None`` when unscored."""

    index: int
    type: str
    weight: float
    score: float | None
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """Everything a criterion may look at for one run."""

    task: Task
    submission: Submission
    run: Run
    result: RunResult | None
    evaluation: EvaluationResult
    judge: Judge | None


CriterionScorer = Callable[[Any, int, RunContext], CriterionOutcome]


def _outcome(criterion: Any, index: int, score: float | None, note: str | None) -> CriterionOutcome:
    return CriterionOutcome(
        index=index, type=criterion.type, weight=criterion.weight, score=score, note=note
    )


def _tests_pass(criterion: Any, index: int, ctx: RunContext) -> CriterionOutcome:
    """Share of the submission's features whose tests pass (merged code for coop runs).

    Features whose verdict is ``error`` (the harness failed, not the submission) leave
    the denominator; a feature missing from the result counts as not passed.
    """
    if ctx.result is None:
        return _outcome(criterion, index, None, "run missing from the evaluation result")
    verdicts = {feature.feature: feature for feature in ctx.result.tested_features}
    counted = [
        fid for fid in ctx.submission.features
        if fid not in verdicts or verdicts[fid].status != "error"
    ]
    if not counted:
        return _outcome(criterion, index, None, "harness error on every feature; re-evaluate")
    passed = sum(1 for fid in counted if fid in verdicts and verdicts[fid].passed)
    note = f"{passed}/{len(counted)} features pass"
    return _outcome(criterion, index, passed / len(counted), note)


def _observation(ctx: RunContext, index: int) -> CriterionObservation | None:
    if ctx.result is None:
        return None
    for observation in ctx.result.observations:
        if observation.criterion == index:
            return observation
    return None


def _file_exists(criterion: Any, index: int, ctx: RunContext) -> CriterionOutcome:
    """The evaluation's observation of the file; else the run's ``files_created`` (seed 002)."""
    observation = _observation(ctx, index)
    if observation is not None and observation.exists is None:
        # The evaluation looked but could not tell (the patch did not apply, ...): the
        # self-report cannot stand in for a check that failed.
        why = observation.error or "the evaluation could not check it"
        return _outcome(criterion, index, 0.0, f"{criterion.path}: {why}")
    if observation is not None and observation.exists is not None:
        found = observation.exists
        return _outcome(criterion, index, 1.0 if found else 0.0, f"{criterion.path} "
                        + ("exists" if found else "does not exist") + " after the patch")
    claimed = criterion.path in ctx.run.files_created
    return _outcome(
        criterion, index, 1.0 if claimed else 0.0,
        f"{criterion.path} {'listed' if claimed else 'not listed'} in files_created "
        "(self-reported: the evaluation did not observe the file)",
    )


def _no_errors(criterion: Any, index: int, ctx: RunContext) -> CriterionOutcome:
    """The run reported success and its evaluation hit no error, timeout or failed apply."""
    if not ctx.run.success:
        return _outcome(criterion, index, 0.0, "run reported success: false")
    if ctx.evaluation.error:
        return _outcome(criterion, index, 0.0, "evaluation failed")
    if ctx.result is None:
        return _outcome(criterion, index, None, "run missing from the evaluation result")
    bad: list[str] = sorted(
        {feature.status for feature in ctx.result.tested_features} & _EVALUATION_ERRORS
    )
    if ctx.result.merge is not None and ctx.result.merge.status == "apply_failed":
        bad.append("merge apply_failed")
    if bad:
        return _outcome(criterion, index, 0.0, "evaluation hit " + ", ".join(bad))
    return _outcome(criterion, index, 1.0, "no errors")


def target_text(criterion: Any, index: int, ctx: RunContext) -> str | CriterionOutcome:
    """The text an answer-based criterion scores, or the criterion's outcome without it.

    A missing answer or file is a failure of the run (0), not "unscored" — except when the
    evaluation never looked (unscored: re-evaluating can fix it).
    """
    if criterion.target == "answer":
        if ctx.run.final_answer is None:
            return _outcome(criterion, index, 0.0, "run has no final_answer")
        return ctx.run.final_answer
    observation = _observation(ctx, index)
    if observation is None:
        why = f"evaluation did not observe {criterion.target}"
        return _outcome(criterion, index, None, why)
    if observation.error:
        why = f"reading {criterion.target} failed: {observation.error}"
        return _outcome(criterion, index, 0.0, why)
    if observation.text is None:
        return _outcome(criterion, index, 0.0, f"{criterion.target} produced no text")
    return observation.text


def _text_method(criterion: Any, index: int, ctx: RunContext) -> CriterionOutcome:
    text = target_text(criterion, index, ctx)
    if isinstance(text, CriterionOutcome):
        return text
    try:
        result = TEXT_METHODS[criterion.type](criterion, text)
    except ValueError as exc:  # a bad pattern in task.yaml: the task's fault, not the run's
        return _outcome(criterion, index, None, f"criterion cannot be scored: {exc}")
    return _outcome(criterion, index, result.score, result.note)


def _judged(criterion: Any, index: int, ctx: RunContext) -> CriterionOutcome:
    if ctx.judge is None:
        return _outcome(
            criterion, index, None,
            "unscored: no judge configured (set ARENA_JUDGE_URL and ARENA_JUDGE_MODEL)",
        )
    text = target_text(criterion, index, ctx)
    if isinstance(text, CriterionOutcome):
        return text
    try:
        if criterion.type == "llm_judge":
            verdict = ctx.judge.llm(rubric=criterion.rubric, text=text)
        else:
            verdict = ctx.judge.code(rubric=criterion.rubric, text=text)
    except JudgeError as exc:
        return _outcome(criterion, index, None, f"unscored: judge failed: {exc.message}")
    note = f"{ctx.judge.model}: {verdict.raw:g}/{verdict.scale:g}"
    if verdict.truncated:
        note += " (text truncated before judging)"
    return _outcome(criterion, index, verdict.score, note)


#: Criterion type → scorer. Every type of the task format is here (tested).
CRITERION_SCORERS: MappingProxyType[str, CriterionScorer] = MappingProxyType(
    {
        "tests_pass": _tests_pass,
        "file_exists": _file_exists,
        "no_errors": _no_errors,
        "exact_match": _text_method,
        "regex": _text_method,
        "numeric_tolerance": _text_method,
        "boolean": _text_method,
        "llm_judge": _judged,
        "code_judge": _judged,
    }
)


def score_run(ctx: RunContext) -> list[CriterionOutcome]:
    """Every success criterion of the task on one run."""
    return [
        CRITERION_SCORERS[criterion.type](criterion, index, ctx)
        for index, criterion in enumerate(ctx.task.success_criteria)
    ]


def weighted_correctness(outcomes: Sequence[CriterionOutcome]) -> float | None:
    """Seed 004's weighted average Σ score·weight / Σ weight over the *scored* criteria, ×100.

    ``None`` when nothing with a positive weight could be scored: correctness is then
    unknown, not 0 and not 100.
    """
    total_weight = sum(o.weight for o in outcomes if o.score is not None)
    if total_weight <= 0:
        return None
    return 100.0 * sum(o.score * o.weight for o in outcomes if o.score is not None) / total_weight
