"""Shared field types for the public formats."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

#: How bad a validation finding is: ``error`` makes a submission invalid, ``warning`` does
#: not. (Not a merge conflict's severity: :data:`.evaluation.ConflictSeverity`.)
Level = Literal["error", "warning"]

#: Characters that can make text render differently from what it says: C0/C1 controls
#: (except tab and newline in free text), bidi overrides and isolates, zero-width characters,
#: the Unicode line and paragraph separators (a line break to JavaScript and some renderers).
_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2028\u2029"
    "\u2060-\u2069\ufeff]"
)


def _clean_text(value: str) -> str:
    if _INVISIBLE.search(value):
        raise ValueError(
            "contains control, zero-width, line-separator or bidirectional-override "
            "characters; use plain printable text"
        )
    return unicodedata.normalize("NFC", value)


def _clean_name(value: str) -> str:
    value = _clean_text(value)
    if "\n" in value or "\t" in value:
        raise ValueError("must be a single line")
    if not value.strip():
        raise ValueError("must not be blank")
    return value


#: A short single-line display name (tool, model, contributor, titles).
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=100), AfterValidator(_clean_name)
]
#: Free multi-line text written by a person (descriptions, notes).
Text = Annotated[str, StringConstraints(max_length=5000), AfterValidator(_clean_text)]
#: Identifiers used in paths and URLs: tasks, submissions, runs.
Identifier = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,79}$")
]
#: A file name inside a submission folder (no folders, no tricks).
LocalFile = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
]
#: A relative path inside a repository, POSIX style.
RepoPath = Annotated[
    str,
    StringConstraints(min_length=1, max_length=300),
    AfterValidator(lambda v: _relative_path(v)),
]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]


def _relative_path(value: str) -> str:
    value = _clean_name(value)
    parts = value.split("/")
    if value.startswith("/") or "\\" in value or ".." in parts or value.startswith("~"):
        raise ValueError("must be a relative POSIX path inside the repository, without '..'")
    return value


class StrictModel(BaseModel):
    """Base for formats written by people: unknown keys and loose type coercion are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RecordModel(BaseModel):
    """Base for formats written by the program (JSON round trips, so not strict)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
