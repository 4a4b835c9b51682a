"""``arena score``, ``arena compare`` and ``arena calibrate``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena_bot.app.scoring import calibrate_judge, compare_on_board, describe_scored, score_to
from arena_bot.core.settings import Settings

if TYPE_CHECKING:
    from arena_bot.scoring.loader import ResultMatch

_RESULTS_HELP = "Folder of EvaluationResult files (default: .arena/results)."


_match_option = click.option(
    "--match",
    type=click.Choice(["store", "latest"]),
    default="store",
    show_default=True,
    help="store: only results for the submission's current files; latest: the newest "
    "result file per submission found under --results.",
)


@click.command()
@click.option("--results", type=click.Path(file_okay=False, path_type=Path), help=_RESULTS_HELP)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for leaderboard.json and leaderboard.csv (default: .arena/).",
)
@_match_option
@click.option("--verified-only", is_flag=True,
              help="Keep only entries whose metrics are consistent with their transcripts or "
                   "repeated by a maintainer (not self-reported).")
@click.pass_obj
def score(
    settings: Settings, results: Path | None, output: Path | None, match: ResultMatch,
    verified_only: bool,
) -> None:
    """Recompute the whole leaderboard from the stored evaluation results.

    Writes leaderboard.json and leaderboard.csv. The same inputs always give the same
    bytes (no timestamps; everything sorted; fixed rounding).
    """
    scored, written = score_to(settings, output, results=results, match=match,
                               keep_verified=verified_only)
    click.echo("\n".join(describe_scored(scored, written)))


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--results", type=click.Path(file_okay=False, path_type=Path), help=_RESULTS_HELP)
@click.option(
    "--leaderboard",
    "leaderboard_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Compare from a written leaderboard.json instead of rescoring.",
)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@_match_option
@click.pass_obj
def compare(
    settings: Settings, a: str, b: str, results: Path | None, leaderboard_file: Path | None,
    fmt: str, match: ResultMatch,
) -> None:
    """Compare A and B on their shared tasks: paired t-test and McNemar (a verdict needs 3).

    A and B are submission keys (task/submission), tool / model labels, tool names or
    model names (case-insensitive).
    """
    comparison = compare_on_board(settings, a, b, leaderboard=leaderboard_file,
                                  results=results, match=match)
    from arena_bot.scoring.compare import render_table

    if fmt == "json":
        click.echo(json.dumps(_jsonable(comparison), indent=2, sort_keys=True))
    else:
        click.echo(render_table(comparison), nl=False)


@click.command()
@click.option("--tolerance", type=click.FloatRange(0, 100), default=15.0, show_default=True,
              help="Points (0..100) within which a judged sample passes.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def calibrate(settings: Settings, tolerance: float, fmt: str) -> None:
    """Check the LLM judge against the shipped reference set (seed 004 §7)."""
    report = calibrate_judge(settings, tolerance=tolerance)
    from arena_bot.scoring.calibration import render_report

    if fmt == "json":
        click.echo(json.dumps(_jsonable(report), indent=2, sort_keys=True))
    else:
        click.echo(render_report(report), nl=False)
