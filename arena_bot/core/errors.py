"""The one error hierarchy of the project.

Every error a user can cause is an :class:`ArenaError`: it carries a message that says what
happened, where (file and line when known) and what to do, plus the exit code the CLI returns.
The CLI catches them in exactly one place (``arena_bot.cli.main``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class ArenaError(Exception):
    """Base class for errors a user can act on."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line
        self.hint = hint

    def location(self) -> str:
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def __str__(self) -> str:
        where = self.location()
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def first_problem(exc: ValidationError, *, top: str = "(top level)") -> str:
    """The first problem pydantic found, as ``field.path: message`` (``top`` names the
    document itself; an empty ``top``: the message alone)."""
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or top
    return f"{where}: {error['msg']}" if where else error["msg"]


class UsageError(ArenaError):
    """The command was called wrongly (bad option combination, missing path)."""

    exit_code = 2


class InputError(ArenaError):
    """A file a user wrote (task, submission, patch) cannot be read or is invalid."""


class DatasetError(InputError):
    """A task folder in ``dataset/`` is missing or malformed."""


class NoWheelError(DatasetError):
    """A dependency has no wheel for this platform, only its source (building it needs a
    compiler or system libraries, which task images do not have)."""

    def __init__(self, message: str, *, missing: tuple[str, ...], hint: str | None = None
                 ) -> None:
        super().__init__(message, hint=hint)
        #: The requirements pip found no wheel of.
        self.missing = missing


class SandboxError(ArenaError):
    """The container engine is unreachable or failed in a way that is not the submission's fault."""


class MergeError(ArenaError):
    """Merge analysis could not run (not a conflict: conflicts are results, not errors)."""


class JudgeError(ArenaError):
    """The LLM judge endpoint failed or answered something that cannot be parsed."""


class GitHubError(ArenaError):
    """The GitHub API refused or failed a request."""
