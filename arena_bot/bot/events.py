"""GitHub event payloads (``GITHUB_EVENT_PATH``): the few fields the bot reads.

Of a ``workflow_run`` the ``head_sha``, ``head_branch`` and ``head_repository`` are trusted
(GitHub sets them); its ``pull_requests`` is not read (empty for fork PRs): the PR is asked
of the API. Each mode runs on one kind of event (``TRIGGERS``); inside Actions
(``GITHUB_EVENT_NAME``) any other is refused before anything is done.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from arena_bot.core.errors import InputError, UsageError, first_problem

M = TypeVar("M", bound=BaseModel)

#: Event files are a few kilobytes; refuse anything absurd before parsing.
MAX_EVENT_BYTES = 5 * 1024 * 1024


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Head(_Loose):
    sha: str


class _PullRequest(_Loose):
    number: int
    head: _Head


class PullRequestEvent(_Loose):
    number: int
    pull_request: _PullRequest


class _Repository(_Loose):
    full_name: str


class _WorkflowRun(_Loose):
    id: int
    head_sha: str
    #: What triggered the run (``pull_request`` for the PR evaluation).
    event: str
    conclusion: str | None = None
    head_branch: str | None = None
    #: The repository the evaluated commit came from (the fork, for a fork PR).
    head_repository: _Repository | None = None


class WorkflowRunEvent(_Loose):
    action: str
    workflow_run: _WorkflowRun

    def nothing_to_say(self) -> str | None:
        """Why this run has no PR evaluation to comment on (``None``: it has one). Only a
        completed run of a ``pull_request`` event that succeeded or failed (an invalid
        submission) uploaded a bundle; a cancelled one was replaced by a newer push."""
        run = self.workflow_run
        if self.action != "completed" or run.event != "pull_request":
            return (f"workflow run {run.id} is a {self.action} run of a {run.event} event, not "
                    "a completed pull request evaluation: nothing to comment on")
        if run.conclusion not in ("success", "failure"):
            ended = f"concluded {run.conclusion}" if run.conclusion else "has no conclusion"
            return (f"workflow run {run.id} {ended}: the evaluation did not finish, so there "
                    "is nothing to comment on (a cancelled run was replaced by a newer push; "
                    "re-run the PR evaluation otherwise)")
        return None


#: The events each mode runs on, as the workflows trigger it. ``pull_request_target`` is
#: not one: it runs with a write token and secrets, never the place for a PR's own code.
TRIGGERS: dict[str, tuple[str, ...]] = {
    "evaluate-pr": ("pull_request",),
    "comment": ("workflow_run",),
    "publish": ("push", "workflow_dispatch", "schedule"),
}


class _DefaultBranch(_Loose):
    default_branch: str | None = None


class BranchEvent(_Loose):
    """What a push or workflow_dispatch says of its branch."""

    ref: str | None = None
    deleted: bool = False
    repository: _DefaultBranch | None = None


def check_trigger(mode: str, env: Mapping[str, str]) -> None:
    """Inside Actions, refuse to run ``mode`` on an event it is not made for (a UsageError,
    raised before the command does anything). Publishing also needs the default branch: a
    push of a tag, of another branch or a branch deletion publishes nothing."""
    name = env.get("GITHUB_EVENT_NAME")
    if not name:
        return
    allowed = TRIGGERS[mode]
    hint = ("run each mode from the workflows in the README: evaluate-pr on pull_request, "
            "comment on workflow_run, plan / evaluate-units / publish on a push to the "
            "default branch")
    if name not in allowed:
        raise UsageError(f"`arena bot {mode}` runs on {' or '.join(allowed)} events; this "
                         f"job was triggered by {name}: nothing done", hint=hint)
    path = env.get("GITHUB_EVENT_PATH")
    if mode != "publish" or name == "schedule" or not path:
        return
    event = load_event(Path(path), BranchEvent)
    default = event.repository.default_branch if event.repository else None
    if event.deleted or (default and event.ref != f"refs/heads/{default}"):
        raise UsageError(
            f"`arena bot {mode}` publishes the default branch ({default}); this {name} "
            f"{'deleted' if event.deleted else 'is for'} {event.ref}: nothing published",
            hint=hint)


def load_event(path: Path, model: type[M]) -> M:
    """Read ``path`` as ``model``; every failure names the file and the expected event."""
    name = model.__name__.removesuffix("Event")
    try:
        if path.stat().st_size > MAX_EVENT_BYTES:
            raise InputError("event file is too large to be a GitHub event", path=path)
        return model.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise InputError(
            f"cannot read the event file: {exc.strerror}", path=path,
            hint="pass --event FILE or run inside GitHub Actions (GITHUB_EVENT_PATH)",
        ) from None
    except ValidationError as exc:
        raise InputError(
            f"not a {name} event payload: {first_problem(exc)}", path=path,
            hint="check that the workflow runs this mode on the right trigger",
        ) from None
