"""The GitHub layer and the comment mode over HTTP against a real local API server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.botdata import (
    DATA,
    FORK_SHA,
    SAME_REPO_SHA,
    add_pull,
    make_bundle,
    make_entry,
    make_report,
    write_json,
)
from support.fakegithub import TOKEN, FakeGitHub, rate_limit_failure

from arena_bot.app.pr import comment_pr
from arena_bot.bot.bundle import MAX_BUNDLE_BYTES, write_bundle
from arena_bot.bot.github import GitHubClient, GitHubSettings
from arena_bot.bot.render import MARKER
from arena_bot.bot.view import LABEL_INVALID, LABEL_REVIEW, LABEL_VALID
from arena_bot.core.errors import GitHubError, InputError
from arena_bot.intake.diagnostics import DiagnosticOut

FORK_EVENT = DATA / "workflow_run_fork.json"
SAME_REPO_EVENT = DATA / "workflow_run_same_repo.json"


def _bot_comments(github: FakeGitHub, number: int = 7) -> list[dict]:
    return [c for c in github.pulls[number].comments if MARKER in c["body"]]


def test_first_run_creates_the_comment_second_edits_it(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    add_pull(github)
    bundle = write_bundle(make_bundle(), tmp_path)
    first = comment_pr(event_path=FORK_EVENT, bundle_path=bundle, client=client)
    assert first.created and first.conclusion == "valid" and first.gate == []
    second = comment_pr(event_path=FORK_EVENT, bundle_path=bundle, client=client)
    assert not second.created and second.url == first.url
    comments = _bot_comments(github)
    assert len(comments) == 1
    assert "71.50" in comments[0]["body"] and "rank 2" in comments[0]["body"]
    assert github.pulls[7].labels == [LABEL_VALID]
    # every request carried the token, and only as the Authorization header
    assert github.auth_headers == {f"token {TOKEN}"}


def test_the_marked_comment_is_found_past_the_first_page(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    add_pull(github)
    for i in range(140):
        github.add_comment(7, f"comment {i}")
    mine = github.add_comment(7, f"{MARKER}\nold score", user="github-actions[bot]")
    for i in range(30):
        github.add_comment(7, f"later {i}")
    outcome = comment_pr(
        event_path=FORK_EVENT, bundle_path=write_bundle(make_bundle(), tmp_path), client=client
    )
    assert not outcome.created
    assert len(_bot_comments(github)) == 1
    assert "old score" not in mine["body"] and "71.50" in mine["body"]
    pages = [p for m, p in github.requests if m == "GET" and p.split("?")[0].endswith("/comments")]
    assert len(pages) == 2  # 171 comments at 100 per page


def test_labels_follow_the_conclusion_and_leave_others_alone(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    pull = add_pull(github)
    pull.labels = ["good first PR", LABEL_VALID]
    key = "slugkit-options/2026-11-02_claude-code_x"
    bad = make_report((key, False, [DiagnosticOut(
        severity="error", code="schema", path=f"submissions/{key}/submission.yaml", line=3,
        message="tokens must be an integer", hint=None)]))
    outcome = comment_pr(
        event_path=FORK_EVENT,
        bundle_path=write_bundle(make_bundle(report=bad, entries=[]), tmp_path), client=client,
    )
    assert outcome.conclusion == "invalid"
    assert sorted(pull.labels) == sorted(["good first PR", LABEL_INVALID])
    flagged = make_entry(key, outliers=[{"code": "fast", "reason": "3 s for 40 tool calls",
                                         "kind": "robust"}], review_status="under-review")
    comment_pr(
        event_path=FORK_EVENT,
        bundle_path=write_bundle(make_bundle(entries=[flagged]), tmp_path), client=client,
    )
    assert sorted(pull.labels) == sorted(["good first PR", LABEL_VALID, LABEL_REVIEW])
    assert len(_bot_comments(github)) == 1


def test_rate_limit_403_and_502_are_retried(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    add_pull(github)
    github.failures.append(rate_limit_failure("GET", r".*/pulls/7"))
    github.failures.append(("GET", r".*/pulls/7/files", 502, {}, {"message": "Bad Gateway"}))
    outcome = comment_pr(
        event_path=FORK_EVENT, bundle_path=write_bundle(make_bundle(), tmp_path), client=client
    )
    assert outcome.conclusion == "valid" and outcome.created
    assert github.failures == []


def test_a_persistent_failure_is_a_clear_error_without_the_token(
    github: FakeGitHub, tmp_path: Path
) -> None:
    add_pull(github)
    client = GitHubClient(
        GitHubSettings(api_url=github.base, repository="arena/board", token=TOKEN), retries=0,
        throttle=False,
    )
    github.failures.append(("GET", r".*/pulls/7", 404, {}, {"message": "Not Found"}))
    with pytest.raises(GitHubError) as caught:
        comment_pr(event_path=FORK_EVENT, bundle_path=write_bundle(make_bundle(), tmp_path),
                    client=client)
    assert "HTTP 404" in str(caught.value) and "#7" in str(caught.value)
    # a missing PR is not a permissions problem
    assert "no such pull request" in str(caught.value) and "permission" not in str(caught.value)
    assert TOKEN not in str(caught.value) and TOKEN not in repr(client)
    assert TOKEN not in repr(GitHubSettings(api_url="x", repository="a/b", token=TOKEN))


def test_changed_files_are_read_past_100_and_one_outside_gates_the_scores(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    files = [f"submissions/t/s{i}/run.patch" for i in range(250)]
    files.insert(230, ".github/workflows/pr-evaluate.yml")
    add_pull(github, files=files)
    assert len(client.file_listing(7).paths) == 251
    outcome = comment_pr(
        event_path=FORK_EVENT, bundle_path=write_bundle(make_bundle(), tmp_path), client=client
    )
    assert outcome.conclusion == "needs review" and outcome.labels == {LABEL_REVIEW}
    body = _bot_comments(github)[0]["body"]
    assert "needs a maintainer" in body and "pr\\-evaluate" not in body
    assert ".github/workflows/pr-evaluate.yml" in body and "71.50" not in body


def _writes(github: FakeGitHub) -> list[tuple[str, str]]:
    return [(m, p) for m, p in github.requests if m != "GET"]


def test_same_repo_pr_is_the_one_the_api_lists_for_the_runs_head(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    add_pull(github, number=8, sha=SAME_REPO_SHA)
    other = add_pull(github, number=9, sha=SAME_REPO_SHA)
    other.head_ref = "another-branch"  # same commit, but not the branch the run built
    ok = comment_pr(
        event_path=SAME_REPO_EVENT,
        bundle_path=write_bundle(make_bundle(pr=8, sha=SAME_REPO_SHA), tmp_path), client=client,
    )
    assert ok.conclusion == "valid" and ok.pr_number == 8
    github.requests.clear()
    with pytest.raises(InputError, match="no pull request was touched") as caught:
        comment_pr(
            event_path=SAME_REPO_EVENT,
            bundle_path=write_bundle(make_bundle(pr=9, sha=SAME_REPO_SHA), tmp_path),
            client=client,
        )
    assert "#9" in str(caught.value) and "#8" in str(caught.value)
    assert _writes(github) == [] and github.pulls[9].comments == []


def test_a_bundle_naming_another_pr_is_rejected_without_touching_any_pr(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    """Issue 26, point 4: fork PR #8's run uploads a bundle naming PR #7 (whose head the
    attacker copied). The PR comes from the event, asked of the API: #8; #7 keeps its
    scored comment and label, and #8 is not written either."""
    victim = add_pull(github, number=7, sha=FORK_SHA, head_repo="alice/board")
    scored = github.add_comment(7, f"{MARKER}\nscored: 71.50", user="github-actions[bot]")
    victim.labels = [LABEL_VALID]
    attacker = add_pull(github, number=8, sha=FORK_SHA)  # contributor/board:add-my-run
    github.requests.clear()
    with pytest.raises(InputError, match="no pull request was touched") as caught:
        comment_pr(event_path=FORK_EVENT,
                    bundle_path=write_bundle(make_bundle(pr=7), tmp_path), client=client)
    assert "#7" in str(caught.value) and "#8" in str(caught.value)
    assert _writes(github) == []
    assert scored["body"].endswith("scored: 71.50") and victim.labels == [LABEL_VALID]
    assert attacker.comments == [] and attacker.labels == []
    # the same with #8 closed: #7 is open but not from the run's branch
    attacker.state = "closed"
    with pytest.raises(InputError, match="not an open pull request from contributor/board"):
        comment_pr(event_path=FORK_EVENT,
                    bundle_path=write_bundle(make_bundle(pr=7), tmp_path), client=client)
    assert _writes(github) == [] and victim.labels == [LABEL_VALID]


