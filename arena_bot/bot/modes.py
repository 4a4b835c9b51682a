"""The bot's three use cases: evaluate-pr (untrusted), comment (trusted), publish (trusted).

Each takes its inputs and adapters as parameters (the GitHub client, paths, the
environment) so tests drive them against a local HTTP server with real payloads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_bot import __version__
from arena_bot.bot.bundle import Bundle, load_bundle, trim_result, write_bundle
from arena_bot.bot.events import PullRequestEvent, WorkflowRunEvent, load_event
from arena_bot.bot.github import GitHubClient
from arena_bot.bot.render import MARKER, render_comment
from arena_bot.bot.view import BOT_LABELS, CommentView, build_view
from arena_bot.errors import InputError
from arena_bot.intake.diagnostics import ReportOut

#: The only folder a PR may touch to be scored automatically.
SUBMISSIONS_PREFIX = "submissions/"


@dataclass(frozen=True)
class CommentOutcome:
    """What the comment mode did."""

    pr_number: int
    verdict: str
    url: str
    created: bool
    labels: set[str]
    gate: list[str]
    #: Why nothing was written (the run is outdated); ``None`` when the comment was.
    skipped: str | None = None


def build_bundle(
    *,
    event_path: Path,
    report: ReportOut,
    changed_files: list[str],
    leaderboard_path: Path | None,
    results: list[dict[str, Any]] | None = None,
) -> Bundle:
    """evaluate-pr: the bundle of one PR evaluation (validation + the changed entries and
    the boards of their tasks, whose baselines the comment shows beside each score)."""
    event = load_event(event_path, PullRequestEvent)
    keys = {s.key for s in report.submissions if s.valid}
    entries, tasks = _board_parts(leaderboard_path, keys) if leaderboard_path else ([], [])
    return Bundle(
        bot_version=__version__,
        pr_number=event.number,
        head_sha=event.pull_request.head.sha,
        changed_files=changed_files,
        validation=report,
        entries=entries,
        results=[trim_result(r) for r in results or []],
        tasks=tasks,
    )


def _board_parts(
    path: Path, keys: set[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The leaderboard entries of ``keys`` and the task boards of their tasks (missing
    file: none scored yet)."""
    if not path.is_file():
        return [], []
    try:
        board = json.loads(path.read_text(encoding="utf-8"))
        entries = [e for e in board["entries"] if isinstance(e, dict) and e.get("key") in keys]
        task_ids = {e.get("task_id") for e in entries}
        tasks = [t for t in board.get("tasks", []) if isinstance(t, dict)
                 and t.get("task_id") in task_ids]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise InputError(
            "cannot read the leaderboard's entries", path=path,
            hint="regenerate it with `arena score`",
        ) from None
    return entries, tasks


def evaluate_pr_outputs(bundle: Bundle, folder: Path) -> tuple[Path, str, CommentView]:
    """Write the bundle; return its path, the summary Markdown and the view."""
    path = write_bundle(bundle, folder)
    view = build_view(bundle, marker=MARKER, gate=[])
    return path, render_comment(view), view


def pull_of_run(bundle: Bundle, event: WorkflowRunEvent, client: GitHubClient) -> int | None:
    """The PR this run evaluated, from the event and the API; ``None`` when the run is
    outdated (the PR has a newer head since, or was closed): nothing may be written then.

    The run's ``head_repository``, ``head_branch`` and ``head_sha`` are GitHub's. The open
    PRs from that branch (asked of the API) whose head is that commit in that repository are
    the only ones this run may write to; the bundle's ``pr_number`` and ``head_sha`` are
    only compared with them. A bundle that disagrees is rejected (an InputError) before any
    PR is touched.
    """
    run = event.workflow_run
    if bundle.head_sha != run.head_sha:
        raise InputError(
            f"the bundle says it evaluated {bundle.head_sha[:12]}, but the run evaluated "
            f"{run.head_sha[:12]}: rejected, no pull request was touched",
            hint="the bundle must be the one `arena bot evaluate-pr` wrote in this run",
        )
    if run.head_repository is None or not run.head_branch:
        raise InputError(
            "the run names no head repository or branch (a deleted fork?): there is no pull "
            "request to comment on",
            hint="a maintainer can re-run the PR evaluation once the PR has a head again",
        )
    built = run.head_repository.full_name
    pulls = [p for p in client.open_pulls_from(built, run.head_branch)
             if p.head.repository == built]
    current = sorted(p.number for p in pulls if p.head.sha == run.head_sha)
    if bundle.pr_number in current:
        return bundle.pr_number
    if current:
        raise InputError(
            f"the bundle names PR #{bundle.pr_number}, but this run evaluated "
            + ", ".join(f"#{n}" for n in current)
            + " (asked of the API): rejected, no pull request was touched",
            hint="the bundle must be the one `arena bot evaluate-pr` wrote in this run",
        )
    if any(p.number == bundle.pr_number for p in pulls):
        return None  # pushed again since: the newer head's run comments
    if pulls or client.head(bundle.pr_number).state == "open":
        raise InputError(
            f"the bundle names PR #{bundle.pr_number}, which is not an open pull request "
            f"from {built}:{run.head_branch} (asked of the API): rejected, no pull request "
            "was touched",
            hint="the bundle must be the one `arena bot evaluate-pr` wrote in this run",
        )
    return None  # no open PR from that branch any more (closed or merged)


