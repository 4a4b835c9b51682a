"""``arena validate``: check submissions before they are evaluated."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import click

from arena_bot.config import load_config
from arena_bot.dataset import Dataset
from arena_bot.diagnostics import OUTPUT_FORMATS, OutputFormat, render
from arena_bot.errors import UsageError
from arena_bot.index import Index, open_index
from arena_bot.settings import Settings
from arena_bot.validation import (
    ValidationReport,
    all_submission_folders,
    validate_changed_files,
    validate_paths,
)


@click.command("validate")
@click.argument(
    "paths", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[PATH]..."
)
@click.option(
    "--changed-files",
    type=click.File("r", encoding="utf-8", errors="replace"),
    default=None,
    help="PR mode: the files a PR changed (`-` for stdin), as printed by `git diff "
    "--name-status base...head` (or --name-only).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text (grouped per file), json (see the formats page) or github (annotations).",
)
@click.pass_obj
def validate(
    settings: Settings, paths: tuple[Path, ...], changed_files: TextIO | None, fmt: OutputFormat
) -> None:
    """Check submissions: format, patches, protected paths, plausibility.

    PATH is a submission folder, a file in one, or a folder of them (default: all of
    submissions/). Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error.
    """
    with open_index(settings.cache_dir) as index:
        report = _report(settings, paths, changed_files, index)
    color = fmt == "text" and sys.stdout.isatty()
    click.echo(render(report, fmt=fmt, root=settings.root, color=color))
    if not report.valid:
        sys.exit(1)


def _report(
    settings: Settings,
    paths: tuple[Path, ...],
    changed_files: TextIO | None,
    index: Index,
) -> ValidationReport:
    """Validate what the call names: PATHs, a PR's changed files, or every submission."""
    dataset = Dataset(settings.dataset_dir, index)
    config = load_config(settings.root).config
    if changed_files is not None:
        if paths:
            raise UsageError("give either PATHs or --changed-files, not both")
        report = validate_changed_files(
            changed_files.read().splitlines(),
            root=settings.root,
            dataset=dataset,
            submissions_root=settings.submissions_dir,
            index=index,
            config=config,
        )
    else:
        if not paths:
            if not settings.submissions_dir.is_dir():
                raise UsageError(
                    "no submissions/ folder here",
                    path=settings.submissions_dir,
                    hint="run from the repository root, or pass --root or a PATH",
                )
            # An empty submissions/ folder is valid: nothing to check.
            paths = tuple(all_submission_folders(settings.submissions_dir, index))
        report = validate_paths(
            paths, dataset=dataset, submissions_root=settings.submissions_dir, index=index,
            config=config,
        )
    return report
