"""``arena pipeline``: validate, evaluate and score every submission
(:func:`~arena_bot.app.pipeline.run_pipeline`), each stage's outcome printed as it ends."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena_bot.app.evaluation import Evaluated
from arena_bot.app.memo import open_memo
from arena_bot.app.pipeline import run_pipeline
from arena_bot.app.scoring import describe_scored
from arena_bot.cli.evaluation_output import echo_err, show_evaluation
from arena_bot.core.settings import Settings
from arena_bot.intake.diagnostics import render
from arena_bot.intake.validation import ValidationReport
from arena_bot.models.leaderboard import Entry
from arena_bot.scoring.incremental import PREVIEW, ScoredBoard


@click.command("pipeline")
@click.option(
    "--jobs", "-j", type=click.IntRange(1, 64), default=2, show_default=True,
    help="Evaluation units run in parallel.",
)
@click.option(
    "--base-image", default=None,
    help="Base image of the task images (see `arena evaluate --help`).",
)
@click.option(
    "--output", type=click.Path(file_okay=False, path_type=Path), default=Path("out"),
    show_default=True, help="Folder for leaderboard.json and leaderboard.csv.",
)
@click.option("--force", is_flag=True, help="Re-run evaluations even when results are stored.")
@click.pass_obj
def pipeline(
    settings: Settings, jobs: int, base_image: str | None, output: Path, force: bool
) -> None:
    """Validate, evaluate (Docker) and score every submission under submissions/.

    Exit status 0 when every submission is valid and the job ran (failing tests are
    results), 1 when any submission is invalid (the valid ones are still evaluated and
    scored), 2 for a wrong call.
    """
    with open_memo(settings.cache_dir) as memo:
        done = run_pipeline(settings, memo, jobs=jobs, base_image=base_image, force=force,
                            output=output, view=_Printer(settings), progress=echo_err)
    click.echo("\n".join(describe_scored(done.scored, done.written)))
    if not done.report.valid:
        click.secho(f"{done.invalid} submission(s) are invalid (see stage 1); they were not "
                    "evaluated or scored", fg="red", err=True)
        sys.exit(1)


class _Printer:
    """Each stage's heading and outcome on stdout (a :class:`~arena_bot.app.pipeline.
    PipelineView`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def stage(self, number: int, name: str, detail: str) -> None:
        click.secho(f"\n== {number}/3 {name}: {detail}", bold=True)

    def validated(self, report: ValidationReport) -> None:
        click.echo(render(report, fmt="text", root=self.settings.root,
                          color=sys.stdout.isatty()))

    def evaluated(self, evaluated: Evaluated) -> None:
        show_evaluation(self.settings, evaluated)

    def scored(self, board: ScoredBoard) -> None:
        click.echo(render_ranking(board))


def render_ranking(board: ScoredBoard, *, top: int = PREVIEW) -> str:
    """Per task, its best ``top`` entries by rank and what is not ranked: a first look.

    Only the entries shown are decoded (from each part's preview); the full board is in
    the files written.
    """
    lines = []
    for part in board.parts:
        task = part.board
        lines.append(
            f"{part.task_id} ({task['category']}, {task['difficulty']}; baseline "
            f"{task['baseline']['source']})"
        )
        ranked = part.counts["ranked"]  # ranked entries come first, in rank order
        best, unranked_first = part.entries_between((0, min(top, ranked)),
                                                    (ranked, ranked + top))
        for data in best:
            lines.append("  " + _entry_line(Entry.model_validate(data)))
        if ranked > top:
            lines.append(f"  ... and {ranked - top} more ranked entries (see the files written)")
        for data in unranked_first:
            entry = Entry.model_validate(data)
            lines.append(f"  -  {entry.label}: {entry.status} ({entry.status_reason or ''})")
        unranked = part.counts["entries"] - ranked
        if unranked > top:
            lines.append(f"  ... and {unranked - top} more not ranked")
    return "\n".join(lines)


def _entry_line(entry: Entry) -> str:
    assert entry.scores is not None  # ranked entries are scored
    scores = entry.scores
    correctness = "n/a" if scores.correctness is None else f"{scores.correctness:5.1f}"
    # The multi-run interval is over the runs' adjusted scores: it is printed beside the
    # adjusted score, never beside the unadjusted one the ranks use.
    interval = ""
    if entry.interval is not None and entry.interval.low is not None:
        interval = f" [{entry.interval.low:.1f}, {entry.interval.high:.1f}]"
    flags = ""
    if entry.outliers or entry.review_flags:
        review = "under review: " if entry.review_status == "under-review" else ""
        codes = [f.kind for f in entry.review_flags] or [f.code for f in entry.outliers]
        flags = f"  [{review}{', '.join(codes)}]"
    tie = " (tie)" if entry.rank_shared else ""
    return (
        f"#{entry.rank}{tie} {scores.overall_unadjusted:5.1f} (adjusted {scores.overall:5.1f}"
        f"{interval}, solved {scores.resolve_rate:4.0%})  {entry.label}  "
        f"eff {scores.efficiency:5.1f} speed {scores.speed:5.1f} cost {scores.cost:5.1f} "
        f"correct {correctness}{flags}"
    )
