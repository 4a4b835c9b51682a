"""GitHub event payloads (``GITHUB_EVENT_PATH``): the few fields the bot reads.

Of a ``workflow_run`` the ``head_sha``, ``head_branch`` and ``head_repository`` are trusted
(GitHub sets them); ``pull_requests`` is empty for fork PRs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from arena_bot.core.errors import InputError, first_problem

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


class _RunPullRequest(_Loose):
    number: int


class _Repository(_Loose):
    full_name: str


class _WorkflowRun(_Loose):
    id: int
    head_sha: str
    event: str = "pull_request"
    conclusion: str | None = None
    pull_requests: list[_RunPullRequest] = []
    head_branch: str | None = None
    #: The repository the evaluated commit came from (the fork, for a fork PR).
    head_repository: _Repository | None = None


class WorkflowRunEvent(_Loose):
    action: str
    workflow_run: _WorkflowRun


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
