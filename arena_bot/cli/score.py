"""``arena score``, ``arena compare`` and ``arena calibrate``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from arena_bot.app.memo import open_memo
from arena_bot.app.scoring import (
    board_from_disk,
    describe_scored,
    judge_for,
    score_board,
    write_scored,
)
from arena_bot.core.errors import InputError, JudgeError
from arena_bot.core.settings import Settings
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.scoring.export import verified_only as keep_verified
from arena_bot.scoring.incremental import ScoredBoard

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
    settings: Settings, results: Path | None, output: Path | None, match: str,
    verified_only: bool,
) -> None:
    """Recompute the whole leaderboard from the stored evaluation results.

    Writes leaderboard.json and leaderboard.csv. The same inputs always give the same
    bytes (no timestamps; everything sorted; fixed rounding).
    """
    folder = output or settings.cache_dir
    if match == "latest" or verified_only:
        # The filtered view and result folders gathered by other means take the
        # whole-board path (the incremental one serves the full board).
        board = board_from_disk(settings, results=results, match=match)
        scored = ScoredBoard.of(keep_verified(board) if verified_only else board)
        written = write_scored(scored, folder)
    else:
        with open_memo(settings.cache_dir) as memo:
            scored = score_board(settings, memo=memo, results=results)
            written = write_scored(scored, folder, memo)
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
    fmt: str, match: str,
) -> None:
    """Compare A and B on their shared tasks: paired t-test and McNemar (a verdict needs 3).

    A and B are submission keys (task/submission), tool / model labels, tool names or
    model names (case-insensitive).
    """
    if leaderboard_file is not None:
        try:
            board = Leaderboard.model_validate_json(leaderboard_file.read_bytes())
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=leaderboard_file) from None
        except ValueError:
            raise InputError(
                "not a leaderboard.json written by `arena score`", path=leaderboard_file,
                hint="run `arena score` to write it again",
            ) from None
    elif match == "store":  # the board `arena score` writes, its unchanged tasks reused
        with open_memo(settings.cache_dir) as memo:
            board = score_board(settings, memo=memo, results=results).board()
    else:
        board = board_from_disk(settings, results=results, match=match)
    from arena_bot.scoring.compare import compare as run_compare
    from arena_bot.scoring.compare import render_table  # numpy: not for `arena score`

    comparison = run_compare(board, a, b)
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
    judge = judge_for(settings)
    if judge is None:
        raise JudgeError(
            "no LLM judge configured",
            hint="set ARENA_JUDGE_URL (an OpenAI-compatible base URL, e.g. "
            "https://api.openai.com/v1), ARENA_JUDGE_MODEL and, if needed, "
            "ARENA_JUDGE_API_KEY",
        )
    from arena_bot.scoring.calibration import calibrate as run_calibration
    from arena_bot.scoring.calibration import render_report  # numpy: not for `arena score`

    report = run_calibration(judge, tolerance=tolerance)
    if report.summary.judged == 0:
        # Nothing judged is a broken setup (endpoint down, wrong model), not a "Poor" judge.
        problem = next((r.problem for r in report.samples if r.problem), "no answer")
        raise JudgeError(
            f"the judge scored none of the {report.summary.total} samples: {problem}",
            hint="check ARENA_JUDGE_URL, ARENA_JUDGE_MODEL and ARENA_JUDGE_API_KEY",
        )
    if fmt == "json":
        click.echo(json.dumps(_jsonable(report), indent=2, sort_keys=True))
    else:
        click.echo(render_report(report), nl=False)
