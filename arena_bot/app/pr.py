"""Pull-request use cases: evaluate a PR (untrusted workflow, no token) and comment on it
(trusted workflow). Each takes its adapters (the memo, the evaluation, the GitHub client)
as parameters, so tests drive them against real repositories and a local GitHub API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_bot import __version__
from arena_bot.app.memo import Memo
from arena_bot.app.scoring import score_board, write_scored
from arena_bot.app.validation import validate_submissions
from arena_bot.bot.bundle import Bundle, board_parts, load_bundle, trim_result, write_bundle
from arena_bot.bot.events import PullRequestEvent, WorkflowRunEvent, load_event
from arena_bot.bot.github import GitHubClient
from arena_bot.bot.pulls import gate_reasons, pull_of_run
from arena_bot.bot.render import MARKER, render_comment
from arena_bot.bot.view import BOT_LABELS, Conclusion, build_view
from arena_bot.core.errors import ArenaError, InputError
from arena_bot.core.gitcmd import run_git
from arena_bot.core.settings import Settings
from arena_bot.evaluation.store import ResultStore
from arena_bot.intake.diagnostics import to_model, utf8_text
from arena_bot.intake.submissions import load_submission
from arena_bot.intake.validation import ValidationReport, parse_changed_files
from arena_bot.tasks.dataset import Dataset


@dataclass(frozen=True)
class PrEvaluation:
    """What :func:`evaluate_pr` did: the validation (for the annotations), the bundle
    written, the comment it makes (the job summary) and why the board could not be scored
    (``None``: it could, or was not asked to be)."""

    report: ValidationReport
    bundle: Path
    summary: str
    conclusion: Conclusion
    board_error: ArenaError | None


@dataclass(frozen=True)
class CommentOutcome:
    """What :func:`comment_pr` did."""

    #: ``None`` when the run names no PR evaluation (nothing to comment on).
    pr_number: int | None
    conclusion: str
    url: str
    created: bool
    labels: set[str]
    gate: list[str]
    #: Why nothing was written (no finished PR evaluation, or the run is outdated);
    #: ``None`` when the comment was.
    skipped: str | None = None


def changed_files_since(root: Path, base: str) -> list[str]:
    """``git diff --name-status BASE...HEAD`` of the repository at ``root``, by line."""
    done = run_git(["diff", "--name-status", "--no-renames", f"{base}...HEAD"], cwd=root)
    if not done.ok:
        raise InputError(
            f"cannot list the changed files against {base!r}: {done.last_error_line()}",
            path=root, hint="check out the PR with fetch-depth: 0 so the base commit is present",
        )
    return done.text.splitlines()


def evaluate_pr(
    settings: Settings,
    *,
    changed: list[str],
    event_path: Path,
    memo: Memo,
    output: Path,
    leaderboard: Path | None = None,
    evaluate: Callable[[list[Path]], object] | None = None,
) -> PrEvaluation:
    """Validate the PR's ``changed`` files (lines of ``git diff --name-status``) and write
    the bundle of the evaluation into ``output``: the validation, the changed submissions'
    stored results and board entries, and the boards of their tasks.

    ``evaluate`` (the Docker evaluation of submission folders): evaluate the PR's valid
    submissions with it and score every submission (their stored results restored from the
    data branch) as `arena pipeline` does, instead of reading ``leaderboard``. Whatever
    goes wrong there is ``board_error``: the bundle is written all the same.
    """
    event = load_event(event_path, PullRequestEvent)  # a wrong event stops before any work
    report = validate_submissions(settings, memo=memo, changed_files=changed)
    model = to_model(report, root=settings.root)
    valid = [s.path for s in model.submissions if s.valid]
    board_error = None
    if evaluate is not None:
        try:
            leaderboard = _evaluate_and_score(settings, valid, memo, evaluate)
        except ArenaError as exc:
            board_error = exc
    if board_error is None:
        keys = {s.key for s in model.submissions if s.valid}
        entries, tasks = board_parts(leaderboard or settings.cache_dir / "leaderboard.json",
                                     keys)
        results = _stored_results(settings, valid)
    else:
        entries, tasks, results = [], [], []
    bundle = Bundle(
        bot_version=__version__, pr_number=event.number, head_sha=event.pull_request.head.sha,
        changed_files=[utf8_text(c.path) for c in parse_changed_files(changed)],
        validation=model,
        entries=entries, results=results, tasks=tasks,
    )
    path = write_bundle(bundle, output)
    view = build_view(bundle, marker=MARKER, gate=[])
    return PrEvaluation(report=report, bundle=path, summary=render_comment(view),
                        conclusion=view.conclusion, board_error=board_error)


def _evaluate_and_score(
    settings: Settings, paths: list[str], memo: Memo,
    evaluate: Callable[[list[Path]], object],
) -> Path:
    """Evaluate only ``paths`` (the PR's valid submissions; the rest keep their stored
    results) and score the board's valid submissions against them, as `arena pipeline`
    does (an invalid one, the PR's own reported already, is left off instead of failing
    the scoring). Returns the leaderboard.json written (under the cache, never the
    published board)."""
    if paths:
        evaluate([settings.root / p for p in paths])
    whole = validate_submissions(settings, memo=memo)
    valid = [s.folder for s in whole.submissions if s.valid]
    only = None if len(valid) == len(whole.submissions) else valid
    return write_scored(score_board(settings, memo=memo, only=only),
                        settings.cache_dir / "pr-board").export


def _stored_results(settings: Settings, paths: list[str]) -> list[dict[str, Any]]:
    """The stored evaluation results of these (valid) submission folders, trimmed for the
    bundle, in submission key order (a task left off the board leaves its results off)."""
    dataset = Dataset(settings.dataset_dir)
    store = ResultStore(settings.results_dir)
    found = []
    for folder in sorted((load_submission(settings.root / p) for p in paths),
                         key=lambda folder: folder.key):
        task = dataset.get(folder.spec.task)
        result = None if task.unchecked_features() else store.lookup(folder, task)
        if result is not None:
            found.append(trim_result(result.model_dump(mode="json")))
    return found


def comment_pr(*, event_path: Path, bundle_path: Path, client: GitHubClient) -> CommentOutcome:
    """Find the run's PR from the event, check the bundle against it and the API, render,
    upsert the one comment, set the bot's labels. An outdated run writes nothing."""
    event = load_event(event_path, WorkflowRunEvent)
    reason = event.nothing_to_say()
    if reason is not None:
        return _skipped(None, reason)
    bundle = load_bundle(bundle_path)
    workflow_run = event.workflow_run
    number = pull_of_run(bundle, event, client)
    if number is None:
        return _outdated(bundle.pr_number, workflow_run.head_sha)
    gate = gate_reasons(number, client)
    view = build_view(bundle, marker=MARKER, gate=gate)
    body = render_comment(view)
    # Last look before writing: a push since the lookup makes this run the older one, and a
    # comment for an older head never replaces one for a newer head.
    if client.head(number).sha != workflow_run.head_sha:
        return _outdated(number, workflow_run.head_sha)
    url, created = client.upsert_comment(number, body=body, marker=MARKER)
    labels = view.labels
    client.set_labels(number, wanted=labels, managed=BOT_LABELS)
    return CommentOutcome(pr_number=number, conclusion=view.conclusion, url=url,
                          created=created, labels=labels, gate=gate)


def _outdated(number: int, sha: str) -> CommentOutcome:
    return _skipped(number, f"PR #{number} is no longer open at {sha[:12]} (pushed again, "
                    "closed or merged since this evaluation): nothing written; the newer "
                    "head's run comments")


def _skipped(number: int | None, reason: str) -> CommentOutcome:
    return CommentOutcome(pr_number=number, conclusion="", url="", created=False,
                          labels=set(), gate=[], skipped=reason)
