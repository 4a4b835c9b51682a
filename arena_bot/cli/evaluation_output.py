"""What the commands that evaluate print: the evaluation stage shared by `arena evaluate`,
`arena pipeline` and `arena bot evaluate-pr` (the use case, then its table), and the
failing-test lines `arena merge` shows too. A module of printers, not a command: command
modules never import each other."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from arena_bot.app.evaluation import Evaluated, evaluate_submissions, feature_counts
from arena_bot.app.memo import Memo
from arena_bot.core.settings import Settings
from arena_bot.evaluation.engine import Outcome
from arena_bot.models.evaluation import FeatureResult


def run_evaluation(
    settings: Settings,
    folders: list[Path],
    *,
    jobs: int,
    base_image: str | None,
    force: bool,
    memo: Memo | None = None,
    verbose: bool = False,
) -> list[Outcome]:
    """Evaluate the submissions in ``folders`` (:func:`~arena_bot.app.evaluation.
    evaluate_submissions`), print the table, return the outcomes."""
    evaluated = evaluate_submissions(
        settings, folders, jobs=jobs, base_image=base_image, force=force, memo=memo,
        progress=echo_err,
    )
    show_evaluation(settings, evaluated, verbose=verbose)
    return evaluated.outcomes


def echo_err(line: str) -> None:
    """Progress lines (image builds, the base image chosen, units) go to stderr."""
    click.echo(line, err=True)


def show_evaluation(settings: Settings, evaluated: Evaluated, *, verbose: bool = False) -> None:
    """The table of ``evaluated`` (tasks unchanged since results were stored: one line)."""
    if evaluated.swept:
        click.echo(f"removed {evaluated.swept} leftover sandbox container(s) of interrupted runs")
    if verbose:
        click.echo(render_outputs(evaluated.outcomes))
    unchanged = evaluated.unchanged
    if unchanged is not None and unchanged.submissions:
        click.echo(
            f"{unchanged.submissions} submission(s) of {unchanged.tasks} task(s) unchanged "
            f"since their results were stored (not listed; `arena evaluate FOLDER` shows "
            f"one): {unchanged.passed}/{unchanged.feature_runs} feature runs passed"
        )
    if evaluated.outcomes or unchanged is None or not unchanged.submissions:
        click.echo(render_table(evaluated.outcomes))
    click.echo(f"results: {settings.results_dir}")
    sys.stdout.flush()


#: Failing tests listed under a feature's row; the others are counted.
FAILURES_SHOWN = 10
#: A line of test output that names why nothing ran: an exception, a collection error.
_CAUSE = re.compile(r"^(?:E\s+)?(?P<cause>(?:[A-Za-z_][\w.]*(?:Error|Exception)\b|ERROR\b)"
                    r"(?!:?\s*$).*)$")


def failure_lines(feature: FeatureResult, *, indent: str = "    ",
                  limit: int = FAILURES_SHOWN) -> list[str]:
    """Why ``feature`` did not pass, so a contributor need not open the stored JSON: each
    failing test id with the first line of its assertion or error, or, when no test result
    says it (``no_tests``), the first line of the output naming the cause (an import or
    collection error)."""
    if feature.passed:
        return []
    failing = [case for case in feature.tests if case.outcome in ("failed", "error")]
    lines = []
    for case in failing[:limit]:
        first = next((line.strip() for line in (case.message or "").splitlines()
                      if line.strip()), "")
        lines.append(f"{indent}{case.name}: {case.outcome}"
                     + (f" — {_one_line(first, 160)}" if first else ""))
    if len(failing) > limit:
        lines.append(f"{indent}... and {len(failing) - limit} more failing test(s)")
    if not failing and feature.status in ("no_tests", "failed"):
        cause = output_cause(feature.output)
        if cause:
            lines.append(f"{indent}cause: {_one_line(cause, 200)}")
    return lines


def output_cause(output: str) -> str | None:
    """The first line of test output that names an error (``E   ModuleNotFoundError: ...``,
    ``ERROR collecting tests/x.py``, ``ImportError while loading conftest``)."""
    for line in output.splitlines():
        match = _CAUSE.match(line.strip())
        if match:
            return match.group("cause").strip()
    return None


def _feature_row(label: str, feature: FeatureResult) -> list[str]:
    tests = f"{feature.tests_passed}/{feature.tests_failed}/{feature.tests_errored}"
    return [label, f"f{feature.feature}", feature.status, feature.apply_status, tests,
            f"{feature.duration:.1f}s", feature.reason or ""]


def render_table(outcomes: list[Outcome]) -> str:
    """The summary table: one row per run and feature (merged code for coop runs)."""
    header = ["submission / run", "feature", "status", "patch", "pass/fail/err", "time", "reason"]
    rows: list[list[str]] = []
    details: dict[int, list[str]] = {}  # row index -> the lines shown under it
    for outcome in outcomes:
        result = outcome.result
        name = outcome.submission.key + (" (cached)" if outcome.cached else "")
        if result.error:
            rows.append([name, "-", "error", "-", "-", f"{result.duration:.1f}s", result.error])
            continue
        for run in result.runs:
            label = f"{name} {run.run_id}"
            if run.merge is not None:
                merge = run.merge
                rows.append([label, "merge", merge.status, merge.strategy,
                             f"score {merge.conflict_score}", "",
                             merge.error or f"severity {merge.severity}"])
            for feature in run.tested_features:
                rows.append(_feature_row(label, feature))
                details[len(rows) - 1] = failure_lines(feature)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for index, row in enumerate([header, *rows]):
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, _one_line(row[-1])]).rstrip())
        lines.extend(details.get(index - 1, []))
    passed, total = feature_counts(outcomes)
    lines.append(f"{len(outcomes)} submission(s), {passed}/{total} feature runs passed")
    return "\n".join(lines)


def render_outputs(outcomes: list[Outcome]) -> str:
    """Each tested feature's stored test output under a heading (``--verbose``)."""
    blocks: list[str] = []
    for outcome in outcomes:
        for run in outcome.result.runs:
            for feature in run.tested_features:
                where = "merged code, " if run.merge is not None else ""
                blocks.append(f"--- {outcome.submission.key} {run.run_id} f{feature.feature} "
                              f"({where}{feature.status}): test output ---")
                blocks.append(feature.output.rstrip() or "(no output)")
                if feature.output_truncated:
                    blocks.append("(output truncated at the task's output cap)")
    return "\n".join(blocks)


def _one_line(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
