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

from arena_bot.config import DEFAULT_CONFIG, ArenaConfig
from arena_bot.errors import ArenaError
from arena_bot.models.common import Level
from arena_bot.models.submission import Run
from arena_bot.patches import load_patch
from arena_bot.scoring.prices import PriceTable, token_cost
from arena_bot.transcripts import TranscriptMetrics, read_transcript
from arena_bot.transcripts.redact import find_secrets

_DEFAULTS = DEFAULT_CONFIG.verification


@dataclass(frozen=True)
class Tolerances:
    """Every verification tolerance in one place: arena.yaml's ``verification:`` section
    (:class:`arena_bot.config.VerificationConfig`, where the defaults are defined once)."""

    relative: float = _DEFAULTS.tolerance
    count_slack: float = _DEFAULTS.count_slack
    time_slack_seconds: float = _DEFAULTS.time_slack_seconds
    cost_relative: float = _DEFAULTS.cost_tolerance

    @classmethod
    def from_config(cls, config: ArenaConfig) -> Tolerances:
        checks = config.verification
        return cls(
            relative=checks.tolerance, count_slack=checks.count_slack,
            time_slack_seconds=checks.time_slack_seconds, cost_relative=checks.cost_tolerance,
        )


#: The default relative tolerance (arena.yaml: verification.tolerance).
DEFAULT_TOLERANCE = _DEFAULTS.tolerance


def transcript_cost(*, metrics: TranscriptMetrics, prices: PriceTable) -> float | None:
    """US dollars for the transcript's tokens, or ``None`` when they cannot be priced.

    Usage split over several named models (Claude Code's sub-agents, a model switched
    mid-session, Aider's architect and editor) is priced per model; usage of a single model
    (steps that did not name theirs included) at that model's rates.
    """
    if sum(1 for model in metrics.usage_by_model if model) > 1:
        return _priced_by_model(metrics=metrics, prices=prices)
    if len(metrics.models) != 1:
        return None
    found = prices.lookup(metrics.models[0])
    if found is None:
        return None
    return token_cost(
        price=found[1],
        uncached=metrics.prompt_tokens,
        cache_read=metrics.cache_read_tokens,
        cache_write=metrics.cache_write_tokens,
        output=metrics.completion_tokens,
    )


#: The codes of :class:`Finding` (validation reports them as diagnostics).
VerificationCode = Literal[
    "bad-transcript", "cost-mismatch", "metric-mismatch", "missing-transcript",
    "secret-in-transcript", "transcript-mismatch",
]


@dataclass(frozen=True)
class Finding:
    """One problem found while verifying a run against its transcript."""

    code: VerificationCode
    message: str
    severity: Level
    path: Path
    line: int | None = None
    hint: str | None = None


def _priced_by_model(*, metrics: TranscriptMetrics, prices: PriceTable) -> float | None:
    total = 0.0
    for model, (uncached, read, write, output) in metrics.usage_by_model.items():
        found = prices.lookup(model) if model and model != "<synthetic>" else None
        if found is None:
            if uncached + read + write + output == 0:
                continue  # a model named without usage (a synthetic message) costs nothing
            return None
        total += token_cost(
            price=found[1], uncached=uncached, cache_read=read, cache_write=write, output=output
        )
    return total


def _differs(*, reported: float, actual: float, tolerance: float, slack: float = 0.0) -> bool:
    return abs(reported - actual) > max(tolerance * max(abs(actual), abs(reported)), slack)


def compare_metrics(
    *,
    run: Run,
    metrics: TranscriptMetrics,
    path: Path,
    tolerance: float = DEFAULT_TOLERANCE,
    tolerances: Tolerances | None = None,
    prices: PriceTable | None = None,
) -> list[Finding]:
    """Compare ``run``'s reported figures with ``metrics`` recomputed from ``path``."""
    limits = tolerances or Tolerances(relative=tolerance)
    span = metrics.span_label or f"lines {metrics.first_line}-{metrics.last_line}"
    # A JSON document's figures have no exact line; point at the file then.
    line = None if metrics.span_label else (metrics.first_line or None)
    found: list[Finding] = []
    for name, reported, actual, slack in _checked_figures(run, metrics, limits):
        if _differs(reported=reported, actual=actual, tolerance=limits.relative, slack=slack):
            found.append(Finding(
                code="metric-mismatch",
                message=(
                    f"run {run.id!r}: reported {name} = {reported:,g} but the transcript "
                    f"({span}) gives {actual:,g}"
                ),
                severity="error", path=path, line=line,
                hint=f"report the figures the transcript shows (tolerance {limits.relative:.0%})",
            ))
    cost = transcript_cost(metrics=metrics, prices=prices) if prices is not None else None
    if (
        cost is not None
        and prices is not None
        and run.estimated_cost > 0
        and _differs(reported=run.estimated_cost, actual=cost, tolerance=limits.cost_relative)
    ):
        found.append(Finding(
            code="cost-mismatch",
            message=(
                f"run {run.id!r}: reported estimated_cost = ${run.estimated_cost:,.4f} but "
                f"the transcript's tokens ({span}) cost ${cost:,.4f} at price table "
                f"{prices.version}"
            ),
            severity="warning", path=path, line=line,
            hint="cached reads and cache writes are priced separately; check the figure",
        ))
    return found


