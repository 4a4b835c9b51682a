"""The comment mode against the independent GitHub API server (support.restgithub: GitHub's
recorded objects, next pages under /repositories/{id}, the 3,000-file cap), with the real
workflow_run payload: whatever PyGithub asks for is served, and the PR is the event's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.botdata import FORK_SHA, make_bundle, workflow_run_event
from support.httpserver import serving
from support.restgithub import Repository, RestServer

from arena_bot.app.pr import comment_pr
from arena_bot.bot.bundle import write_bundle
from arena_bot.bot.github import GitHubClient, GitHubSettings
from arena_bot.bot.render import MARKER
from arena_bot.bot.view import LABEL_REVIEW, LABEL_VALID
from arena_bot.core.errors import GitHubError, InputError

TOKEN = "ghs_independent_server_token"
FILE = "submissions/slugkit-options/2026-11-02_claude-code_x/submission.yaml"


@pytest.fixture
def repo() -> Iterator[Repository]:
    state = Repository(full_name="arena/board", token=TOKEN)
    with serving(RestServer(state)):
        yield state


def _client(repo: Repository, token: str = TOKEN) -> GitHubClient:
    return GitHubClient(GitHubSettings(api_url=repo.base, repository=repo.full_name,
                                       token=token), throttle=False, retries=0)


def _writes(repo: Repository) -> list[tuple[str, str]]:
    return [(m, p) for m, p in repo.requests if m != "GET"]


def test_a_fork_prs_comment_and_labels(repo: Repository, tmp_path: Path) -> None:
    pull = repo.open_pull(7, head_sha=FORK_SHA, files=[FILE])
    event = workflow_run_event(tmp_path / "event.json", head_sha=FORK_SHA)
    bundle = write_bundle(make_bundle(), tmp_path)
    first = comment_pr(event_path=event, bundle_path=bundle, client=_client(repo))
    second = comment_pr(event_path=event, bundle_path=bundle, client=_client(repo))
    assert first.created and not second.created and first.url == second.url
    (comment,) = pull.comments
    assert comment["body"].startswith(MARKER) and "71.50" in comment["body"]
    assert pull.labels == [LABEL_VALID]
    assert repo.unserved == []


def test_3001_files_are_read_to_the_cap_and_need_a_maintainer(
    repo: Repository, tmp_path: Path
) -> None:
    files = [f"submissions/slugkit-options/s{i}/submission.yaml" for i in range(3000)]
    pull = repo.open_pull(7, head_sha=FORK_SHA, files=[*files, ".github/workflows/x.yml"])
    outcome = comment_pr(event_path=workflow_run_event(tmp_path / "e.json", head_sha=FORK_SHA),
                          bundle_path=write_bundle(make_bundle(), tmp_path),
                          client=_client(repo))
    assert outcome.labels == {LABEL_REVIEW} and "3,000 of the 3,001" in outcome.gate[0]
    assert "71.50" not in pull.comments[0]["body"]
    pages = [p for m, p in repo.requests if "/files" in p]
    assert len(pages) == 30 and all("/repositories/" in p for p in pages[1:])
    assert repo.unserved == []


def test_a_bundle_for_another_pr_and_an_outdated_run_write_nothing(
    repo: Repository, tmp_path: Path
) -> None:
    victim = repo.open_pull(7, head_sha=FORK_SHA, files=[FILE], head_repo="alice/board")
    repo.open_pull(8, head_sha=FORK_SHA, files=[FILE])
    event = workflow_run_event(tmp_path / "e.json", head_sha=FORK_SHA)
    with pytest.raises(InputError, match="no pull request was touched"):
        comment_pr(event_path=event, bundle_path=write_bundle(make_bundle(pr=7), tmp_path),
                    client=_client(repo))
    repo.pulls[8].head_sha = "c0ffee0000000000000000000000000000000009"  # pushed again
    outdated = comment_pr(event_path=event,
                           bundle_path=write_bundle(make_bundle(pr=8), tmp_path),
                           client=_client(repo))
    assert outdated.skipped is not None
    assert _writes(repo) == [] and victim.comments == []


def test_a_bundle_naming_a_pr_that_does_not_exist_says_so(
    repo: Repository, tmp_path: Path
) -> None:
    """No open PR from the run's branch and the bundle names a number GitHub has no pull
    request for: a message naming the PR and what to do, not the API's bare 404."""
    repo.open_pull(7, head_sha=FORK_SHA, files=[FILE], head_repo="alice/board",
                   head_ref="other-branch")
    event = workflow_run_event(tmp_path / "e.json", head_sha=FORK_SHA)
    with pytest.raises(InputError) as caught:
        comment_pr(event_path=event, bundle_path=write_bundle(make_bundle(pr=99), tmp_path),
                    client=_client(repo))
    message = str(caught.value)
    assert "PR #99" in message and "no pull request #99" in message
    assert "no pull request was touched" in message and "HTTP 404" not in message
    assert caught.value.hint and "bundle" in caught.value.hint
    assert _writes(repo) == []


