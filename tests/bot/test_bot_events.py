"""The event fixtures are real GitHub webhook payloads (octokit/webhooks' examples) with only
the fields listed in support.botdata.EVENT_CHANGES set, and the bot reads the real ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.botdata import DATA, EVENT_CHANGES, OCTOKIT, adapted_event

from arena_bot.bot.events import PullRequestEvent, WorkflowRunEvent, load_event
from arena_bot.core.errors import InputError


@pytest.mark.parametrize("name", sorted(EVENT_CHANGES))
def test_event_fixtures_match_their_origin(name: str) -> None:
    assert json.loads((DATA / name).read_text(encoding="utf-8")) == adapted_event(name)


@pytest.mark.parametrize("source", sorted(p.name for p in OCTOKIT.glob("workflow_run_*.json")))
def test_real_workflow_run_payloads_load(source: str) -> None:
    event = load_event(OCTOKIT / source, WorkflowRunEvent)
    payload = json.loads((OCTOKIT / source).read_text(encoding="utf-8"))
    raw, run = payload["workflow_run"], event.workflow_run
    assert run.head_sha == raw["head_sha"] and run.head_branch == raw["head_branch"]
    assert run.head_repository is not None
    assert run.head_repository.full_name == raw["head_repository"]["full_name"]
    assert (event.action, run.event, run.conclusion) == (
        payload["action"], raw["event"], raw["conclusion"])


@pytest.mark.parametrize("source", sorted(p.name for p in OCTOKIT.glob("pull_request_*.json")))
def test_real_pull_request_payloads_load(source: str) -> None:
    event = load_event(OCTOKIT / source, PullRequestEvent)
    raw = json.loads((OCTOKIT / source).read_text(encoding="utf-8"))
    assert event.number == raw["number"]
    assert event.pull_request.head.sha == raw["pull_request"]["head"]["sha"]


@pytest.mark.parametrize(("path", "value"), [
    (("number",), -1), (("number",), 0), (("number",), 10**12), (("number",), True),
    (("number",), "7"), (("pull_request", "number"), -1),
    (("pull_request", "head", "sha"), "C0FFEE" + "0" * 34), (("pull_request", "head", "sha"),
                                                            "c0ffee"),
])
def test_a_pull_request_event_the_bundle_could_not_hold_is_refused_when_read(
    tmp_path: Path, path: tuple[str, ...], value: object
) -> None:
    """The bundle takes a positive JSON integer and a 40-hex commit id; the event was read
    laxly, and evaluate-pr stopped at the bundle with pydantic's traceback."""
    payload = json.loads((OCTOKIT / "pull_request_opened.payload.json").read_text("utf-8"))
    place = payload
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(InputError, match="not a PullRequest event payload: " + ".".join(path)):
        load_event(event, PullRequestEvent)


@pytest.mark.parametrize("repository", [None, {"default_branch": None}, {}])
def test_publishing_needs_an_event_that_names_the_default_branch(
    tmp_path: Path, repository: object
) -> None:
    """A push payload without the repository's default branch went ahead as if it were the
    default branch's (GitHub always names it: such a payload was not written by GitHub)."""
    from arena_bot.bot.workflow import check_trigger
    from arena_bot.core.errors import UsageError

    payload = json.loads((OCTOKIT / "push_with-new-branch.payload.json").read_text("utf-8"))
    payload["ref"] = "refs/heads/feature"
    payload["repository"] = repository
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}
    for mode in ("publish", "plan", "aggregate"):
        with pytest.raises(UsageError, match="does not name the repository's default branch"):
            check_trigger(mode, env)
    payload["repository"] = {"default_branch": "feature"}
    event.write_text(json.dumps(payload), encoding="utf-8")
    check_trigger("publish", env)  # the default branch's push goes ahead