def _checked_figures(
    run: Run, metrics: TranscriptMetrics, limits: Tolerances
) -> list[tuple[str, float, float, float]]:
    """``(name, reported, recomputed, slack)`` for each figure the transcript can check."""
    prompt_all = metrics.prompt_total
    figures: list[tuple[str, float | None, float, float]] = [
        ("tokens.total", run.tokens.total, prompt_all + metrics.completion_tokens, 0.0),
        ("tokens.prompt", run.tokens.prompt, prompt_all, 0.0),
        ("tokens.completion", run.tokens.completion, metrics.completion_tokens, 0.0),
        ("tokens.cached", run.tokens.cached, metrics.cache_read_tokens, 0.0),
        ("tool_calls", run.tool_calls, metrics.tool_calls, limits.count_slack),
        ("iterations", run.iterations, metrics.iterations, limits.count_slack),
    ]
    # 0 means "not recorded" for time; only a transcript with timestamps can check it.
    if (
        run.execution_time > 0
        and metrics.wall_clock_seconds > 0
        and "execution_time" not in metrics.unverifiable
    ):
        figures.append(("execution_time", run.execution_time, metrics.wall_clock_seconds,
                        limits.time_slack_seconds))
    return [
        (name, reported, actual, slack)
        for name, reported, actual, slack in figures
        if reported is not None and name not in metrics.unverifiable
    ]


def verify_run(
    *,
    run: Run,
    folder: Path,
    tolerance: float = DEFAULT_TOLERANCE,
    prices: PriceTable | None = None,
    tolerances: Tolerances | None = None,
) -> list[Finding]:
    """Read ``run``'s transcript from ``folder`` and return every mismatch (empty = verified).

    ``tolerances`` (from arena.yaml) wins over the single ``tolerance``.
    """
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
        secrets = find_secrets(path)
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
    found = compare_metrics(
        run=run, metrics=metrics, path=path, tolerance=tolerance, prices=prices,
        tolerances=tolerances,
    )
    found.extend(_belongs_to_run(run=run, folder=folder, metrics=metrics, path=path))
    if secrets.changed:
        first = min(numbers[0] for numbers in secrets.lines.values())
        found.append(
            Finding(
                code="secret-in-transcript",
                message=f"the transcript contains what looks like {secrets.describe()}",
                severity="error",
                path=path,
                line=first,
                hint="store it with `arena submit` (which redacts) or replace those strings",
            )
        )
    return found


def _matches(edited: str, patch_path: str) -> bool:
    edited = edited.replace("\\", "/")
    return edited == patch_path or edited.endswith("/" + patch_path)


def _belongs_to_run(
    *, run: Run, folder: Path, metrics: TranscriptMetrics, path: Path
) -> list[Finding]:
    """A transcript whose edits share no file with the run's patch came from another run.

    Only judged when the transcript shows edits (edits made through a shell are invisible),
    so the check can flag a copied transcript but never a faithful one.
    """
    if not metrics.edited_files:
        return []
    patched: list[str] = []
    for name in run.patches:
        patched.extend(load_patch(folder / name).paths)
    if not patched or any(
        _matches(edited, target) for edited in metrics.edited_files for target in patched
    ):
        return []
    shown = ", ".join(sorted(metrics.edited_files)[:5])
    return [
        Finding(
            code="transcript-mismatch",
            message=(
                f"run {run.id!r}: the transcript edits {shown} but the patch changes "
                f"{', '.join(patched[:5])}; it does not look like this run's transcript"
            ),
            severity="error",
            path=path,
            hint="store the transcript of the session that produced this patch",
        )
    ]


def is_verified(*, run: Run, folder: Path, tolerance: float = DEFAULT_TOLERANCE) -> bool:
    """True when the run has a transcript and every reported figure agrees with it."""
    return run.transcript is not None and not verify_run(
        run=run, folder=folder, tolerance=tolerance
    )
