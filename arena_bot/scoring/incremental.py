"""``arena score`` at board scale: rescoring in time proportional to what changed.

A task's part of the leaderboard (its baseline, its ranked entries, their CSV rows) depends
only on the task and on that task's submissions and results: baselines, ranks, intervals,
outlier and duplicate flags are all computed within one task. So the board is scored one
task at a time, and each task's part is remembered in the index (:mod:`arena_bot.index`)
under a key built from content hashes:

* the bot's own code (:func:`~arena_bot.index.code_fingerprint`) and the scoring options;
* every file of the task folder;
* for each submission folder of the task: its id, every file in it, and the stored result
  files that match its content address (name and bytes).

Files are recognised by their stat signature, so an unchanged board costs a walk of the
folders, a ``stat`` per file and one index read per task. Only a task whose key changed is
scored again (:func:`~arena_bot.scoring.leaderboard.build_leaderboard` on that task alone);
the board-wide parts (tool / model aggregates, the input digest, notes) are recomputed
from small stored rows, and ``leaderboard.json`` is written by joining the stored entry
text. The bytes written are those of the whole-board path (``build_leaderboard`` over
everything, then :func:`~arena_bot.scoring.export.to_json`); the tests hold the two equal.

Submissions must sit at ``submissions/<task>/<id>/`` with ``task: <task>`` (what
``arena validate`` requires); anything else is an error naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from arena_bot import HARNESS_VERSION
from arena_bot.errors import InputError
from arena_bot.evaluation.store import ResultStore, content_address
from arena_bot.index import Index, code_fingerprint, folder_digest
from arena_bot.intake.reviews import REVIEWS_FOLDER
from arena_bot.intake.submissions import SUBMISSION_FILE, load_submission
from arena_bot.models.leaderboard import Leaderboard, TaskBoard
from arena_bot.scoring.export import (
    csv_header,
    csv_rows,
    entry_fragment,
    indent_fragments,
    stream_indented,
)
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions, SubmissionInput
from arena_bot.scoring.leaderboard import (
    AggregateRow,
    aggregate_rows,
    aggregates,
    board_notes,
    build_leaderboard,
    combine_digests,
    leaderboard_options,
    options_digest,
    task_input_digest,
)
from arena_bot.scoring.loader import submission_input
from arena_bot.scoring.witness import Witness, store_witness, stored_witness
from arena_bot.tasks.dataset import Dataset, TaskFolder

_NAMESPACE = "task-board"
#: How many of a task's first ranked and first unranked entries its part keeps apart, for
#: the pipeline's first look (:meth:`TaskPart.entries_between`).
PREVIEW = 10
_SUMMARY = "board-summary"


@dataclass(frozen=True)
class TaskPart:
    """One task's share of the leaderboard, as stored in the index.

    Stored as five compressed sections (the task's board and counts; the aggregate rows;
    the CSV rows; the preview: the first :data:`PREVIEW` ranked and unranked entries; the
    entries as they sit in ``leaderboard.json``), each decoded only when something needs
    it: a board whose files are up to date reads the first alone, the pipeline's first look
    the preview.
    """

    blob: bytes
    #: The key the part is stored under (:func:`task_key`): what it was computed from.
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
        """entries / scored / ranked / pending / error / review counts (the summary line,
        the pipeline's first look)."""
        counts: dict[str, int] = self._meta["counts"]
        return counts

    @cached_property
    def rows(self) -> list[AggregateRow]:
        return [AggregateRow.from_list(row)
                for row in json.loads(zlib.decompress(self._sections[1]))]

    @property
    def csv(self) -> str:
        return zlib.decompress(self._sections[2]).decode()

    @property
    def entries_text(self) -> str:
        """The entries as :func:`~arena_bot.scoring.export.indent_fragments` spells them."""
        return zlib.decompress(self._sections[4]).decode()

    @cached_property
    def _preview(self) -> dict[int, dict[str, Any]]:
        """The previewed entries by position in the board (see :meth:`of`)."""
        windows, entries = json.loads(zlib.decompress(self._sections[3]))
        positions = [i for start, stop in windows for i in range(start, stop)]
        return dict(zip(positions, entries, strict=True))

    def entries(self) -> list[dict[str, Any]]:
        """The entries in JSON form, in board order."""
        entries: list[dict[str, Any]] = json.loads(f"[{self.entries_text}]")
        return entries

    def entries_between(self, *ranges: tuple[int, int]) -> list[list[dict[str, Any]]]:
        """``entries()[start:stop]`` for each ``(start, stop)``, decoding only those (the
        pipeline's first look shows ten of a task's thousands). Each entry's text starts a
        line with exactly four spaces and ``{`` (see :func:`~arena_bot.scoring.export.
        indent_fragments`): its own lines are indented deeper, and JSON strings hold no raw
        newline. Ranges within the preview (the first :data:`PREVIEW` ranked and unranked
        entries) are answered from it, without the entries section."""
        count = self.counts["entries"]
        wanted = [range(max(start, 0), min(stop, count)) for start, stop in ranges]
        preview = self._preview
        if all(i in preview for positions in wanted for i in positions):
            return [[preview[i] for i in positions] for positions in wanted]
        text = self.entries_text
        last = max((positions.stop for positions in wanted), default=0)
        bounds = [0]
        while len(bounds) <= last:
            found = text.find("\n    {", bounds[-1])
            if found < 0:
                break
            bounds.append(found + 1)
        bounds.append(len(text))
        return [[json.loads(text[bounds[i]:bounds[i + 1]].rstrip(",\n")) for i in positions]
                for positions in wanted]

    @classmethod
    def of(cls, board: Leaderboard, digest: str, key: str = "") -> TaskPart:
        """The part of a one-task board."""
        (task,) = board.tasks
        entries = board.entries
        ranked = sum(1 for e in entries if e.rank is not None)
        meta = {
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
            zlib.compress(json.dumps([row.to_list() for row in aggregate_rows(entries)],
                                     ensure_ascii=False).encode(), 1),
            zlib.compress(csv_rows(board).encode(), 1),
            zlib.compress(preview.encode(), 1),
        ]
        text = indent_fragments(fragments)
        blob = b"".join(len(section).to_bytes(4, "big") + section for section in sections)
        return cls(blob=blob + zlib.compress(text.encode(), 1), key=key)


@dataclass(frozen=True)
class ScoredBoard:
    """What ``arena score`` writes and prints, without a typed model per entry."""

    #: The board without its entries: what every page needs (``board.json``).
    summary: dict[str, Any]
    parts: list[TaskPart]
    rescored: list[str]
    #: What the whole board was computed from (every task key, the options, the bot's
    #: version): equal digests, equal files. Written beside the files it made.
    digest: str = ""

    def count(self, what: str) -> int:
        return sum(part.counts[what] for part in self.parts)

    @property
    def notes(self) -> list[str]:
        return list(self.summary["notes"])

    def json_chunks(self) -> Iterator[str]:
        """``leaderboard.json``, the bytes of :func:`~arena_bot.scoring.export.to_json`."""
        yield from stream_indented(self.summary, (part.entries_text for part in self.parts))
        yield "\n"

    def csv_chunks(self) -> Iterator[str]:
        """``leaderboard.csv``, the bytes of :func:`~arena_bot.scoring.export.to_csv`."""
        yield csv_header()
        for part in self.parts:
            yield part.csv


#: Above this many tasks to key the slow way, the index's rows are read in bulk.
_BULK_TASKS = 20


def score_repository(
    *,
    dataset_dir: Path,
    submissions_dir: Path,
    results_dir: Path,
    options: ScoringOptions,
    index: Index,
    only: Collection[Path] | None = None,
) -> ScoredBoard:
    """Score every submission against its stored result, reusing unchanged tasks' parts.

    ``only`` restricts the board to these submission folders (the pipeline passes the
    valid ones); by default every submission under ``submissions_dir`` is scored.

    A task whose witness (:mod:`.witness`) still holds costs a ``stat`` per file and
    nothing else; the others are walked, keyed and (when their key is new) scored again.
    """
    dataset = Dataset(dataset_dir, index)
    tasks = dataset.all()
    if not tasks:
        raise InputError(
            "no tasks found", path=dataset_dir, hint="run from the repository root or pass --root"
        )
    walk = _Walk(submissions_dir, {task.id for task in tasks}, index)
    unchecked = {task.id: task.unchecked_features() for task in tasks}
    tasks = [task for task in tasks if not unchecked[task.id]]
    walk.check_others(scored={task.id for task in tasks})
    keep = {os.path.abspath(folder) for folder in only} if only is not None else None
    store = ResultStore(results_dir, index)
    common = f"{code_fingerprint(index)}:{options_digest(options)}"
    keyed: dict[str, tuple[str, list[str], Witness]] = {}
    slow = []
    for task in tasks:
        witness = stored_witness(index, common, task.id) if keep is None else None
        if witness is not None and witness.holds(index.verified):
            keyed[task.id] = (witness.key, witness.folders, witness)
        else:
            slow.append(task)
    if len(slow) > _BULK_TASKS:
        index.preload(submissions_dir, dataset_dir, results_dir)
    for task in slow:
        keyed[task.id] = _key_task(task, walk=walk, store=store, index=index, common=common,
                                   keep=keep)
    parts: list[TaskPart] = []
    rescored: list[str] = []
    for task in tasks:
        key, folders, witness = keyed[task.id]
        stored = index.lookup(_NAMESPACE, key)
        if stored is not None:
            parts.append(TaskPart(blob=stored, key=key))
            continue
        part = _score_task(task, folders, store, index, options, key)
        if witness.holds():
            index.store(_NAMESPACE, key, part.blob)
        else:
            # A file changed while the task was scored: this part may hold the new bytes, so
            # neither it nor anything made from it (the summary, the files' manifests) may be
            # remembered under the key of the old ones.
            part = TaskPart(blob=part.blob, key="")
        parts.append(part)
        rescored.append(task.id)
    board = _assemble(parts, tasks, options, rescored, unchecked=unchecked, index=index,
                      common=common)
    if keep is None:  # the whole board: earlier states' parts will not be asked for again
        index.retain(_NAMESPACE, [part.key for part in parts])
        index.retain(_SUMMARY, [f"{common}:{board.digest}"])
    return board


def _key_task(
    task: TaskFolder, *, walk: _Walk, store: ResultStore, index: Index, common: str,
    keep: set[str] | None,
) -> tuple[str, list[str], Witness]:
    """The task's key the slow way (hashing what changed), with a witness for next time,
    and the index's rows of files under the task that are gone dropped."""
    with index.recording() as seen:
        folders = walk.folders(task.id)
        if keep is not None:
            folders = [folder for folder in folders if folder in keep]
        reviews = os.path.join(os.path.dirname(walk.top), REVIEWS_FOLDER, task.id)
        key = _task_key(task, folders, store, index, common, reviews=reviews)
    witness = Witness.of(key=key, folders=folders, seen=seen, index=index)
    if keep is None:
        if witness.settled:
            store_witness(index, common, task.id, witness)
        recorded = set(seen)
        for root in (walk.top, os.path.abspath(store.root), os.path.abspath(task.root.parent)):
            index.prune(f"{root}/{task.id}", recorded)
        index.release(recorded)  # a board has hundreds of thousands of paths
    return key, folders, witness


class _Walk:
    """``submissions/<task>/<id>/`` folders holding a submission.yaml, task by task.

    Walks with the index's folder listings: an unchanged folder costs one ``stat``.
    Submissions must sit exactly there, under a task of the dataset: anything else is an
    error naming the file.
    """

    def __init__(self, submissions_dir: Path, task_ids: set[str], index: Index) -> None:
        self.submissions_dir = submissions_dir
        self.top = os.path.abspath(submissions_dir)
        self.task_ids = task_ids
        self.index = index
        try:
            entries = index.listing(self.top)
        except OSError:
            entries = []
        self.children = [name for name, kind in entries if kind == "d"]

    def check_others(self, *, scored: set[str]) -> None:
        """Walk the folders no scored task covers (an unknown task's, an unchecked one's):
        misplaced submissions there are errors too."""
        for name in self.children:
            if name not in scored:
                self.folders(name)

    def folders(self, task_id: str) -> list[str]:
        """The submission folders of one task (absolute paths as text, sorted).

        The task's folder is listed even when absent, so that a witness records its absence.
        """
        found: list[str] = []
        stack = [(f"{self.top}/{task_id}", 1)]
        while stack:
            folder, depth = stack.pop()
            try:
                entries = self.index.listing(folder)
            except OSError:
                continue
            if depth > 1 and (SUBMISSION_FILE, "f") in entries:
                _check_placement(folder, depth, self.submissions_dir, self.task_ids)
                found.append(folder)
            stack.extend((f"{folder}/{name}", depth + 1) for name, kind in entries if kind == "d")
        return sorted(found)


def _check_placement(folder: str, depth: int, submissions_dir: Path, task_ids: set[str]) -> None:
    # Called once per submission on every run: no Path objects unless something is wrong.
    if depth != 2:
        raise InputError(
            f"submission folders live at {submissions_dir.name}/<task>/<submission>/",
            path=Path(folder) / SUBMISSION_FILE,
            hint="move the folder (`arena validate` reports the layout it expects)",
        )
    task_id = os.path.basename(os.path.dirname(folder))
    if task_id not in task_ids:
        raise InputError(
            f"submission is filed under task {task_id!r}, which is not in the dataset",
            path=Path(folder) / SUBMISSION_FILE,
            hint="fix the folder or add the task under dataset/",
        )


def _task_key(
    task: TaskFolder, folders: Sequence[str], store: ResultStore, index: Index, common: str,
    *, reviews: str,
) -> str:
    task_digest = store.task_digest(task)
    results_root = os.path.abspath(store.root)
    digest = hashlib.sha256(f"{common}\n{task.id}\n{task_digest}\n".encode())
    for folder in folders:
        submission_digest = folder_digest(folder, index)
        content = content_address(
            harness_version=HARNESS_VERSION, task_digest=task_digest,
            submission_digest=submission_digest,
        )
        name = os.path.basename(folder)
        digest.update(f"{name}\0{submission_digest}\n".encode())
        results = os.path.join(results_root, task.id, name)
        for candidate in store.candidate_names(task.id, name, content):
            path = f"{results}/{candidate}"
            digest.update(f"{candidate}\0{index.file_digest(path)}\n".encode())
    # The task's review files (listed even when absent, so a witness sees one appear).
    try:
        entries = index.listing(reviews)
    except OSError:
        entries = []
    for name, kind in sorted(entries):
        path = f"{reviews}/{name}"
        digest.update(f"review\0{name}\0{kind}\0".encode())
        if kind == "f":
            digest.update(f"{index.file_digest(path)}\n".encode())
    return digest.hexdigest()


def _score_task(
    task: TaskFolder,
    folders: Sequence[str],
    store: ResultStore,
    index: Index,
    options: ScoringOptions,
    key: str,
) -> TaskPart:
    items: list[SubmissionInput] = []
    for folder in folders:
        submission = load_submission(Path(folder), index)
        if submission.spec.task != task.id:
            raise InputError(
                f"task {submission.spec.task!r} does not match the folder it is in "
                f"({task.id!r})",
                path=submission.yaml_path,
                hint=f"move the folder to submissions/{submission.spec.task}/ or fix 'task'",
            )
        items.append(submission_input(submission, store.lookup(submission, task), index,
                                      task=task, options=options))
    inputs = ScoringInputs(tasks={task.id: task.spec}, submissions=items)
    board = build_leaderboard(inputs, options=options)
    return TaskPart.of(board, task_input_digest(task.spec, items), key)


def _assemble(
    parts: list[TaskPart],
    tasks: Sequence[TaskFolder],
    options: ScoringOptions,
    rescored: list[str],
    *,
    unchecked: Mapping[str, Sequence[int]],
    index: Index,
    common: str,
) -> ScoredBoard:
    """The board-wide summary (aggregates, notes, input digest), remembered by the digest
    of everything it is made of: unchanged parts, unchanged summary."""
    digest = hashlib.sha256(f"{common}\n{sorted(unchecked.items())}\n".encode())
    for part in parts:
        digest.update(f"{part.task_id}\0{part.key}\n".encode())
    # A part without a key (see score_repository) taints the board: nothing is remembered.
    board_digest = digest.hexdigest() if all(part.key for part in parts) else ""

    def compute() -> bytes:
        head = Leaderboard(
            input_digest=combine_digests(options, [part.input_digest for part in parts]),
            options=leaderboard_options(options),
            tasks=[TaskBoard.model_validate(part.board) for part in parts],
            entries=[],
            tools=aggregates([row for part in parts for row in part.rows], options),
            notes=board_notes([task.spec for task in tasks], options, unchecked),
        )
        summary = head.model_dump(mode="json")
        summary.pop("entries")
        return json.dumps(summary, ensure_ascii=False).encode()

    summary = json.loads(
        index.memo(_SUMMARY, f"{common}:{board_digest}", compute) if board_digest else compute()
    )
    return ScoredBoard(summary=summary, parts=parts, rescored=rescored, digest=board_digest)


def task_file_chunks(part: TaskPart) -> Iterator[str]:
    """``tasks/<task>.json``: one task's board and its entries (what a task page loads)."""
    yield from stream_indented({"schema_version": 1, "task": part.board}, [part.entries_text])
    yield "\n"
