"""Review files (``reviews/<task>/<submission>.yaml``): reading them, and what they clear.

Pure file reading (no git): scoring reads the review of each submission beside its folder's
repository root. A malformed file is an error naming the file and what to fix, never a
silent "not reviewed".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.core.yamlio import load_yaml, validate_model
from arena_bot.models.leaderboard import ClearedReview, ReviewFlag, ReviewStatus
from arena_bot.models.review import ReviewFile

#: The folder of review files, relative to the repository root.
REVIEWS_FOLDER = "reviews"


def review_path(root: Path, task_id: str, submission_id: str) -> Path:
    """Where the review of ``task_id/submission_id`` lives under repository ``root``."""
    return root / REVIEWS_FOLDER / task_id / f"{submission_id}.yaml"


def load_review(path: Path, *, task_id: str, submission_id: str) -> ReviewFile | None:
    """The review file at ``path`` (``None`` when there is none), checked against the
    submission it must be about."""
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file():
        raise InputError("a review file must be a regular file", path=path,
                         hint="commit the review as a plain YAML file")
    review = validate_model(ReviewFile, load_yaml(path))
    if (review.task, review.submission) != (task_id, submission_id):
        raise InputError(
            f"the review names {review.task}/{review.submission} but is stored as the review "
            f"of {task_id}/{submission_id}",
            path=path,
            hint=f"store it as reviews/{review.task}/{review.submission}.yaml or fix "
            "'task' and 'submission'",
        )
    return review


def judge_review(
    flags: Sequence[ReviewFlag], review: ReviewFile | None, *, file: str
) -> tuple[ReviewStatus, ClearedReview | None]:
    """The entry's review status: ``none`` without flags, ``cleared`` when ``review`` names
    every flag exactly (kind, file and line), ``under-review`` otherwise."""
    named = {(item.kind, item.file, item.line) for item in review.clears} if review else set()
    cleared = [flag for flag in flags if (flag.kind, flag.file, flag.line) in named]
    shown = None
    if review is not None and (cleared or not flags):
        shown = ClearedReview(
            by=review.reviewed_by, reason=review.reason, date=review.date.isoformat(),
            flags_cleared=cleared, file=file,
        )
    if not flags:
        return "none", shown
    return ("cleared" if len(cleared) == len(flags) else "under-review"), shown
