"""Each mode on the real webhook payloads it may be handed (octokit/webhooks' examples, see
tests/bot/data/README.md), run through action.yml's own ``run:`` step with a runner's
environment (support.actionrunner: GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, ...), in real git
checkouts and against the independent GitHub API server. No Docker: the PR's submission is
invalid, the published board empty. What is checked: the right exit status, a clear message
and no traceback, and nothing written to GitHub or the data branch where nothing may be."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.actionrunner import ActionRun, Runner
from support.botdata import OCTOKIT, make_bundle, write_json
from support.fixture_task import copy_fixture_task
from support.gitrepo import GIT_ENV, clone_main, git, new_remote, push_main
from support.httpserver import serving
from support.restgithub import Repository, RestServer

from arena_bot.bot.bundle import write_bundle

REPO = Path(__file__).resolve().parents[2]
TOKEN = "ghs_runner_token"
FILE = "submissions/calc-fixture/mine/submission.yaml"


def _payload(name: str, **changes: Any) -> dict[str, Any]:
    """A real payload with the dotted fields in ``changes`` set."""
    data = json.loads((OCTOKIT / name).read_text(encoding="utf-8"))
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
    return data


@pytest.fixture
def github() -> Iterator[Repository]:
    # octokit's workflow_run and push examples are of octo-org/octo-repo
    state = Repository(full_name="octo-org/octo-repo", token=TOKEN)
    with serving(RestServer(state)):
        yield state


@pytest.fixture
def board(tmp_path: Path, fixture_task_root: Path) -> tuple[Path, str]:
    """A leaderboard repository with a task and no submission yet (bare remote) and its
    main commit."""
    bare, seed = new_remote(tmp_path)
    copy_fixture_task(fixture_task_root, seed)
    (seed / "submissions").mkdir()
    (seed / "submissions" / "README.md").write_text("Submissions go here.\n")
    (seed / ".gitignore").write_text(".arena/\npublic/\narena-units/\narena-bundle/\n")
    return bare, push_main(seed, "empty board")


def _run(tmp_path: Path, github: Repository, workspace: Path, event_name: str,
         payload: dict[str, Any], inputs: dict[str, str]) -> ActionRun:
    """action.yml with ``inputs`` on ``payload`` as the runner gives a job triggered by
    ``event_name``; the bot's virtual environment is this test's (the install is skipped)."""
    temp = tmp_path / "runner-temp"
    if not temp.exists():
        temp.mkdir()
        (temp / "arena-venv").symlink_to(Path(sys.executable).parent.parent)
    python = str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())
    runner = Runner(action_path=REPO, python=python, token=TOKEN, env={
        **GIT_ENV, "GITHUB_REPOSITORY": github.full_name, "GITHUB_API_URL": github.base})
    event = write_json(tmp_path / f"{event_name}.json", payload)
    return runner.run(workspace, temp, event, inputs, event_name=event_name,
                      skip=frozenset({"install"}))


def _writes(github: Repository) -> list[tuple[str, str]]:
    return [(m, p) for m, p in github.requests if m != "GET"]


@pytest.mark.matrix  # each case runs the Action's steps (tests/support/tiers.py)
@pytest.mark.parametrize(("name", "changes", "said"), [
    # as upstream: runs of a repository_dispatch, completed or only requested
    ("workflow_run_completed.payload.json", {}, "of a repository_dispatch event"),
    ("workflow_run_requested.payload.json", {"workflow_run__event": "pull_request"},
     "a requested run of a pull_request event"),
    # a first-time contributor's run waiting for approval: it never ran, uploaded nothing
    ("workflow_run_requested.with-conclusion.payload.json",
     {"action": "completed", "workflow_run__event": "pull_request"}, "concluded action_required"),
    ("workflow_run_completed.payload.json",
     {"workflow_run__event": "pull_request", "workflow_run__conclusion": "cancelled"},
     "concluded cancelled"),
])
def test_a_run_that_is_no_finished_pr_evaluation_is_not_commented_on(
    tmp_path: Path, github: Repository, board: tuple[Path, str], name: str,
    changes: dict[str, Any], said: str,
) -> None:
    payload = _payload(name, **changes)
    run = payload["workflow_run"]
    pull = github.open_pull(2, head_sha=run["head_sha"], files=[FILE],
                            head_repo=run["head_repository"]["full_name"],
                            head_ref=run["head_branch"])
    trusted = clone_main(board[0], tmp_path / "trusted")
    write_bundle(make_bundle(pr=2, sha=run["head_sha"]), trusted / "arena-bundle")
    done = _run(tmp_path, github, trusted, "workflow_run", payload, {"mode": "comment"})
    assert done.returncode == 0, done.log
    assert said in done.log and "nothing to comment on" in done.log
    assert _writes(github) == [] and pull.comments == [] and pull.labels == []


def test_a_pr_whose_fork_was_deleted_is_named_as_such(
    tmp_path: Path, github: Repository, board: tuple[Path, str]
) -> None:
    payload = _payload("workflow_run_completed.payload.json", workflow_run__event="pull_request")
    run = payload["workflow_run"]
    github.open_pull(2, head_sha=run["head_sha"], files=[FILE], head_repo=None,
                     head_ref=run["head_branch"])
    trusted = clone_main(board[0], tmp_path / "trusted")
    write_bundle(make_bundle(pr=2, sha=run["head_sha"]), trusted / "arena-bundle")
    done = _run(tmp_path, github, trusted, "workflow_run", payload, {"mode": "comment"})
    assert done.returncode == 1
    assert "PR #2's head repository was deleted" in done.log, done.log
    assert "Traceback" not in done.log and _writes(github) == []


@pytest.mark.matrix  # each case runs the Action's steps (tests/support/tiers.py)
@pytest.mark.parametrize(("event_name", "name", "mode", "said"), [
    # the same payload as pull_request, but with a write token: never the PR's code
    ("pull_request_target", "pull_request_opened.payload.json", "evaluate-pr",
     "runs on pull_request events; this job was triggered by pull_request_target"),
    ("issue_comment", "issue_comment_created.payload.json", "evaluate-pr",
     "triggered by issue_comment"),
    ("pull_request", "pull_request_synchronize.payload.json", "comment",
     "runs on workflow_run events; this job was triggered by pull_request"),
    ("push", "push_with-new-branch.payload.json", "comment", "triggered by push"),
    # the publish workflow's plan and matrix jobs: never on a PR's events, and only for the
    # default branch (a PR's submissions evaluated with a write token, or a stray branch's
    # results gathered for the store, are what this prevents)
    ("pull_request", "pull_request_synchronize.payload.json", "plan",
     "`arena bot plan` runs on push or workflow_dispatch or schedule events; this job was "
     "triggered by pull_request"),
    ("pull_request_target", "pull_request_opened.payload.json", "evaluate-units",
     "`arena bot evaluate-unit` runs on push or workflow_dispatch or schedule events; this "
     "job was triggered by pull_request_target"),
    ("push", "push_with-new-branch.payload.json|refs/heads/feature", "plan",
     "this push is for refs/heads/feature: nothing done"),
    ("push", "push.payload.json", "evaluate-units",
     "this push deleted refs/tags/simple-tag: nothing done"),
    ("pull_request", "pull_request_opened.payload.json", "publish",
     "triggered by pull_request"),
])
def test_a_mode_on_an_event_it_is_not_made_for_does_nothing(
    tmp_path: Path, github: Repository, board: tuple[Path, str], event_name: str, name: str,
    mode: str, said: str,
) -> None:
    name, _, ref = name.partition("|")
    payload = _payload(name, **({"ref": ref} if ref else {}))
    workspace = _pr_checkout(tmp_path, board, payload)
    if mode == "comment":
        write_bundle(make_bundle(pr=2), workspace / "arena-bundle")
    # the matrix job's inputs as the publish workflow gives them (the plan is not there:
    # the event is refused before it is read)
    inputs = {"mode": mode, **({"shard": "0"} if mode == "evaluate-units" else {})}
    done = _run(tmp_path, github, workspace, event_name, payload, inputs)
    assert done.returncode == 2, done.log
    assert said in done.log and "Traceback" not in done.log
    assert "plan.json" not in done.log
    assert _writes(github) == []
    assert not (tmp_path / "runner-temp" / "arena-bundle" / "bundle.json").exists()
    assert "matrix" not in done.steps["run"]  # plan set no matrix, wrote no plan
    assert not (tmp_path / "runner-temp" / "arena-plan").exists()
    assert not list((tmp_path / "runner-temp").glob("arena-units/*"))  # no unit evaluated
    assert "arena-data" not in git("ls-remote", "--heads", str(board[0]), cwd=tmp_path)


def _pr_checkout(tmp_path: Path, board: tuple[Path, str], payload: dict[str, Any]) -> Path:
    """A checkout whose last commit adds an (invalid) submission; a pull_request payload
    gets its base and head set to these commits."""
    pr = clone_main(board[0], tmp_path / "pr")
    folder = pr / "submissions" / "calc-fixture" / "mine"
    folder.mkdir(parents=True)
    (folder / "submission.yaml").write_text("task: calc-fixture\n")
    git("add", "-A", cwd=pr)
    git("commit", "--quiet", "-m", "my run", cwd=pr)
    if "pull_request" in payload:
        payload["pull_request"]["base"]["sha"] = board[1]
        payload["pull_request"]["head"]["sha"] = git("rev-parse", "HEAD", cwd=pr).strip()
    return pr


@pytest.mark.matrix  # each case runs the Action's steps (tests/support/tiers.py)
@pytest.mark.parametrize("name", [
    "pull_request_opened.payload.json", "pull_request_synchronize.payload.json",
    "pull_request_closed.payload.json", "pull_request_opened.payload.json|draft"])
def test_every_pull_request_action_is_evaluated_as_its_head(
    tmp_path: Path, github: Repository, board: tuple[Path, str], name: str
) -> None:
    """opened, synchronize and closed (not merged), and a draft (evaluated like any PR, as
    GitHub runs checks on drafts: see the README): the bundle names the payload's PR and
    head, whatever the action; the invalid submission is annotated, exit 1."""
    name, _, draft = name.partition("|")
    payload = _payload(name, **({"pull_request__draft": True} if draft else {}))
    workspace = _pr_checkout(tmp_path, board, payload)
    done = _run(tmp_path, github, workspace, "pull_request", payload, {"mode": "evaluate-pr"})
    assert done.returncode == 1 and "Traceback" not in done.log, done.log
    assert f"::error file={FILE}" in done.log
    bundle = json.loads((Path(done.steps["run"]["bundle-dir"]) / "bundle.json").read_text())
    assert (bundle["pr_number"], bundle["head_sha"]) == (
        payload["number"], payload["pull_request"]["head"]["sha"])


@pytest.mark.matrix  # each case runs the Action's steps (tests/support/tiers.py)
@pytest.mark.parametrize(("event_name", "name", "said"), [
    # octokit's push example deletes the tag simple-tag
    ("push", "push.payload.json", "this push deleted refs/tags/simple-tag"),
    ("push", "push_with-new-branch.payload.json|refs/tags/v1", "is for refs/tags/v1"),
    ("push", "push_with-new-branch.payload.json|refs/heads/feature", "is for refs/heads/feature"),
    # a PR closed without being merged, as a workflow reacting to it would hand it on
    ("pull_request", "pull_request_closed.payload.json", "triggered by pull_request"),
    ("pull_request_target", "pull_request_closed.payload.json",
     "triggered by pull_request_target"),
])
def test_publish_only_from_the_default_branch(
    tmp_path: Path, github: Repository, board: tuple[Path, str], event_name: str, name: str,
    said: str,
) -> None:
    name, _, ref = name.partition("|")
    payload = _payload(name, **({"ref": ref} if ref else {}))
    workspace = clone_main(board[0], tmp_path / "build")
    done = _run(tmp_path, github, workspace, event_name, payload, {"mode": "publish"})
    assert done.returncode == 2, done.log
    assert said in done.log and "nothing" in done.log and "Traceback" not in done.log
    assert "arena-data" not in git("ls-remote", "--heads", str(board[0]), cwd=tmp_path)
    assert not (workspace / "public").exists()


def test_publish_on_a_push_to_the_default_branch(
    tmp_path: Path, github: Repository, board: tuple[Path, str]
) -> None:
    payload = _payload("push_with-new-branch.payload.json")
    assert payload["ref"] == f"refs/heads/{payload['repository']['default_branch']}"
    workspace = clone_main(board[0], tmp_path / "build")
    done = _run(tmp_path, github, workspace, "push", payload, {"mode": "publish"})
    assert done.returncode == 0, done.log
    assert (workspace / "public" / "data" / "leaderboard.json").is_file()
    assert "arena-data" in git("ls-remote", "--heads", str(board[0]), cwd=tmp_path)
