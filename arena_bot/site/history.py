"""The board's change history: what was added, removed or re-scored between builds.

Every build publishes ``board/snapshot.json``: each entry's score and status, plus the log
of earlier change sets. The next build reads the previous snapshot (the site folder's, or
``--previous``), compares entry by entry and adds one change set to the log; a rebuild of
the same inputs (same ``input_digest``) adds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from arena_bot.core.errors import InputError
from arena_bot.core.yamlio import read_text_capped
from arena_bot.models.common import RecordModel
from arena_bot.models.leaderboard import Leaderboard

#: Change sets kept in the log (the oldest drop off; git history holds the rest).
LOG_SIZE = 20
#: A score moving less than this is rounding, not a re-score.
SCORE_EPSILON = 0.005
SNAPSHOT = "snapshot.json"
#: A snapshot holds some 200 bytes per entry and 20 change sets: far below this.
MAX_SNAPSHOT_BYTES = 1 << 30
_AFRESH = ("pass the previous site's board/snapshot.json with --previous, or delete this file "
           "to start the change history afresh")


class EntryState(RecordModel):
    task_id: str
    label: str
    status: str
    overall: float | None
    needs_review: bool


class Change(RecordModel):
    key: str
    task_id: str
    label: str
    kind: Literal["added", "removed", "rescored", "flagged", "unflagged"]
    before: float | None = None
    after: float | None = None
    detail: str = ""


class ChangeSet(RecordModel):
    from_digest: str
    to_digest: str
    built_from: str
    updated: str
    changes: list[Change]


class Snapshot(RecordModel):
    """What one build published: enough to compare the next build against."""

    schema_version: Literal[1] = 1
    input_digest: str
    built_from: str
    updated: str
    entries: dict[str, EntryState]
    #: Newest first.
    log: list[ChangeSet]


def states(board: Leaderboard) -> dict[str, EntryState]:
    return {
        e.key: EntryState(task_id=e.task_id, label=e.label, status=e.status,
                          overall=e.scores.overall if e.scores else None,
                          needs_review=e.review_status == "under-review")
        for e in board.entries
    }


def read_previous(path: Path) -> Snapshot | None:
    """The previous build's snapshot; ``None`` when there is none (the first build). A
    device, a FIFO or a folder is refused unopened, as is a file over
    :data:`MAX_SNAPSHOT_BYTES`."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        pass  # read_text_capped says what is wrong
    try:
        text = read_text_capped(path, limit=MAX_SNAPSHOT_BYTES, what="the previous snapshot")
    except InputError as exc:  # its hint is a contributor's (large logs and the like)
        raise InputError(exc.message, path=path, line=exc.line, hint=_AFRESH) from None
    try:
        return Snapshot.model_validate_json(text)
    except (ValidationError, ValueError):
        raise InputError("not a snapshot.json written by `arena site build`", path=path,
                         hint=_AFRESH) from None


def compare(before: dict[str, EntryState], after: dict[str, EntryState]) -> list[Change]:
    """Entry by entry: added, removed, re-scored (score or status moved), (un)flagged."""
    changes: list[Change] = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old is None and new is not None:
            changes.append(Change(key=key, task_id=new.task_id, label=new.label, kind="added",
                                  after=new.overall, detail=new.status))
        elif new is None and old is not None:
            changes.append(Change(key=key, task_id=old.task_id, label=old.label,
                                  kind="removed", before=old.overall, detail=old.status))
        elif old is not None and new is not None:
            changes.extend(_moved(key, old, new))
    return changes


def _moved(key: str, old: EntryState, new: EntryState) -> list[Change]:
    found: list[Change] = []
    moved = (old.overall is None) != (new.overall is None) or (
        old.overall is not None and new.overall is not None
        and abs(old.overall - new.overall) >= SCORE_EPSILON
    )
    if moved or old.status != new.status:
        detail = new.status if old.status == new.status else f"{old.status} → {new.status}"
        found.append(Change(key=key, task_id=new.task_id, label=new.label, kind="rescored",
                            before=old.overall, after=new.overall, detail=detail))
    if old.needs_review != new.needs_review:
        found.append(Change(key=key, task_id=new.task_id, label=new.label,
                            kind="flagged" if new.needs_review else "unflagged",
                            before=old.overall, after=new.overall))
    return found


def next_snapshot(board: Leaderboard, previous: Snapshot | None, *, built_from: str,
                  updated: str) -> Snapshot:
    """This build's snapshot: the previous log plus what changed since (if anything)."""
    current = states(board)
    log = list(previous.log) if previous else []
    if previous is not None and previous.input_digest != board.input_digest:
        change_set = ChangeSet(
            from_digest=previous.input_digest, to_digest=board.input_digest,
            built_from=built_from, updated=updated,
            changes=compare(previous.entries, current),
        )
        log = [change_set, *log][:LOG_SIZE]
    return Snapshot(input_digest=board.input_digest, built_from=built_from, updated=updated,
                    entries=current, log=log)