def test_a_bundle_lying_about_its_commit_is_rejected_without_touching_the_pr(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    add_pull(github)
    with pytest.raises(InputError, match="no pull request was touched"):
        comment_pr(event_path=FORK_EVENT,
                    bundle_path=write_bundle(make_bundle(sha="e" * 40), tmp_path),
                    client=client)
    assert _writes(github) == [] and github.pulls[7].comments == []


NEWER_SHA = "c0ffee0000000000000000000000000000000009"


def test_an_older_heads_run_never_replaces_the_newer_heads_comment(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    """Issue 26, point 5: the run of the newer head commented first; the older head's run
    finishes later and must write nothing (not even a "needs a maintainer")."""
    pull = add_pull(github, sha=NEWER_SHA)
    newer = github.add_comment(7, f"{MARKER}\nscore for {NEWER_SHA[:12]}",
                               user="github-actions[bot]")
    pull.labels = [LABEL_VALID]
    github.requests.clear()
    outcome = comment_pr(event_path=FORK_EVENT,
                          bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert outcome.skipped is not None and "#7" in outcome.skipped
    assert _writes(github) == []
    assert newer["body"].endswith(f"score for {NEWER_SHA[:12]}") and pull.labels == [LABEL_VALID]


def test_a_push_while_the_comment_is_prepared_stops_the_write(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    pull = add_pull(github)

    def push() -> None:
        pull.head_sha = NEWER_SHA

    github.hooks.append(("GET", r".*/pulls/7/files", push))
    outcome = comment_pr(event_path=FORK_EVENT,
                          bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert outcome.skipped is not None
    assert _writes(github) == [] and pull.comments == []


def test_a_closed_pr_gets_nothing(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    add_pull(github).state = "closed"
    outcome = comment_pr(event_path=FORK_EVENT,
                          bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert outcome.skipped is not None and _writes(github) == []


def test_a_listing_cut_at_githubs_3000_file_cap_needs_a_maintainer(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    """Issue 26, point 6: 3,001 files, the one outside submissions/ past the listing cap."""
    files = [f"submissions/slugkit-options/s{i}/submission.yaml" for i in range(3000)]
    add_pull(github, files=[*files, "setup.py"])
    outcome = comment_pr(event_path=FORK_EVENT,
                          bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert outcome.conclusion == "needs review" and outcome.labels == {LABEL_REVIEW}
    assert outcome.gate == [
        "GitHub lists only 3,000 of the 3,001 files this PR changes, so the rest could not "
        "be checked: a maintainer must review it (or the contributor splits it into smaller "
        "PRs)"]
    assert "71.50" not in _bot_comments(github)[0]["body"]
    # exactly at the cap every file was listed: no gate
    github.pulls[7].files = files
    whole = comment_pr(event_path=FORK_EVENT,
                        bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert whole.conclusion == "valid" and whole.gate == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"pr_number": "7; rm -rf /"}', "does not match the schema"),
        (b"[]", "does not match the schema"),
        (b" " * (MAX_BUNDLE_BYTES + 1), "over the"),
        # small, but nested deeper than Python's JSON reader can follow
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (b'{"pr_number": 7, "x": ' + b"{\"a\": " * 50_000 + b"1" + b"}" * 50_001,
         "nested too deep"),
    ],
)
def test_malformed_or_oversized_bundles_are_refused_before_any_api_call(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path, content: bytes, expected: str
) -> None:
    add_pull(github)
    path = tmp_path / "bundle.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=expected) as caught:
        comment_pr(event_path=FORK_EVENT, bundle_path=path, client=client)
    assert "bundle.json" in str(caught.value)
    assert github.requests == [] and github.pulls[7].comments == []


def test_a_bundle_that_is_no_plain_file_is_refused_before_any_api_call(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    """The artifact is the untrusted run's: a bundle.json that is a symbolic link (to a
    file of the trusted runner, or to /dev/zero, which reads forever) or a special file is
    not read at all."""
    add_pull(github)
    genuine = write_bundle(make_bundle(), tmp_path / "elsewhere")
    for target in (genuine, Path("/dev/zero")):
        link = tmp_path / "artifact" / "bundle.json"
        link.parent.mkdir(exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        with pytest.raises(InputError, match="not a regular file") as caught:
            comment_pr(event_path=FORK_EVENT, bundle_path=link, client=client)
        assert "bundle.json" in str(caught.value)
    fifo = tmp_path / "fifo" / "bundle.json"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    folder = tmp_path / "folder" / "bundle.json"  # an artifact holding bundle.json/...
    folder.mkdir(parents=True)
    for special in (fifo, folder):
        with pytest.raises(InputError, match="not a regular file"):
            comment_pr(event_path=FORK_EVENT, bundle_path=special, client=client)
    assert github.requests == [] and github.pulls[7].comments == []


def test_a_non_numeric_pr_number_is_refused(tmp_path: Path) -> None:
    data = make_bundle().model_dump(mode="json")
    data["pr_number"] = "7"  # JSON strings are not numbers, even digits
    path = write_json(tmp_path / "bundle.json", data)
    from arena_bot.bot.bundle import load_bundle

    with pytest.raises(InputError, match="pr_number"):
        load_bundle(path)


def test_a_pasted_marker_cannot_hijack_the_comment(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    # A contributor pastes the marker (with a fake score) before the bot ever commented.
    add_pull(github)
    forged = github.add_comment(7, f"{MARKER}\n## Agentic Arena: valid\nOverall 100.00",
                                user="mallory")
    bundle = write_bundle(make_bundle(), tmp_path)
    first = comment_pr(event_path=FORK_EVENT, bundle_path=bundle, client=client)
    assert first.created  # the bot wrote its own comment, it did not edit mallory's
    assert forged["body"].endswith("Overall 100.00")
    ours = [c for c in github.pulls[7].comments if c["user"]["login"] == "github-actions[bot]"]
    assert len(ours) == 1 and "71.50" in ours[0]["body"]
    # later runs keep editing the bot's own comment, never the pasted one
    second = comment_pr(event_path=FORK_EVENT, bundle_path=bundle, client=client)
    assert not second.created and second.url == ours[0]["html_url"]
    assert forged["body"].endswith("Overall 100.00")
    assert len(github.pulls[7].comments) == 2


def test_a_bot_running_under_another_login_finds_its_own_comment(
    github: FakeGitHub, tmp_path: Path
) -> None:
    add_pull(github)
    mine = github.add_comment(7, f"{MARKER}\nold", user="arena-app[bot]")
    github.add_comment(7, f"{MARKER}\nold", user="github-actions[bot]")  # not this bot now
    settings = GitHubSettings.from_env({
        "GITHUB_API_URL": github.base, "GITHUB_REPOSITORY": "arena/board",
        "GITHUB_TOKEN": TOKEN, "ARENA_BOT_LOGIN": "arena-app[bot]"})
    client = GitHubClient(settings, throttle=False)
    outcome = comment_pr(event_path=FORK_EVENT,
                          bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert not outcome.created and outcome.url == mine["html_url"]
    assert "71.50" in mine["body"]


def test_a_pr_from_another_fork_than_the_run_built_is_not_written(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path
) -> None:
    # Same commit, but the PR's head lives in another fork than the one the run evaluated.
    add_pull(github, head_repo="someone-else/board")
    with pytest.raises(InputError, match="not an open pull request from contributor/board"):
        comment_pr(event_path=FORK_EVENT,
                    bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert _writes(github) == []
    github.pulls[7].head_repo = None  # the fork was deleted since
    with pytest.raises(InputError, match="no pull request was touched"):
        comment_pr(event_path=FORK_EVENT,
                    bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert _writes(github) == []


@pytest.mark.parametrize("path", [
    "submissions/README.md",
    "submissions/slugkit-options/README.md",
    "submissions/slugkit-options/./x/run.patch",
])
def test_files_under_submissions_but_outside_a_submission_folder_need_a_maintainer(
    github: FakeGitHub, client: GitHubClient, tmp_path: Path, path: str
) -> None:
    add_pull(github, files=["submissions/slugkit-options/x/submission.yaml", path])
    outcome = comment_pr(event_path=FORK_EVENT,
                          bundle_path=write_bundle(make_bundle(), tmp_path), client=client)
    assert outcome.conclusion == "needs review" and outcome.labels == {LABEL_REVIEW}
    assert path in outcome.gate[0] and "outside a submission folder" in outcome.gate[0]
