"""Where the site reads the board from: the split files when ``arena score`` wrote them.

Beside ``leaderboard.json``, ``arena score`` writes ``board.json`` (the board without its
entries), ``tasks/<task>.json`` (one task's entries) and ``tasks/digests.json``. The site
reads those when they are there, one task file at a time, and never parses the full
``leaderboard.json`` then (the Data page's download is a copy of the file); the full file
is the fallback for older outputs and hand-made boards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from arena_bot.core.errors import InputError, first_problem
from arena_bot.core.yamlio import read_text_capped
from arena_bot.models.common import RecordModel
from arena_bot.models.leaderboard import Entry, Leaderboard, TaskBoard

_RESCORE = "run `arena score` to write it again"
#: A board file bigger than this is not one ``arena score`` wrote: an entry takes about
#: 4 KB, so this is some 250,000 entries (the site is built for 20,000).
MAX_BOARD_BYTES = 1 << 30


class TaskFile(RecordModel):
    """``tasks/<task>.json`` as ``arena score`` writes it."""

    schema_version: Literal[1] = 1
    task: TaskBoard
    entries: list[Entry]


@dataclass(frozen=True)
class BoardSource:
    """The board to render and the files it came from (offered for download as they are)."""

    board: Leaderboard
    #: ``leaderboard.json`` / ``leaderboard.csv`` on disk, copied to the Data page.
    json_file: Path | None = None
    csv_file: Path | None = None
    #: ``split`` (board.json + tasks/), ``full`` (leaderboard.json) or ``empty``.
    kind: Literal["split", "full", "empty"] = "full"


def load(path: Path) -> BoardSource:
    """The board behind ``path`` (a ``leaderboard.json`` or the folder ``arena score`` wrote):
    the split files when ``board.json`` and ``tasks/digests.json`` are there."""
    folder, full = (path, path / "leaderboard.json") if path.is_dir() else (path.parent, path)
    csv_file = folder / "leaderboard.csv"
    csv = csv_file if csv_file.is_file() else None
    if (folder / "board.json").is_file() and (folder / "tasks" / "digests.json").is_file():
        return BoardSource(board=_load_split(folder),
                           json_file=full if full.is_file() else None, csv_file=csv,
                           kind="split")
    return BoardSource(board=_load_full(full), json_file=full, csv_file=csv, kind="full")


def _read(path: Path, what: str, missing: str, *, missing_hint: str = _RESCORE,
          hint: str = _RESCORE) -> str:
    """The text of one board file. A device, a FIFO or a folder is refused before it is
    opened (``/dev/zero`` would be read until memory runs out, a FIFO waited on forever),
    and so is a file over :data:`MAX_BOARD_BYTES` or not UTF-8."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(missing, path=path, hint=missing_hint) from None
    except OSError:
        pass  # read_text_capped says what is wrong
    try:
        return read_text_capped(path, limit=MAX_BOARD_BYTES, what=what)
    except InputError as exc:  # its hint is a contributor's (large logs and the like)
        raise InputError(exc.message, path=path, line=exc.line, hint=hint) from None


def _load_full(path: Path) -> Leaderboard:
    data = _read(path, "the leaderboard", "no leaderboard here",
                 missing_hint="run `arena score` (or `arena pipeline`) first",
                 hint="pass the leaderboard.json `arena score` wrote, or its folder")
    try:
        return Leaderboard.model_validate_json(data)
    except ValidationError as exc:  # bad JSON too: the first problem says which
        raise InputError("not a leaderboard.json written by `arena score`: "
                         + first_problem(exc, top=""), path=path, hint=_RESCORE) from None
    except ValueError:
        raise InputError("not a leaderboard.json written by `arena score`", path=path,
                         hint=_RESCORE) from None


def _read_json(path: Path, what: str) -> object:
    data = _read(path, what, f"{what} is missing")
    try:
        return json.loads(data)
    except ValueError:
        raise InputError(f"not the {what} written by `arena score` (not JSON)", path=path,
                         hint=_RESCORE) from None


def _load_split(folder: Path) -> Leaderboard:
    """board.json plus every task's file, entries in board order (digests.json is checked
    to cover the same tasks: a task file left from an older board is not read)."""
    board_path = folder / "board.json"
    board_json = _read_json(board_path, "board.json")
    if not isinstance(board_json, dict) or "entries" in board_json:
        raise InputError("not the board.json written by `arena score`", path=board_path,
                         hint=_RESCORE)
    try:
        head = Leaderboard.model_validate({**board_json, "entries": []})
    except ValidationError as exc:
        raise InputError("not the board.json written by `arena score`: "
                         + first_problem(exc, top=""), path=board_path, hint=_RESCORE) from None
    digests_path = folder / "tasks" / "digests.json"
    digests = _read_json(digests_path, "digests.json")
    if not isinstance(digests, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in digests.items()
    ):
        raise InputError("not the digests.json written by `arena score`", path=digests_path,
                         hint=_RESCORE)
    missing = sorted({t.task_id for t in head.tasks} - set(digests))
    if missing:
        raise InputError(f"does not list task {missing[0]!r} of board.json (written by "
                         "another run of `arena score`)", path=digests_path, hint=_RESCORE)
    entries: list[Entry] = []
    for task in head.tasks:
        entries.extend(_task_entries(folder / "tasks" / f"{task.task_id}.json", task))
    return head.model_copy(update={"entries": entries})


def _task_entries(path: Path, task: TaskBoard) -> list[Entry]:
    if Path(task.task_id).name != task.task_id or task.task_id.startswith("."):
        # board.json is a file on disk: a task id must not lead outside tasks/.
        raise InputError(f"task id {task.task_id!r} is not a file name", path=path.parent,
                         hint=_RESCORE)
    data = _read(path, "the task file", f"the task file of {task.task_id!r} is missing")
    try:
        parsed = TaskFile.model_validate_json(data)
    except ValidationError as exc:
        raise InputError("not a task file written by `arena score`: "
                         + first_problem(exc, top=""), path=path, hint=_RESCORE) from None
    if parsed.task.task_id != task.task_id or any(
        e.task_id != task.task_id for e in parsed.entries
    ):
        raise InputError(f"holds another task than {task.task_id!r}", path=path, hint=_RESCORE)
    if parsed.task != task:
        # Same task, other figures: the file and board.json come from different runs
        # (a run stopped half-way through writing them).
        raise InputError(f"does not match task {task.task_id!r} in board.json (written by "
                         "another run of `arena score`)", path=path, hint=_RESCORE)
    return parsed.entries
