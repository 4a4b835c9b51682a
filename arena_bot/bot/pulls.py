"""Which pull request a comment job may write to, and whether its scores need a maintainer.

Both ask the API (the GitHub client is a parameter), never the bundle: the bundle comes
from an untrusted run and is only compared with what the API says.
"""

from __future__ import annotations

from arena_bot.bot.bundle import Bundle
from arena_bot.bot.events import WorkflowRunEvent
from arena_bot.bot.github import GitHubClient
from arena_bot.core.errors import InputError

#: The only folder a PR may touch to be scored automatically.
SUBMISSIONS_PREFIX = "submissions/"


def pull_of_run(bundle: Bundle, event: WorkflowRunEvent, client: GitHubClient) -> int | None:
    """The PR this workflow run evaluated, from the event and the API; ``None`` when the run
    is outdated (the PR has a newer head since, or was closed): nothing may be written then.

    Only the open PRs (asked of the API) from the run's head branch and repository whose
    head is the run's commit may be written to; the bundle's ``pr_number`` and ``head_sha``
    are only compared with them, and a bundle that disagrees is rejected (an InputError)
    before any PR is touched.
    """
    workflow_run = event.workflow_run
    if bundle.head_sha != workflow_run.head_sha:
        raise InputError(
            f"the bundle says it evaluated {bundle.head_sha[:12]}, but the run evaluated "
            f"{workflow_run.head_sha[:12]}: rejected, no pull request was touched",
            hint="the bundle must be the one `arena bot evaluate-pr` wrote in this run",
        )
    if workflow_run.head_repository is None or not workflow_run.head_branch:
        raise InputError(
            "the run names no head repository or branch (a deleted fork?): there is no pull "
            "request to comment on",
            hint="a maintainer can re-run the PR evaluation once the PR has a head again",
        )
    built = workflow_run.head_repository.full_name
    pulls = [p for p in client.open_pulls_from(built, workflow_run.head_branch)
             if p.head.repository == built]
    current = sorted(p.number for p in pulls if p.head.sha == workflow_run.head_sha)
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
    if not pulls:
        head = client.find_head(bundle.pr_number)
        if head is None:
            raise InputError(
                f"the bundle names PR #{bundle.pr_number}, but this repository has no pull "
                f"request #{bundle.pr_number} (asked of the API), and none is open from "
                f"{built}:{workflow_run.head_branch}: rejected, no pull request was touched",
                hint="the bundle must be the one `arena bot evaluate-pr` wrote in this run; "
                "re-run the PR evaluation from the pull request's own page",
            )
        if head.state != "open":
            return None  # no open PR from that branch any more (closed or merged)
        if head.repository is None:
            raise InputError(
                f"PR #{bundle.pr_number}'s head repository was deleted (the API names none), "
                f"so it cannot be matched to the run's head {built}:{workflow_run.head_branch}"
                ": no pull request was touched",
                hint="a maintainer reviews this PR by hand, or the contributor opens a new "
                "one from a fork that exists",
            )
    raise InputError(
        f"the bundle names PR #{bundle.pr_number}, which is not an open pull request "
        f"from {built}:{workflow_run.head_branch} (asked of the API): rejected, no pull "
        "request was touched",
        hint="the bundle must be the one `arena bot evaluate-pr` wrote in this run",
    )


def gate_reasons(number: int, client: GitHubClient) -> list[str]:
    """Why PR ``number``'s scores need a maintainer (empty: every check passed): every file
    it changes must be inside a submission folder and added by it (not a file of the base
    branch modified or removed), and the API must have listed them all."""
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
        reasons.append(
            "the PR changes files outside a submission folder "
            f"(submissions/<task>/<submission>/): {_first_ten(outside)}"
        )
    changed = [p for p in listing.not_added if _under_submissions(p)]
    if changed:
        reasons.append(
            "the PR modifies or removes files the base branch already has (a PR adds "
            f"submissions only): {_first_ten(changed)}"
        )
    return reasons


def _first_ten(paths: list[str]) -> str:
    return ", ".join(paths[:10]) + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")


def _under_submissions(path: str) -> bool:
    """Inside a submission folder: ``submissions/<task>/<submission>/<file>`` (other files
    under ``submissions/``, such as its README.md, are the maintainers')."""
    parts = path.split("/")
    return (
        path.startswith(SUBMISSIONS_PREFIX) and ".." not in parts and "" not in parts
        and "." not in parts and len(parts) >= 4
    )
