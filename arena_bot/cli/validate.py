"""``arena validate``: check submissions before they are evaluated."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena_bot.app.memo import open_memo
from arena_bot.app.validation import validate_submissions
from arena_bot.core.errors import InputError
from arena_bot.core.settings import Settings
from arena_bot.core.yamlio import read_text_capped
from arena_bot.intake.diagnostics import OUTPUT_FORMATS, OutputFormat, render

#: A list of changed files bigger than this is not `git diff --name-status` of a pull
#: request (100,000 paths of 160 characters).
MAX_CHANGED_FILES_BYTES = 16 * 1024 * 1024
_CHANGED_HINT = "pass the output of `git diff --name-status base...head` (or --name-only)"


@click.command("validate")
@click.argument(
    "paths", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[PATH]..."
)
@click.option(
    "--changed-files",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path),
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
    settings: Settings, paths: tuple[Path, ...], changed_files: Path | None, fmt: OutputFormat
) -> None:
    """Check submissions: format, patches, protected paths, plausibility.

    PATH is a submission folder, a file in one, or a folder of them (default: all of
    submissions/). Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error.
    """
    changed = _changed_lines(changed_files) if changed_files is not None else None
    with open_memo(settings.cache_dir) as memo:
        report = validate_submissions(settings, memo=memo, paths=paths, changed_files=changed)
    color = fmt == "text" and sys.stdout.isatty()
    click.echo(render(report, fmt=fmt, root=settings.root, color=color))
    if not report.valid:
        sys.exit(1)


def _changed_lines(path: Path) -> list[str]:
    """The lines of the changed-files list (``-``: standard input), read up to
    :data:`MAX_CHANGED_FILES_BYTES`: a device, a FIFO or a folder is refused before it is
    opened (``/dev/zero`` was read until memory ran out), as is text that is not UTF-8."""
    if str(path) != "-":
        try:
            text = read_text_capped(path, limit=MAX_CHANGED_FILES_BYTES,
                                    what="the changed-files list")
        except InputError as exc:  # its hint is a contributor's (large logs and the like)
            raise InputError(exc.message, path=path, line=exc.line, hint=_CHANGED_HINT) from None
        return text.splitlines()
    raw = sys.stdin.buffer.read(MAX_CHANGED_FILES_BYTES + 1)
    if len(raw) > MAX_CHANGED_FILES_BYTES:
        raise InputError(f"the changed-files list on standard input is over the limit of "
                         f"{MAX_CHANGED_FILES_BYTES:,} bytes", hint=_CHANGED_HINT)
    try:
        return raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"the changed-files list on standard input is not valid UTF-8 "
                         f"(line {line}, byte {exc.start})", hint=_CHANGED_HINT) from None
