"""Validation use case: check the submissions a call names, a PR's changed files, or all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena_bot.app.batch import batch_collection
from arena_bot.config import load_config
from arena_bot.errors import UsageError
from arena_bot.index import Index
from arena_bot.intake.validation import (
    ValidationReport,
    all_submission_folders,
    validate_changed_files,
    validate_paths,
)
from arena_bot.settings import Settings
from arena_bot.tasks.dataset import Dataset


def validate_submissions(
    settings: Settings,
    *,
    index: Index,
    paths: Sequence[Path] = (),
    changed_files: Sequence[str] | None = None,
    whole_board: bool = False,
) -> ValidationReport:
    """Validate ``paths`` (submission folders, files in them, folders of them), the lines of
    ``git diff --name-status`` a PR produced (``changed_files``), or, given neither, every
    submission under ``submissions/``, against the repository's arena.yaml.

    ``whole_board``: ``paths`` are every submission (the index then drops the verdicts of
    folders no longer there); implied when neither is given."""
    dataset = Dataset(settings.dataset_dir, index)
    config = load_config(settings.root).config
    if changed_files is not None:
        if paths:
            raise UsageError("give either PATHs or --changed-files, not both")
        return validate_changed_files(
            list(changed_files), root=settings.root, dataset=dataset,
            submissions_root=settings.submissions_dir, index=index, config=config,
        )
    if not paths:
        if not settings.submissions_dir.is_dir():
            raise UsageError(
                "no submissions/ folder here",
                path=settings.submissions_dir,
                hint="run from the repository root, or pass --root or a PATH",
            )
        # An empty submissions/ folder is valid: nothing to check.
        paths = all_submission_folders(settings.submissions_dir, index)
        whole_board = True
    with batch_collection():
        return validate_paths(
            tuple(paths), dataset=dataset, submissions_root=settings.submissions_dir,
            index=index, config=config, whole_board=whole_board,
        )
