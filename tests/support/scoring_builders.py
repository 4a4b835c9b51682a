"""Builders of typed scoring inputs for the scoring tests (no files needed)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from arena_bot.models.evaluation import (
    CriterionObservation,
    EvaluationResult,
    FeatureResult,
    RunResult,
)
from arena_bot.models.submission import Submission
from arena_bot.models.task import Task
from arena_bot.scoring.inputs import SubmissionInput

SHA = "0" * 40


def make_task(task_id: str = "demo", **overrides: Any) -> Task:
    data: dict[str, Any] = {
        "id": task_id,
        "title": f"Task {task_id}",
        "description": "A task.",
        "category": "backend_development",
        "difficulty": "beginner",
        "language": "Python",
        "source": {"url": "https://example.org/repo.git", "commit": SHA},
        "tests": {"command": "pytest"},
        "features": [{"id": 1, "title": "One"}, {"id": 2, "title": "Two"}],
    }
    data.update(overrides)
    return Task.model_validate(data)


def make_run(run_id: str = "r1", **overrides: Any) -> dict[str, Any]:
    run: dict[str, Any] = {
        "id": run_id,
        "tokens": {"total": 50_000},
        "tool_calls": 20,
        "iterations": 2,
        "execution_time": 200.0,
        "estimated_cost": 0.0,
        "patches": ["patch.diff"],
    }
    run.update(overrides)
    return run


def make_submission(
    task_id: str = "demo",
    *,
    tool: str = "Aider",
    model: str = "gpt-5",
    runs: list[dict[str, Any]] | None = None,
    features: list[int] | None = None,
    contributor: str = "alice",
) -> Submission:
    features = features or [1]
    return Submission.model_validate(
        {
            "task": task_id,
            "tool": {"name": tool, "version": "1.0"},
            "models": [model],
            "contributor": {"name": contributor},
            "date": dt.date(2025, 1, 1),
            "setting": "single" if len(features) == 1 else "solo",
            "features": features,
            "runs": runs or [make_run()],
        }
    )


def make_result(
    submission: Submission,
    submission_id: str,
    *,
    passed: bool | dict[str, bool] = True,
    observations: dict[str, list[CriterionObservation]] | None = None,
    error: str | None = None,
    evaluated_at: dt.datetime | None = None,
) -> EvaluationResult:
    runs = []
    for run in submission.runs:
        ok = passed if isinstance(passed, bool) else passed.get(run.id, True)
        runs.append(
            RunResult(
                run_id=run.id,
                features=[
                    FeatureResult(
                        feature=fid,
                        status="passed" if ok else "failed",
                        passed=ok,
                        apply_status="clean",
                    )
                    for fid in submission.features
                ],
                observations=(observations or {}).get(run.id, []),
            )
        )
    return EvaluationResult(
        task_id=submission.task,
        submission_id=submission_id,
        input_hash="h-" + submission_id,
        harness_version="test",
        evaluated_at=evaluated_at or dt.datetime(2025, 1, 2, tzinfo=dt.UTC),
        runs=[] if error else runs,
        error=error,
    )


def make_input(
    submission_id: str,
    submission: Submission,
    *,
    evaluated: bool = True,
    digests: dict[str, tuple[str, ...]] | None = None,
    **result_kwargs: Any,
) -> SubmissionInput:
    return SubmissionInput(
        key=f"{submission.task}/{submission_id}",
        submission_id=submission_id,
        spec=submission,
        result=make_result(submission, submission_id, **result_kwargs) if evaluated else None,
        patch_digests=digests or {},
    )
