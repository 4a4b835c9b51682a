"""Checking a run's figures against its transcript: mismatches, and the metrics level.

A reported figure that differs from the transcript's by more than the tolerance is an error
naming the figure, both values and the transcript's lines, so self-reported numbers cannot
be inflated or deflated silently. Pure: no Docker, git or GitHub.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal

from arena_bot.core.config import VerificationConfig
from arena_bot.core.errors import ArenaError
from arena_bot.core.prices import PriceTable, normalize_model_name, token_cost
from arena_bot.intake.diagnostics import Diagnostic
from arena_bot.intake.patches import load_patch
from arena_bot.intake.transcripts import TranscriptMetrics, read_transcript
from arena_bot.intake.transcripts.edits import (
    Activity,
    ReplayError,
    differences,
    iter_edits,
    patched_files,
    replay,
    repo_path,
    usage_problems,
)
from arena_bot.intake.transcripts.redact import find_secrets
from arena_bot.models.submission import Run


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
    return token_cost(price=found[1], uncached=metrics.prompt_tokens,
                      cache_read=metrics.cache_read_tokens,
                      cache_write=metrics.cache_write_tokens, output=metrics.completion_tokens)


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
    *, run: Run, metrics: TranscriptMetrics, path: Path,
    tolerances: VerificationConfig | None = None, prices: PriceTable | None = None,
) -> list[Diagnostic]:
    """Compare ``run``'s reported figures with ``metrics`` recomputed from ``path``."""
    limits = tolerances or VerificationConfig()
    span = metrics.span_label or f"lines {metrics.first_line}-{metrics.last_line}"
    # A JSON document's figures have no exact line; point at the file then.
    line = None if metrics.span_label else (metrics.first_line or None)
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
    if run.execution_time > 0 and metrics.wall_clock_seconds > 0:
        figures.append(("execution_time", run.execution_time, metrics.wall_clock_seconds,
                        limits.time_slack_seconds))
    found: list[Diagnostic] = []
    for name, reported, actual, slack in figures:
        if reported is None or name in metrics.unverifiable:
            continue
        if _differs(reported=reported, actual=actual, tolerance=limits.tolerance, slack=slack):
            found.append(Diagnostic(
                code="metric-mismatch",
                message=(
                    f"run {run.id!r}: reported {name} = {reported:,g} but the transcript "
                    f"({span}) gives {actual:,g}"
                ),
                severity="error", path=path, line=line,
                hint=f"report the figures the transcript shows (tolerance {limits.tolerance:.0%})",
            ))
    if run.success and metrics.error_end:
        found.append(Diagnostic(
            code="success-mismatch",
            message=(f"run {run.id!r}: reported success: true but the transcript says the "
                     f"run ended in an error ({metrics.error_end})"),
            severity="error", path=path, line=line,
            hint="set success: false (the tool did not report finishing), or submit the "
            "transcript of a run that finished",
        ))
    cost = transcript_cost(metrics=metrics, prices=prices) if prices is not None else None
    if (cost is not None and prices is not None and run.estimated_cost > 0
            and _differs(reported=run.estimated_cost, actual=cost,
                         tolerance=limits.cost_tolerance)):
        found.append(Diagnostic(
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


def verify_run(
    *, run: Run, folder: Path, prices: PriceTable | None = None,
    tolerances: VerificationConfig | None = None,
) -> tuple[list[Diagnostic], TranscriptMetrics | None]:
    """Read ``run``'s transcript from ``folder``: every mismatch (empty = verified), and the
    transcript's metrics (``None`` when there is no readable transcript)."""
    if run.transcript is None:
        return [], None
    path = folder / run.transcript.file
    if path.is_symlink() or not path.is_file():
        return [Diagnostic(
            code="missing-transcript",
            message=f"transcript file {run.transcript.file!r} is missing or not a regular file",
            severity="error", path=folder / "submission.yaml",
            hint="add the transcript to the folder or remove 'transcript'",
        )], None
    try:
        secrets = find_secrets(path)
        metrics = read_transcript(path=path, format_name=run.transcript.format)
    except ArenaError as exc:
        return [Diagnostic(code="bad-transcript", message=exc.message, severity="error",
                           path=path, line=exc.line, hint=exc.hint)], None
    found = compare_metrics(run=run, metrics=metrics, path=path, prices=prices,
                            tolerances=tolerances)
    found.extend(_belongs_to_run(run=run, folder=folder, metrics=metrics, path=path))
    if secrets.changed:
        first = min(numbers[0] for numbers in secrets.lines.values())
        found.append(Diagnostic(
            code="secret-in-transcript",
            message=f"the transcript contains what looks like {secrets.describe()}",
            severity="error", path=path, line=first,
            hint="store it with `arena submit` (which redacts) or replace those strings",
        ))
    return found, metrics


def _belongs_to_run(
    *, run: Run, folder: Path, metrics: TranscriptMetrics, path: Path
) -> list[Diagnostic]:
    """A transcript whose edits share no file with the run's patch came from another run.

    Only judged when the transcript shows edits (edits made through a shell are invisible),
    so the check can flag a copied transcript but never a faithful one.
    """
    if not metrics.edited_files:
        return []
    patched: list[str] = []
    for name in run.patches:
        patched.extend(load_patch(folder / name).paths)
    edited = [name.replace("\\", "/") for name in metrics.edited_files]
    if not patched or any(name == target or name.endswith("/" + target)
                          for name in edited for target in patched):
        return []
    shown = ", ".join(sorted(metrics.edited_files)[:5])
    return [Diagnostic(
        code="transcript-mismatch",
        message=(f"run {run.id!r}: the transcript edits {shown} but the patch changes "
                 f"{', '.join(patched[:5])}; it does not look like this run's transcript"),
        severity="error", path=path,
        hint="store the transcript of the session that produced this patch",
    )]


# --- metrics levels --------------------------------------------------------------------

#: A run's metrics level and, when it is ``self-reported``, every reason why.
RunLevel = tuple[Literal["self-reported", "transcript-consistent"], tuple[str, ...]]


def checkout_files(root: Path) -> Callable[[str], str | None]:
    """``base(path)`` over a checkout at ``root``: a repository file's text, ``None`` when
    there is none (a path that leaves the checkout or is not a regular file included)."""
    top = root.resolve()

    def base(name: str) -> str | None:
        if not name or name.startswith("/") or ".." in name.split("/") or name.startswith(
                ".git/"):
            return None
        path = top / name
        try:
            if path.is_symlink() or not path.is_file() or top not in path.resolve().parents:
                return None
            return path.read_bytes().decode("utf-8", errors="surrogateescape")
        except OSError:
            return None

    return base


def _model_names(models: Iterable[str], prices: PriceTable) -> set[str]:
    names = set()
    for model in models:
        if not model or model == "<synthetic>":
            continue
        found = prices.lookup(model)
        names.add(found[0] if found is not None else normalize_model_name(model))
    return names


def run_level(
    *, run: Run, folder: Path, models: Sequence[str], base_checkout: Callable[[], Path] | None,
    prices: PriceTable, tolerances: VerificationConfig | None = None,
) -> RunLevel:
    """Whether ``run``'s figures are ``transcript-consistent``, with the reasons they are not.

    The level needs all of: a readable transcript whose figures are exactly the reported
    ones (time within its slack); the submission's ``models`` are the transcript's (those
    that only served sub-agents and side calls, ``helper_models``, may be left out); the
    transcript's edit tool calls, replayed on the task's base commit (``base_checkout``),
    reproduce the run's patches; its per-request usage is internally consistent
    (:func:`arena_bot.intake.transcripts.edits.usage_problems`).
    """
    if run.transcript is None:
        return "self-reported", ("no transcript",)
    limits = tolerances or VerificationConfig()
    found, metrics = verify_run(run=run, folder=folder, tolerances=limits, prices=None)
    errors = [d.message for d in found if d.is_error]
    if errors or metrics is None:  # no metrics: the transcript could not be read (an error)
        return "self-reported", tuple(errors[:5])
    path = folder / run.transcript.file
    activity = metrics.activity
    if activity is None:
        return "self-reported", (
            f"the {run.transcript.format} format shows no edit tool calls that can be replayed",)
    exact = limits.model_copy(update={"tolerance": 0.0, "count_slack": 0.0})
    reasons = [
        f"{mismatch.message} (the level needs the transcript's own figures)"
        for mismatch in compare_metrics(run=run, metrics=metrics, path=path, tolerances=exact)
        if mismatch.code == "metric-mismatch"
    ]
    claimed, shown = _model_names(models, prices), _model_names(metrics.models, prices)
    # A model that only served sub-agents, warm-ups or side calls may be left out.
    helpers = _model_names(metrics.helper_models, prices) - _model_names(
        (m for m in metrics.models if m not in metrics.helper_models), prices)
    if not shown - helpers <= claimed <= shown:
        aside = (f" ({', '.join(sorted(helpers))} only for sub-agents and side calls, which "
                 "may be left out)" if helpers else "")
        reasons.append(
            f"the submission names model(s) {', '.join(sorted(claimed)) or 'none'} but the "
            f"transcript's requests were made by {', '.join(sorted(shown)) or 'none'}{aside}")
    reasons += _replay_reasons(run=run, folder=folder, activity=activity,
                               base_checkout=base_checkout)
    reasons += usage_problems(activity)
    return ("self-reported", tuple(reasons)) if reasons else ("transcript-consistent", ())


def _replay_reasons(
    *, run: Run, folder: Path, activity: Activity, base_checkout: Callable[[], Path] | None
) -> list[str]:
    if base_checkout is None:
        return ["the task's base commit is not available here to replay the edits"]
    try:
        base = checkout_files(base_checkout())
    except ArenaError as exc:
        return [f"the task's base commit is not available to replay the edits: {exc.message}"]
    submitted: dict[str, str | None] = {}
    for name in run.patches:
        try:
            files = patched_files(load_patch(folder / name), base=base)
        except ReplayError as exc:
            return [f"{name} does not apply to the base commit (line {exc.where}): "
                    f"{exc.message}"]
        both = sorted(set(files) & set(submitted))
        if both:
            return [f"two patches change {both[0]}: the replay cannot tell their edits apart"]
        submitted.update(files)
    writes = [f"{where}: `{command}`" for where, command in activity.shell_writes[:2]]
    through_shell = (
        f"; the transcript changes files through the shell (at {'; '.join(writes)}), which "
        "cannot be replayed" if writes else ""
    )
    if activity.unreplayable:
        where, text = activity.unreplayable[0]
        return [f"the edit at {where} (`{text}`) is of a form that cannot be replayed"]
    edits = list(iter_edits(activity))
    if not edits:
        return ["the transcript shows no edit tool call" + (through_shell or "")]
    if len(activity.unanswered) > 1:
        return [f"{len(activity.unanswered)} tool calls have no result in the transcript "
                f"(first at {activity.unanswered[0]}): the tool writes one for every call"]
    unread = [
        edit for edit in edits
        if edit.read_before is False and edit.kind != "write"
        and base(repo_path(edit.path, cwd=activity.cwd, known=lambda n: n in submitted))
        is not None
    ]
    if unread:
        return [f"the edit at {unread[0].where} changes {unread[0].path}, which the session "
                "never read (the tool refuses to edit a file it has not read)"]
    try:
        replayed = replay(edits, base=base, cwd=activity.cwd,
                          known=lambda name: name in submitted)
    except ReplayError as exc:
        return [f"the edit at {exc.where} cannot be replayed on the base commit: "
                f"{exc.message}{through_shell}"]
    found = differences(replayed, submitted, base=base)
    if found:
        more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
        return ["replaying the transcript's edits does not reproduce the patch: "
                + "; ".join(found[:3]) + more + through_shell]
    return []
