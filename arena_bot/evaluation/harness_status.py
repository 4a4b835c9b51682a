"""The structured status the in-container harness (``harness.sh setup``) prints last: one
JSON document on a line that carries a per-run nonce. ``setup`` runs before any submitted code
and as another uid than the tests, which run in a later exec: nothing the tests do can change
it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from arena_bot.models.evaluation import ApplyStatus

#: Version of the status document; bump with any change to ``harness.sh``.
VERSION = 5


class HarnessStatus(BaseModel):
    """What ``harness.sh setup`` did: the submission's apply status, whether the tests patch
    (and canaries) went in, and a short error code when the repository could not be reset."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[5]
    apply: ApplyStatus
    tests_applied: bool
    error: Literal["", "reset", "results"] = ""
    #: What the canary placement chose (``canary_place.py``): the names of the passing and
    #: failing canary (``pass``, ``fail``) and their classes (``pass_class``, ``fail_class``,
    #: empty for a top-level function); ``None`` when no canary was placed.
    canaries: dict[str, str] | None = None


def parse_status(output: str, *, nonce: str) -> tuple[HarnessStatus | None, str]:
    """The status in ``output`` and the output without its status line (``None`` when the
    harness printed no valid status: it was killed, or is not this version)."""
    marker = f"arena-status {nonce} "
    before, found, after = output.rpartition(marker)
    if not found:
        return None, output
    document, _, rest = after.partition("\n")
    try:
        status = HarnessStatus.model_validate_json(document)
    except ValidationError:
        return None, output
    return status, (before + rest).strip("\n")
