"""``arena pipeline``: the main job — validate, evaluate and score every submission.

This is what the README's main command runs on the bundled sample data, and what the trusted
workflow runs on the default branch. Each stage reuses the stage's own command code; this
module only sequences them and decides what flows on (invalid submissions are reported and
left out of evaluation and scoring, never silently dropped).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena_bot.app.memo import Memo, open_memo
from arena_bot.app.scoring import describe_scored, score_board, write_scored
from arena_bot.app.validation import validate_submissions
from arena_bot.core.errors import UsageError
from arena_bot.core.settings import Settings
from arena_bot.intake.diagnostics import render
from arena_bot.intake.validation import ValidationReport, all_submission_folders
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
    if not settings.submissions_dir.is_dir():
        raise UsageError(
            "no submissions/ folder here", path=settings.submissions_dir,
            hint="run from the repository root or pass --root",
        )
    with open_memo(settings.cache_dir) as memo:
        folders = all_submission_folders(settings.submissions_dir)
        report, board = _run_stages(
            settings, folders, memo, jobs=jobs, base_image=base_image, force=force
        )
        for line in describe_scored(board, write_scored(board, output, memo)):
            click.echo(line)
    if not report.valid:
        click.secho(
            f"{len(folders) - len(valid_folders(report))} submission(s) are invalid "
            "(see stage 1); they were not evaluated or scored", fg="red", err=True,
        )
        sys.exit(1)


def valid_folders(report: ValidationReport) -> list[Path]:
    return [s.folder for s in report.submissions if s.valid]


def _run_stages(
    settings: Settings,
    folders: list[Path],
    memo: Memo,
    *,
    jobs: int,
    base_image: str | None,
    force: bool,
) -> tuple[ValidationReport, ScoredBoard]:
    """Validate, evaluate and score; print each stage's outcome."""
    _stage(1, "validate", f"{len(folders)} submission(s)")
    report = validate_submissions(settings, memo=memo, paths=folders, whole_board=True)
    click.echo(render(report, fmt="text", root=settings.root, color=sys.stdout.isatty()))
    valid = valid_folders(report)

    _stage(2, "evaluate", f"{len(valid)} valid submission(s) in Docker, --jobs {jobs}")
    from arena_bot.cli.evaluation_output import run_evaluation

    run_evaluation(settings, valid, jobs=jobs, base_image=base_image, force=force, memo=memo,
                   summarize_unchanged=True)

    _stage(3, "score", "baselines, scores, ranks, intervals, outliers")
    # Every submission valid: the whole board, whose unchanged tasks come from the memo.
    only = None if len(valid) == len(folders) else valid
    board = score_board(settings, memo=memo, only=only)
    click.echo(render_ranking(board))
    return report, board


def _stage(number: int, name: str, detail: str) -> None:
    click.secho(f"\n== {number}/3 {name}: {detail}", bold=True)


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
