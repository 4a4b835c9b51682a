"""``arena evaluate``: run submissions' patches against their tasks' tests in Docker."""

from __future__ import annotations

from pathlib import Path

import click

from arena_bot.cli.evaluation_output import run_evaluation
from arena_bot.core.errors import UsageError
from arena_bot.core.settings import Settings
from arena_bot.intake.submissions import find_submission_folders


@click.command("evaluate")
@click.argument(
    "paths", nargs=-1, type=click.Path(path_type=Path), metavar="[SUBMISSION]..."
)
@click.option("--all", "all_", is_flag=True, help="Evaluate every submission under submissions/.")
@click.option(
    "--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
    help="Evaluation units run in parallel.",
)
@click.option(
    "--base-image", default=None,
    help="Base image of the task images (default: ARENA_BASE_IMAGE or the public "
    "python:3.11-slim-bookworm; offline: arena-base:bookworm from `arena images base`).",
)
@click.option("--force", is_flag=True, help="Re-run even when a stored result matches.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also print each feature's test output (as stored, capped per task).")
@click.pass_obj
def evaluate(
    settings: Settings,
    paths: tuple[Path, ...],
    all_: bool,
    jobs: int,
    base_image: str | None,
    force: bool,
    verbose: bool,
) -> None:
    """Run each SUBMISSION's patches against its task's tests in hardened containers.

    Prints one line per run and feature, under it each failing test with the first line of
    its assertion (or the error that kept the tests from running), and stores an
    EvaluationResult JSON per submission under the cache (same inputs: reused). Like
    pytest, the exit status is 0 when every feature run passed, 1 otherwise (a feature that
    did not pass, or bad input; the last line says which), 2 for a wrong call.
    """
    if all_ == bool(paths):
        raise UsageError("give SUBMISSION paths or --all (one of the two)")
    if all_:
        if not settings.submissions_dir.is_dir():
            raise UsageError("no submissions/ folder here", path=settings.submissions_dir,
                             hint="run from the repository root or pass --root")
        paths = (settings.submissions_dir,)
    outcomes = run_evaluation(
        settings, find_submission_folders(list(paths)), jobs=jobs, base_image=base_image,
        force=force, verbose=verbose,
    )
    runs = [(outcome, feature) for outcome in outcomes for run in outcome.result.runs
            for feature in run.tested_features]
    failed = [(outcome, feature) for outcome, feature in runs if not feature.passed]
    if failed:
        shown = ", ".join(f"{outcome.submission.root.name} feature {feature.feature} "
                          f"{feature.status}" for outcome, feature in failed[:5])
        more = f" and {len(failed) - 5} more" if len(failed) > 5 else ""
        click.echo(f"{len(failed)} of {len(runs)} feature run(s) did not pass: {shown}{more}")
        raise SystemExit(1)
    click.echo(f"all {len(runs)} feature run(s) passed")
