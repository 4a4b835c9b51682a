"""``arena score`` at board scale: the board as one part per task.

A task's part of the leaderboard depends only on the task and on its submissions and
results (baselines, ranks, intervals, outlier and duplicate flags are all computed within
one task), so the board is scored one task at a time (:func:`score_task`) and the
board-wide parts (aggregates, input digest, notes) are computed from the parts' small rows
(:func:`board_head`). The bytes written are those of ``build_leaderboard`` over every task
at once, then :func:`~arena_bot.scoring.export.to_json` (the tests hold the two equal).
Which parts can be reused is :mod:`arena_bot.app.scoring`'s business.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena_bot.core.errors import InputError
from arena_bot.intake.submissions import (
    SUBMISSION_FILE,
    SUBMISSION_ID,
    SubmissionFolder,
    load_submission,
)
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.models.leaderboard import Entry, Leaderboard, TaskBoard
from arena_bot.scoring.export import (
    csv_header,
    csv_rows,
    entry_fragment,
    indent_fragments,
    stream_indented,
)
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions, SubmissionInput
from arena_bot.tasks.dataset import TaskFolder

if TYPE_CHECKING:  # the engine (numpy) is imported when a task or the board is computed
    from arena_bot.scoring.leaderboard import AggregateRow

#: How many of a task's first ranked and first unranked entries its part keeps apart, for
#: the pipeline's first look.
PREVIEW = 10


@dataclass(frozen=True)
class TaskPart:
    """One task's share of the leaderboard, as the memo stores it.

    Five compressed sections (the task's board and counts; the aggregate rows; the CSV
    rows; the preview; the entries as they sit in ``leaderboard.json``), each decoded only
    when something needs it: a board whose files are up to date reads the first alone.
    """

    blob: bytes
    #: The key the part is stored under: what it was computed from (``""``: not stored).
    key: str = ""

    @cached_property
    def _sections(self) -> list[bytes]:
        sections, at = [], 0
        for _ in range(4):
            size = int.from_bytes(self.blob[at : at + 4], "big")
            sections.append(self.blob[at + 4 : at + 4 + size])
            at += 4 + size
        sections.append(self.blob[at:])
        return sections

    @cached_property
    def _meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = json.loads(zlib.decompress(self._sections[0]))
        return meta

    @property
    def task_id(self) -> str:
        return str(self._meta["task_id"])

    @property
    def input_digest(self) -> str:
        return str(self._meta["input_digest"])

    @property
    def board(self) -> dict[str, Any]:
        board: dict[str, Any] = self._meta["board"]
        return board

    @property
    def counts(self) -> dict[str, int]:
        """entries / scored / ranked / pending / error / review counts."""
        counts: dict[str, int] = self._meta["counts"]
        return counts

    @cached_property
    def rows(self) -> list[AggregateRow]:
        from arena_bot.scoring.leaderboard import AggregateRow

        return [AggregateRow.from_list(row)
                for row in json.loads(zlib.decompress(self._sections[1]))]

    @property
    def csv(self) -> str:
        return zlib.decompress(self._sections[2]).decode()

    @cached_property
    def entries_data(self) -> bytes:
        """The entries as :func:`~arena_bot.scoring.export.indent_fragments` spells them,
        in UTF-8 (the export and the task's file are written from these bytes)."""
        return zlib.decompress(self._sections[4])

    def entries(self) -> list[dict[str, Any]]:
        """The entries in JSON form, in board order."""
        entries: list[dict[str, Any]] = json.loads(b"[" + self.entries_data + b"]")
        return entries

    def entries_between(self, *ranges: tuple[int, int]) -> list[list[dict[str, Any]]]:
        """``entries()[start:stop]`` for each ``(start, stop)``: the pipeline's first look
        shows ten of a task's thousands, answered from the preview (the first
        :data:`PREVIEW` ranked and unranked entries) without decoding the rest."""
        count = self.counts["entries"]
        wanted = [range(max(start, 0), min(stop, count)) for start, stop in ranges]
        windows, previewed = json.loads(zlib.decompress(self._sections[3]))
        positions = [i for start, stop in windows for i in range(start, stop)]
        preview = dict(zip(positions, previewed, strict=True))
        if not all(i in preview for want in wanted for i in want):
            preview = dict(enumerate(self.entries()))
        return [[preview[i] for i in want] for want in wanted]

    @classmethod
    def of(cls, board: Leaderboard, digest: str, key: str = "") -> TaskPart:
        """The part of a one-task board."""
        from arena_bot.scoring.leaderboard import aggregate_rows

        (task,) = board.tasks
        entries = board.entries
        ranked = sum(1 for e in entries if e.rank is not None)
        meta: dict[str, Any] = {
            "task_id": task.task_id, "input_digest": digest,
            "board": task.model_dump(mode="json"),
            "counts": {
                "entries": len(entries),
                "scored": sum(1 for e in entries if e.status == "scored"),
                "ranked": ranked,
                "pending": sum(1 for e in entries if e.status == "pending"),
                "error": sum(1 for e in entries if e.status == "error"),
                "review": sum(1 for e in entries if e.review_status == "under-review"),
            },
        }
        fragments = [entry_fragment(entry) for entry in entries]
        # Ranked entries come first, in rank order: the preview is the head of each kind.
        windows = [(0, min(PREVIEW, ranked)), (ranked, min(ranked + PREVIEW, len(entries)))]
        preview = (f"[{json.dumps(windows)}, ["
                   + ",".join(f for start, stop in windows for f in fragments[start:stop])
                   + "]]")
        sections = [
            zlib.compress(json.dumps(meta, ensure_ascii=False).encode(), 1),
            zlib.compress(json.dumps([dataclasses.astuple(row) for row in aggregate_rows(entries)],
                                     ensure_ascii=False).encode(), 1),
            zlib.compress(csv_rows(board).encode(), 1),
            zlib.compress(preview.encode(), 1),
        ]
        blob = b"".join(len(section).to_bytes(4, "big") + section for section in sections)
        return cls(blob=blob + zlib.compress(indent_fragments(fragments).encode(), 1), key=key)


@dataclass(frozen=True)
class ScoredBoard:
    """A scored board as ``arena score`` writes and prints it: the typed board without its
    entries, and one part per task holding the task's entries ready to write."""

    #: The board without its entries (``entries`` is empty): what every page needs.
    head: Leaderboard
    parts: list[TaskPart]
    #: The tasks scored in this run (the others were reused).
    rescored: list[str]
    #: What the whole board was computed from (every task key, the options, the bot's
    #: version): equal digests, equal files; ``""`` when unknown.
    digest: str = ""

    def verified_only(self) -> ScoredBoard:
        """The board filtered to entries whose metrics are at least consistent with their
        transcripts (``metrics_level`` above ``self-reported``).

        Scores, ranks, baselines and the head stay those of the whole board (filtering is a
        view, so a verified entry's score does not change with the filter). The view's parts
        are not stored (no key); its digest is its own, so the files written for it are never
        taken for the whole board's."""
        parts = []
        for part in self.parts:
            task = Leaderboard(
                input_digest="", options=self.head.options,
                tasks=[TaskBoard.model_validate(part.board)], tools=[], notes=[],
                entries=[Entry.model_validate(data) for data in part.entries()
                         if data["metrics_level"] != "self-reported"])
            parts.append(TaskPart.of(task, part.input_digest))
        digest = hashlib.sha256(f"verified-only\n{self.digest}".encode()).hexdigest()
        return dataclasses.replace(self, parts=parts, digest=digest if self.digest else "")

    def board(self) -> Leaderboard:
        """The whole typed board (every entry decoded)."""
        entries = [Entry.model_validate(data) for part in self.parts for data in part.entries()]
        return self.head.model_copy(update={"entries": entries})

    def count(self, what: str) -> int:
        return sum(part.counts[what] for part in self.parts)

    def json_chunks(self) -> Iterator[bytes]:
        """``leaderboard.json``, the bytes of :func:`~arena_bot.scoring.export.to_json`."""
        head = self.head.model_dump(mode="json", exclude={"entries"})
        yield from _placed(head, [part.entries_data for part in self.parts])
        yield b"\n"

    def csv_chunks(self) -> Iterator[str]:
        """``leaderboard.csv``, the bytes of :func:`~arena_bot.scoring.export.to_csv`."""
        yield csv_header()
        for part in self.parts:
            yield part.csv


def submission_folders_by_task(
    paths: Iterable[str], submissions_dir: Path, task_ids: Collection[str]
) -> dict[str, list[str]]:
    """The submission folders (``<task>/<id>``, sorted) of each task, from the relative paths
    of every file under ``submissions_dir``. Submissions must sit exactly at
    ``<task>/<id>/``, under a task of the dataset: anything else is an error naming the file.
    """
    found: dict[str, list[str]] = {}
    for path in paths:
        if not path.endswith(SUBMISSION_FILE):
            continue
        parts = path.split("/")
        if parts[-1] != SUBMISSION_FILE or len(parts) < 2:
            continue
        if len(parts) != 3:
            raise InputError(
                f"submission folders live at {submissions_dir.name}/<task>/<submission>/",
                path=submissions_dir / path,
                hint="move the folder (`arena validate` reports the layout it expects)",
            )
        if parts[0] not in task_ids:
            raise InputError(
                f"submission is filed under task {parts[0]!r}, which is not in the dataset",
                path=submissions_dir / path, hint="fix the folder or add the task under dataset/",
            )
        if not SUBMISSION_ID.fullmatch(parts[1]):
            raise InputError(
                f"folder name {parts[1]!r} is not a valid submission id",
                path=submissions_dir / path,
                hint="rename the folder (`arena validate` reports the names it accepts)",
            )
        found.setdefault(parts[0], []).append(f"{parts[0]}/{parts[1]}")
    return {task: sorted(folders) for task, folders in found.items()}


#: A submission's evaluation result (``None``: none yet), as the board's results are matched.
ResultLookup = Callable[[SubmissionFolder, TaskFolder], EvaluationResult | None]


def score_task(
    task: TaskFolder,
    folders: Sequence[Path],
    lookup: ResultLookup,
    options: ScoringOptions,
    key: str = "",
) -> TaskPart:
    """One task's part of the board: its submissions in ``folders`` scored against the
    results ``lookup`` finds for them."""
    # Reading submissions (transcripts, redaction) is imported only when a task is scored.
    from arena_bot.scoring.leaderboard import build_leaderboard, task_input_digest
    from arena_bot.scoring.loader import submission_input

    items: list[SubmissionInput] = []
    for folder in folders:
        submission = load_submission(folder)
        if submission.spec.task != task.id:
            raise InputError(
                f"task {submission.spec.task!r} does not match the folder it is in "
                f"({task.id!r})",
                path=submission.yaml_path,
                hint=f"move the folder to submissions/{submission.spec.task}/ or fix 'task'",
            )
        items.append(submission_input(submission, lookup(submission, task),
                                      task=task, options=options))
    inputs = ScoringInputs(tasks={task.id: task.spec}, submissions=items)
    board = build_leaderboard(inputs, options=options)
    return TaskPart.of(board, task_input_digest(task.spec, items), key)


def board_head(
    parts: Sequence[TaskPart],
    tasks: Sequence[TaskFolder],
    options: ScoringOptions,
    unchecked: Mapping[str, Sequence[int]],
) -> Leaderboard:
    """The board without its entries (aggregates, notes, input digest), from the parts."""
    from arena_bot.scoring.leaderboard import (
        aggregates,
        board_notes,
        combine_digests,
        leaderboard_options,
    )

    return Leaderboard(
        input_digest=combine_digests(options, [part.input_digest for part in parts]),
        options=leaderboard_options(options),
        tasks=[TaskBoard.model_validate(part.board) for part in parts],
        entries=[],
        tools=aggregates([row for part in parts for row in part.rows], options),
        notes=board_notes([task.spec for task in tasks], options, unchecked),
    )


def task_file_chunks(part: TaskPart) -> Iterator[bytes]:
    """``tasks/<task>.json``: one task's board and its entries (what a task page loads)."""
    yield from _placed({"schema_version": 1, "task": part.board}, [part.entries_data])
    yield b"\n"


def _placed(document: dict[str, Any], entries: Sequence[bytes]) -> Iterator[bytes]:
    """:func:`~arena_bot.scoring.export.stream_indented` in bytes, each part's entries
    written as stored (never decoded and encoded again): a NUL, which JSON text never
    holds, marks their places."""
    stored = iter([data for data in entries if data])
    for chunk in stream_indented(document, ["\0" if data else "" for data in entries]):
        yield next(stored) if chunk == "\0" else chunk.encode()
