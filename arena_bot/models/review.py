"""The review file: a maintainer's decision on a flagged submission, committed to the
repository as ``reviews/<task>/<submission>.yaml``.

It names the flags it clears (each as the board shows it: ``kind``, ``file``, ``line``), who
cleared them and why. An entry is ``cleared`` only when every one of its current flags is
named; a flag the file does not name (a new flag after the submission changed, say) keeps
the entry under review. ``metrics_repeated`` records that the maintainer repeated the run
and saw figures in line with the submitted ones (the ``maintainer-repeated`` level).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, PositiveInt

from arena_bot.models.common import Identifier, StrictModel, Text

#: A GitHub login.
Login = Annotated[str, Field(pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")]


class ClearedFlag(StrictModel):
    """One flag the review clears, spelt as the board shows it."""

    kind: Annotated[str, Field(min_length=1, max_length=80)]
    #: The flag's file; leave out for a flag without one.
    file: Annotated[str, Field(min_length=1, max_length=300)] | None = None
    #: The flag's line; leave out for a flag without one.
    line: PositiveInt | None = None


class RepeatedRun(StrictModel):
    """The maintainer repeated the submission's run(s) and the figures were in line."""

    runs: Annotated[list[Identifier], Field(min_length=1, max_length=50)]
    note: Text | None = None


class ReviewFile(StrictModel):
    """``reviews/<task>/<submission>.yaml``."""

    schema_version: Literal[1] = 1
    task: Identifier
    submission: Identifier
    #: The maintainer's GitHub login.
    reviewed_by: Login
    date: dt.date
    #: Why the flags are not cheating (what was looked at, what it does).
    reason: Annotated[Text, Field(min_length=10)]
    clears: Annotated[list[ClearedFlag], Field(max_length=200)] = Field(default_factory=list)
    metrics_repeated: RepeatedRun | None = None
