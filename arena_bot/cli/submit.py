"""``arena submit``: create a submission folder from finished agent runs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click
from pydantic import ValidationError

from arena_bot.core.config import load_config
from arena_bot.core.errors import UsageError
from arena_bot.core.settings import Settings
from arena_bot.intake.submit import MODEL_NAME, RunSource, SubmitRequest, submit
from arena_bot.intake.transcripts import READERS
from arena_bot.models.submission import Contributor, Tool, TranscriptFormat
from arena_bot.tasks.dataset import Dataset

_T = TypeVar("_T")


def _option_value(build: Callable[[], _T], options: dict[str, str]) -> _T:
    """``build()``; its validation error as a UsageError naming the option (``options``:
    the option of each field, ``""`` the option of a bare value)."""
    try:
        return build()
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        raise UsageError(
            f"{options.get(field, '/'.join(options.values()))}: {error['msg']}",
            hint="see the submission format on the formats page",
        ) from None


def _pairs(workdirs: tuple[Path, ...], transcripts: tuple[Path, ...]) -> list[RunSource]:
    if len(workdirs) != len(transcripts):
        raise UsageError(
            f"give one --transcript per --workdir (got {len(workdirs)} and {len(transcripts)})",
            hint="repeat --workdir DIR --transcript FILE once per run",
        )
    return [RunSource(workdir=w, transcript=t) for w, t in zip(workdirs, transcripts, strict=True)]


@click.command("submit")
@click.option("--task", "task_id", required=True, help="Task id (a folder of dataset/).")
@click.option("--feature", "features", type=int, multiple=True, default=(1,), show_default=True,
              help="Feature(s) the run implemented; two or more make a 'solo' submission.")
@click.option("--workdir", "workdirs", type=click.Path(file_okay=False, path_type=Path),
              multiple=True, required=True,
              help="The git working tree the agent worked in (repeat once per run).")
@click.option("--transcript", "transcripts", type=click.Path(dir_okay=False, path_type=Path),
              multiple=True, required=True,
              help="The agent's transcript of that run (repeat once per run, same order); "
              "Claude Code 2.x sub-agent files beside it are found and stored with it.")
@click.option("--format", "transcript_format", type=click.Choice(sorted(READERS)),
              required=True, help="Transcript format (see the formats page).")
@click.option("--tool", "tool_name", required=True, help='Tool name, e.g. "Claude Code".')
@click.option("--tool-version", required=True, help="Tool version, e.g. 2.0.31.")
@click.option("--model", default=None, help="Model name (default: the transcript's first).")
@click.option("--contributor", required=True, help="Your name as shown on the leaderboard.")
@click.option("--github", default=None, help="Your GitHub login (optional).")
@click.option("--date", "date", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Run date (default: today); part of the folder name.")
@click.option("--failed", is_flag=True, help="The runs did not finish the task (success: false).")
@click.pass_obj
def submit_command(
    settings: Settings, task_id: str, features: tuple[int, ...], workdirs: tuple[Path, ...],
    transcripts: tuple[Path, ...], transcript_format: TranscriptFormat, tool_name: str,
    tool_version: str, model: str | None, contributor: str, github: str | None,
    date: dt.datetime | None, failed: bool,
) -> None:
    """Create (or add runs to) submissions/<task>/<date>_<tool>_<model>/.

    The patch is each working tree's diff against the task's base commit (test files left
    out); every metric is read from the transcript, which is stored (redacted) with the
    submission. Nothing is written unless the result passes `arena validate`.
    """
    tool = _option_value(lambda: Tool(name=tool_name, version=tool_version),
                         {"name": "--tool", "version": "--tool-version"})
    who = _option_value(lambda: Contributor(name=contributor, github=github),
                        {"name": "--contributor", "github": "--github"})
    if model is not None:
        given = model
        model = _option_value(lambda: MODEL_NAME.validate_python(given), {"": "--model"})
    request = SubmitRequest(
        task_id=task_id,
        tool=tool,
        contributor=who,
        transcript_format=transcript_format,
        runs=_pairs(workdirs, transcripts),
        features=sorted(set(features)),
        model=model,
        success=not failed,
        date=date.date() if date else dt.date.today(),
    )
    config = load_config(settings.root).config
    outcome = submit(
        request, dataset=Dataset(settings.dataset_dir), submissions_dir=settings.submissions_dir,
        prices=config.price_table(), config=config,
    )
    click.echo("Read from the transcripts:")
    for line in outcome.read:
        click.echo(f"  {line}")
    if outcome.missing:
        click.echo("Could not read:")
        for line in outcome.missing:
            click.echo(f"  {line}")
    if outcome.left_out:
        click.echo("Left out of the patch (secret-bearing files; they stay in your work "
                   "directory, never commit them):")
        for line in outcome.left_out:
            click.echo(f"  {line}")
    for warning in outcome.warnings:
        click.echo(f"warning: {warning.code}: {warning.message}")
    runs = ", ".join(outcome.added_runs)
    click.echo(f"Wrote {outcome.folder} (added {runs}); it passes `arena validate`.")
