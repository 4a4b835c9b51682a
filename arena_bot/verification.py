"""Verified metrics: recompute a run's figures from its transcript and flag what differs.

Pure logic over files in the submission folder (no Docker, git or GitHub). A reported figure
that differs from the transcript's by more than ``tolerance`` (relative) is an error naming the
figure, both values and the transcript's line range, so self-reported numbers cannot be
inflated or deflated silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena_bot.config import DEFAULT_CONFIG
from arena_bot.errors import ArenaError
from arena_bot.models.submission import Run
from arena_bot.transcripts import TranscriptMetrics, read_transcript

#: The shipped defaults; arena.yaml's ``verification:`` section overrides them (see
#: :class:`arena_bot.config.VerificationConfig`, where the numbers are defined once).
DEFAULT_TOLERANCE = DEFAULT_CONFIG.verification.tolerance
TIME_SLACK_SECONDS = DEFAULT_CONFIG.verification.time_slack_seconds


@dataclass(frozen=True)
class Finding:
    """One problem found while verifying a run against its transcript."""

    code: str
    message: str
    severity: Literal["error", "warning"]
    path: Path
    line: int | None = None
    hint: str | None = None


def _differs(*, reported: float, actual: float, tolerance: float, slack: float = 0.0) -> bool:
    return abs(reported - actual) > max(tolerance * max(abs(actual), abs(reported)), slack)


def compare_metrics(
    *, run: Run, metrics: TranscriptMetrics, path: Path, tolerance: float = DEFAULT_TOLERANCE,
    time_slack: float = TIME_SLACK_SECONDS,
) -> list[Finding]:
    """Compare ``run``'s reported figures with ``metrics`` recomputed from ``path``."""
    span = f"lines {metrics.first_line}-{metrics.last_line}"
    prompt_all = metrics.prompt_tokens + metrics.cache_read_tokens + metrics.cache_write_tokens
    figures: list[tuple[str, float | None, float, float]] = [
        ("tokens.total", run.tokens.total, prompt_all + metrics.completion_tokens, 0.0),
        ("tokens.prompt", run.tokens.prompt, prompt_all, 0.0),
        ("tokens.completion", run.tokens.completion, metrics.completion_tokens, 0.0),
        ("tokens.cached", run.tokens.cached, metrics.cache_read_tokens, 0.0),
        ("tool_calls", run.tool_calls, metrics.tool_calls, 1.0),
        ("iterations", run.iterations, metrics.iterations, 1.0),
    ]
    # 0 means "not recorded" for time; only a transcript with timestamps can check it.
    if run.execution_time > 0 and metrics.wall_clock_seconds > 0:
        figures.append(
            ("execution_time", run.execution_time, metrics.wall_clock_seconds, time_slack)
        )
    found: list[Finding] = []
    for name, reported, actual, slack in figures:
        if reported is None:
            continue
        if _differs(reported=reported, actual=actual, tolerance=tolerance, slack=slack):
            found.append(
                Finding(
                    code="metric-mismatch",
                    message=(
                        f"run {run.id!r}: reported {name} = {reported:,g} but the transcript "
                        f"({span}) gives {actual:,g}"
                    ),
                    severity="error",
                    path=path,
                    line=metrics.first_line or None,
                    hint=f"report the figures the transcript shows (tolerance {tolerance:.0%})",
                )
            )
    return found


def verify_run(
    *, run: Run, folder: Path, tolerance: float = DEFAULT_TOLERANCE,
    time_slack: float = TIME_SLACK_SECONDS,
) -> list[Finding]:
    """Read ``run``'s transcript from ``folder`` and return every mismatch (empty = verified)."""
    if run.transcript is None:
        return []
    path = folder / run.transcript.file
    if path.is_symlink() or not path.is_file():
        return [
            Finding(
                code="missing-transcript",
                message=f"transcript file {run.transcript.file!r} is missing or not a regular file",
                severity="error",
                path=folder / "submission.yaml",
                hint="add the transcript to the folder or remove 'transcript'",
            )
        ]
    try:
        metrics = read_transcript(path=path, format_name=run.transcript.format)
    except ArenaError as exc:
        return [
            Finding(
                code="bad-transcript",
                message=exc.message,
                severity="error",
                path=path,
                line=exc.line,
                hint=exc.hint,
            )
        ]
    return compare_metrics(
        run=run, metrics=metrics, path=path, tolerance=tolerance, time_slack=time_slack
    )


def is_verified(*, run: Run, folder: Path, tolerance: float = DEFAULT_TOLERANCE) -> bool:
    """True when the run has a transcript and every reported figure agrees with it."""
    return run.transcript is not None and not verify_run(
        run=run, folder=folder, tolerance=tolerance
    )