def test_a_wrong_token_is_a_clear_error(repo: Repository, tmp_path: Path) -> None:
    repo.open_pull(7, head_sha=FORK_SHA, files=[FILE])
    with pytest.raises(GitHubError, match="HTTP 401") as caught:
        comment_pr(event_path=workflow_run_event(tmp_path / "e.json", head_sha=FORK_SHA),
                    bundle_path=write_bundle(make_bundle(), tmp_path),
                    client=_client(repo, token="ghs_wrong"))
    assert "token was refused" in str(caught.value) and "ghs_wrong" not in str(caught.value)


@pytest.mark.parametrize("retries", [0, 2])
def test_an_outage_after_the_comment_is_a_clear_error_and_a_rerun_mends_it(
    repo: Repository, tmp_path: Path, retries: int
) -> None:
    """GitHub answering 502 to the label after the comment was written: a GitHubError that
    says what failed (requests' RetryError escaped as a traceback); the job run again edits
    the same comment and sets the label."""
    pull = repo.open_pull(7, head_sha=FORK_SHA, files=[FILE])
    event = workflow_run_event(tmp_path / "event.json", head_sha=FORK_SHA)
    bundle = write_bundle(make_bundle(), tmp_path)
    repo.failing[("POST", r"/issues/7/labels$")] = 502
    client = GitHubClient(GitHubSettings(api_url=repo.base, repository=repo.full_name,
                                         token=TOKEN), throttle=False, retries=retries)
    with pytest.raises(GitHubError, match="502") as caught:
        comment_pr(event_path=event, bundle_path=bundle, client=client)
    assert "label" in str(caught.value) and caught.value.hint
    assert len(pull.comments) == 1 and pull.labels == []
    repo.failing.clear()
    again = comment_pr(event_path=event, bundle_path=bundle, client=_client(repo))
    assert not again.created and len(pull.comments) == 1 and pull.labels == [LABEL_VALID]


def test_an_api_that_cannot_be_reached_is_a_clear_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    client = GitHubClient(GitHubSettings(api_url=f"http://127.0.0.1:{port}",
                                         repository="arena/board", token=TOKEN),
                          throttle=False, retries=0)
    with pytest.raises(GitHubError, match="could not be reached") as caught:
        comment_pr(event_path=workflow_run_event(tmp_path / "e.json", head_sha=FORK_SHA),
                   bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert "GITHUB_API_URL" in (caught.value.hint or "")


@pytest.mark.parametrize("status", ["modified", "removed", "changed"])
def test_a_pr_changing_a_file_the_base_branch_has_needs_a_maintainer(
    repo: Repository, tmp_path: Path, status: str
) -> None:
    """A PR adds submissions only. Validation says so in the untrusted run; the trusted run
    now asks the API for each file's status too (a forged bundle could say "valid")."""
    other = "submissions/slugkit-options/2026-11-01_aider_y/run-1.patch"
    pull = repo.open_pull(7, head_sha=FORK_SHA, files=[FILE, other])
    pull.statuses[other] = status
    outcome = comment_pr(event_path=workflow_run_event(tmp_path / "e.json", head_sha=FORK_SHA),
                         bundle_path=write_bundle(make_bundle(), tmp_path), client=_client(repo))
    assert outcome.gate and "modifies or removes files the base branch already has" in (
        outcome.gate[0])
    assert other in outcome.gate[0]
    assert pull.labels == [LABEL_REVIEW]
    (comment,) = pull.comments
    assert "71.50" not in comment["body"]  # no scores shown on a gated PR
