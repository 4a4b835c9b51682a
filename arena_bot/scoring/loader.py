"""Reading the scoring inputs from disk: submissions, patches and stored results.

This is the file-reading edge of scoring; it never runs Docker or git. Results are matched
to submissions in one of two ways (:func:`arena_bot.app.scoring.score_board`'s ``match``):

* ``store`` (default) — :class:`arena_bot.evaluation.store.ResultStore`: only a result for
  the submission's *current* files counts (content-addressed), so an edited submission is
  pending until it is evaluated again;
* ``latest`` — every ``*.json`` EvaluationResult under the folder, the newest
  ``evaluated_at`` per (task, submission): for result folders gathered by other means
  (for example CI artifacts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from arena_bot.core.errors import InputError, first_problem
from arena_bot.core.yamlio import read_text_capped
from arena_bot.evaluation.store import MAX_RESULT_BYTES
from arena_bot.intake.patches import DATASET_PATCH_BYTES, read_patch_text
from arena_bot.intake.reviews import load_review, review_path
from arena_bot.intake.submissions import SubmissionFolder
from arena_bot.intake.verification import RunLevel, run_level
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.scoring.inputs import ScoringOptions, SubmissionInput
from arena_bot.scoring.outliers import patch_digest
from arena_bot.tasks.dataset import TaskFolder

ResultMatch = Literal["store", "latest"]


def scan_results(results_dir: Path) -> dict[tuple[str, str], EvaluationResult]:
    """Every EvaluationResult JSON under ``results_dir``: the newest per (task, submission).

    A file that is not an EvaluationResult is an error naming the file (in this mode the
    folder is expected to hold results only). Ties on ``evaluated_at`` go to the greater
    input hash, so the choice never depends on file order.
    """
    chosen: dict[tuple[str, str], EvaluationResult] = {}
    if not results_dir.is_dir():
        return chosen
    for path in sorted(results_dir.rglob("*.json")):
        if path.name.startswith(".tmp-"):  # a write in progress
            continue
        text = read_text_capped(path, limit=MAX_RESULT_BYTES, what="result file")
        try:
            result = EvaluationResult.model_validate_json(text)
        except ValidationError as exc:
            raise InputError(
                f"not a valid EvaluationResult: {first_problem(exc, top='(document)')}",
                path=path,
                hint="remove the file or re-run `arena evaluate` to rewrite it",
            ) from None
        key = (result.task_id, result.submission_id)
        current = chosen.get(key)
        if current is None or (result.evaluated_at, result.input_hash) > (
            current.evaluated_at, current.input_hash
        ):
            chosen[key] = result
    return chosen


def _digests(folder: SubmissionFolder) -> dict[str, tuple[str, ...]]:
    """Each run's :func:`patch_digest` of its patch files, read by the one reader of patches
    (:func:`read_patch_text`: no symbolic link, special file or non-UTF-8 text). Validation
    reports a patch it refuses, and enforces arena.yaml's patch limit; here such a patch has
    nothing to compare, and only the hard ceiling any configuration allows (the dataset's
    own cap) guards memory."""
    read: dict[str, str | None] = {}  # a patch several runs name is read once
    for name in dict.fromkeys(name for run in folder.spec.runs for name in run.patches):
        text, problem = read_patch_text(folder.file(name), max_bytes=DATASET_PATCH_BYTES)
        read[name] = patch_digest(text) if problem is None else None
    return {run.id: tuple(digest for name in run.patches if (digest := read[name]) is not None)
            for run in folder.spec.runs}


def submission_input(
    folder: SubmissionFolder, result: EvaluationResult | None, *,
    task: TaskFolder | None = None, options: ScoringOptions | None = None,
) -> SubmissionInput:
    """What scoring needs of one submission: its spec, result, patch digests, each run's
    metrics level (with ``task`` and ``options``) and its review file."""
    root = folder.root.parent.parent.parent  # <root>/submissions/<task>/<id>
    relative = review_path(Path(), folder.spec.task, folder.id)
    review = load_review(root / relative, task_id=folder.spec.task, submission_id=folder.id)
    return SubmissionInput(
        key=folder.key,
        submission_id=folder.id,
        spec=folder.spec,
        result=result,
        patch_digests=_digests(folder),
        metrics_levels=_metrics_levels(folder, task, options),
        review=review,
        review_file=relative.as_posix() if review is not None else "",
    )


def _metrics_levels(
    folder: SubmissionFolder, task: TaskFolder | None, options: ScoringOptions | None,
) -> dict[str, RunLevel]:
    """Each run's metrics level (:func:`arena_bot.intake.verification.run_level`), read at
    the edge."""
    if task is None or options is None or not any(
        run.transcript is not None for run in folder.spec.runs
    ):
        return {}
    checkout = options.base_checkout
    tolerances = options.config.verification
    return {
        run.id: run_level(
            run=run, folder=folder.root, models=folder.spec.models,
            base_checkout=(lambda: checkout(task)) if checkout is not None else None,
            prices=options.prices, tolerances=tolerances,
        )
        for run in folder.spec.runs
    }
