"""Validation use case: check the submissions a call names, a PR's changed files, or all."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from arena_bot.app.memo import Memo, code_version, content_ids
from arena_bot.core.config import ArenaConfig, load_config
from arena_bot.core.errors import UsageError
from arena_bot.core.settings import Settings
from arena_bot.intake.submissions import all_submission_folders
from arena_bot.intake.validation import (
    ValidationReport,
    validate_changed_files,
    validate_paths,
)
from arena_bot.tasks.dataset import Dataset


def validate_submissions(
    settings: Settings,
    *,
    memo: Memo | None = None,
    paths: Sequence[Path] = (),
    changed_files: Sequence[str] | None = None,
    whole_board: bool = False,
) -> ValidationReport:
    """Validate ``paths`` (submission folders, files in them, folders of them), the lines of
    ``git diff --name-status`` a PR produced (``changed_files``), or, given neither, every
    submission under ``submissions/``, against the repository's arena.yaml.

    ``whole_board``: ``paths`` are every submission (implied when neither is given); then
    each folder's verdict is kept in ``memo`` under the content of everything it depends on
    (see :func:`verdict_memo`), and only this run's verdicts are kept."""
    dataset = Dataset(settings.dataset_dir)
    config = load_config(settings.root).config
    if changed_files is not None:
        if paths:
            raise UsageError("give either PATHs or --changed-files, not both")
        return validate_changed_files(
            list(changed_files), root=settings.root, dataset=dataset,
            submissions_root=settings.submissions_dir, config=config,
        )
    if not paths:
        if not settings.submissions_dir.is_dir():
            raise UsageError(
                "no submissions/ folder here",
                path=settings.submissions_dir,
                hint="run from the repository root, or pass --root or a PATH",
            )
        # An empty submissions/ folder is valid: nothing to check.
        paths = all_submission_folders(settings.submissions_dir)
        whole_board = True
    remembered = verdict_memo(settings, config, memo) if whole_board and memo else None
    return validate_paths(
        tuple(paths), dataset=dataset, submissions_root=settings.submissions_dir,
        config=config, whole_board=whole_board, remembered=remembered,
    )


def verdict_memo(
    settings: Settings, config: ArenaConfig, memo: Memo
) -> Callable[[Path, Callable[[], bytes]], bytes]:
    """A folder's stored verdict, or the one computed (then stored), keyed by the bot's
    code, the configuration, every file of the dataset, where the folder sits and the
    content id (and mode) of every file in it. Only the verdicts asked for in this run are
    kept."""
    ids = content_ids(settings.root, [settings.dataset_dir, settings.submissions_dir])
    dataset = os.path.relpath(os.path.abspath(settings.dataset_dir),
                              os.path.abspath(settings.root)).replace(os.sep, "/") + "/"
    board = hashlib.sha256(f"{code_version()}\n{config.digest()}\n".encode())
    folders: dict[str, list[tuple[str, str]]] = {}
    for path, content_id in sorted(ids.items()):
        if path.startswith(dataset):
            board.update(f"{path}\0{content_id}\n".encode(errors="surrogateescape"))
        else:  # under each folder above it: a submission's sub-folders count
            parent = os.path.dirname(path)
            while parent:
                folders.setdefault(parent, []).append((path, content_id))
                parent = os.path.dirname(parent)
    common = board.hexdigest()
    root = os.path.abspath(settings.root)
    used: set[str] = set()
    memo.retain("verdict:", used)

    def remembered(folder: Path, compute: Callable[[], bytes]) -> bytes:
        absolute = os.path.abspath(folder)
        relative = os.path.relpath(absolute, root).replace(os.sep, "/")
        digest = hashlib.sha256(f"{common}\n{absolute}\n".encode(errors="surrogateescape"))
        for path, content_id in folders.get(relative, []):
            digest.update(f"{path}\0{content_id}\n".encode(errors="surrogateescape"))
        key = f"verdict:{digest.hexdigest()}"
        used.add(key)
        stored = memo.get(key)
        if stored is None:
            stored = compute()
            memo.put(key, stored)
        return stored

    return remembered
