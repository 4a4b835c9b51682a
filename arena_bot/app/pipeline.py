"""Pipeline use case (`arena pipeline`): validate, evaluate and score every submission.

Invalid submissions are reported and left out of evaluation and scoring, never silently
dropped. What the README's main command runs on the sample data, and the trusted workflow
on the default branch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena_bot.app.evaluation import Evaluated, evaluate_submissions
from arena_bot.app.memo import Memo
from arena_bot.app.scoring import WrittenBoard, score_board, write_scored
from arena_bot.app.validation import validate_submissions
from arena_bot.core.errors import UsageError
from arena_bot.core.settings import Settings
from arena_bot.intake.submissions import all_submission_folders
from arena_bot.intake.validation import ValidationReport
from arena_bot.scoring.incremental import ScoredBoard


class PipelineView(Protocol):
    """What the caller shows of each stage: its start, then its outcome."""

    def stage(self, number: int, name: str, detail: str) -> None: ...

    def validated(self, report: ValidationReport) -> None: ...

    def evaluated(self, evaluated: Evaluated) -> None: ...

    def scored(self, board: ScoredBoard) -> None: ...


@dataclass(frozen=True)
class PipelineDone:
    report: ValidationReport
    #: Submissions left out of evaluation and scoring (invalid).
    invalid: int
    scored: ScoredBoard
    written: WrittenBoard


def run_pipeline(
    settings: Settings, memo: Memo, *, jobs: int, base_image: str | None, force: bool,
    output: Path, view: PipelineView, progress: Callable[[str], None],
) -> PipelineDone:
    """Validate every submission, evaluate the valid ones in Docker (tasks the memo vouches
    for are counted, not loaded), score them and write the board's files to ``output``."""
    if not settings.submissions_dir.is_dir():
        raise UsageError(
            "no submissions/ folder here", path=settings.submissions_dir,
            hint="run from the repository root or pass --root",
        )
    folders = all_submission_folders(settings.submissions_dir)
    view.stage(1, "validate", f"{len(folders)} submission(s)")
    report = validate_submissions(settings, memo=memo, paths=folders, whole_board=True)
    view.validated(report)
    valid = [s.folder for s in report.submissions if s.valid]

    view.stage(2, "evaluate", f"{len(valid)} valid submission(s) in Docker, --jobs {jobs}")
    view.evaluated(evaluate_submissions(
        settings, valid, jobs=jobs, base_image=base_image, force=force, memo=memo,
        progress=progress, summarize_unchanged=True,
    ))

    view.stage(3, "score", "baselines, scores, ranks, intervals, outliers")
    # Every submission valid: the whole board, whose unchanged tasks come from the memo.
    scored = score_board(settings, memo=memo, only=None if len(valid) == len(folders) else valid)
    view.scored(scored)
    return PipelineDone(report=report, invalid=len(folders) - len(valid), scored=scored,
                       written=write_scored(scored, output, memo))
