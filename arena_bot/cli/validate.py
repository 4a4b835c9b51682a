"""``arena validate``: check submissions before they are evaluated."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import click

from arena_bot.app.memo import open_memo
from arena_bot.app.validation import validate_submissions
from arena_bot.core.settings import Settings
from arena_bot.intake.diagnostics import OUTPUT_FORMATS, OutputFormat, render


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
    changed = changed_files.read().splitlines() if changed_files is not None else None
    with open_memo(settings.cache_dir) as memo:
        report = validate_submissions(settings, memo=memo, paths=paths, changed_files=changed)
    color = fmt == "text" and sys.stdout.isatty()
    click.echo(render(report, fmt=fmt, root=settings.root, color=color))
    if not report.valid:
        sys.exit(1)