def gate_reasons(number: int, client: GitHubClient) -> list[str]:
    """Why PR ``number``'s scores need a maintainer (empty: every check passed).

    Every file the PR changes (per the API) must be inside a submission folder
    (``submissions/<task>/<submission>/``), and the API must have listed them all.
    """
    reasons: list[str] = []
    listing = client.file_listing(number)
    if not listing.complete:
        reasons.append(
            f"GitHub lists only {listing.listed:,} of the {listing.changed:,} files this PR "
            "changes, so the rest could not be checked: a maintainer must review it (or the "
            "contributor splits it into smaller PRs)"
        )
    outside = [p for p in listing.paths if not _under_submissions(p)]
    if outside:
        shown = ", ".join(outside[:10]) + (f" and {len(outside) - 10} more" if len(outside) > 10
                                           else "")
        reasons.append(
            "the PR changes files outside a submission folder "
            f"(submissions/<task>/<submission>/): {shown}"
        )
    return reasons


def _under_submissions(path: str) -> bool:
    """Inside a submission folder: ``submissions/<task>/<submission>/<file>``.

    Other files under ``submissions/`` (its README.md, a file beside the submission
    folders of a task) are the maintainers': a PR touching them needs one.
    """
    parts = path.split("/")
    return (
        path.startswith(SUBMISSIONS_PREFIX) and ".." not in parts and "" not in parts
        and "." not in parts and len(parts) >= 4
    )


def run_comment(
    *, event_path: Path, bundle_path: Path, client: GitHubClient
) -> CommentOutcome:
    """comment: find the run's PR from the event, check the bundle against it and the API,
    render, upsert the comment, set labels. An outdated run writes nothing."""
    event = load_event(event_path, WorkflowRunEvent)
    bundle = load_bundle(bundle_path)
    run = event.workflow_run
    number = pull_of_run(bundle, event, client)
    if number is None:
        return _outdated(bundle.pr_number, run.head_sha)
    gate = gate_reasons(number, client)
    view = build_view(bundle, marker=MARKER, gate=gate)
    body = render_comment(view)
    # Last look before writing: a push since the lookup makes this run the older one, and a
    # comment for an older head never replaces one for a newer head.
    if client.head(number).sha != run.head_sha:
        return _outdated(number, run.head_sha)
    url, created = client.upsert_comment(number, body=body, marker=MARKER)
    labels = view.labels
    client.set_labels(number, wanted=labels, managed=BOT_LABELS)
    return CommentOutcome(
        pr_number=number, verdict=view.verdict, url=url, created=created,
        labels=labels, gate=gate,
    )


def _outdated(number: int, sha: str) -> CommentOutcome:
    return CommentOutcome(
        pr_number=number, verdict="", url="", created=False, labels=set(), gate=[],
        skipped=(f"PR #{number} is no longer open at {sha[:12]} (pushed again, closed or "
                 "merged since this evaluation): nothing written; the newer head's run "
                 "comments"),
    )


def env_path(env: Mapping[str, str], given: Path | None, name: str) -> Path:
    """``given``, else the path in ``env[name]``; a clear error when neither is set."""
    if given is not None:
        return given
    value = env.get(name)
    if not value:
        raise InputError(
            f"no --event given and {name} is not set",
            hint="pass --event FILE (a GitHub event payload) or run inside GitHub Actions",
        )
    return Path(value)
