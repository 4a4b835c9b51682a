"""GitHub event payloads (``GITHUB_EVENT_PATH``): the few fields the bot reads.

Of a ``workflow_run`` the ``head_sha``, ``head_branch`` and ``head_repository`` are trusted
(GitHub sets them); its ``pull_requests`` is not read (empty for fork PRs): the PR is asked
of the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from arena_bot.core.errors import InputError, first_problem

M = TypeVar("M", bound=BaseModel)

#: Event files are a few kilobytes; refuse anything absurd before parsing.
MAX_EVENT_BYTES = 5 * 1024 * 1024


#: A commit id as GitHub writes it (SHA-1, lower-case hex).
Sha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
#: A pull request's number: a positive JSON integer (not ``true``, not ``"7"``).
PullNumber = Annotated[int, Field(strict=True, gt=0, lt=10**9)]


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Head(_Loose):
    sha: Sha


class _PullRequest(_Loose):
    number: PullNumber
    head: _Head


class PullRequestEvent(_Loose):
    number: PullNumber
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


class _DefaultBranch(_Loose):
    default_branch: str | None = None


class BranchEvent(_Loose):
    """What a push or workflow_dispatch says of its branch."""

    ref: str | None = None
    deleted: bool = False
    repository: _DefaultBranch | None = None


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
