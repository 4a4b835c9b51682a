"""Scoring use cases: the repository's options, the board scored task by task, its files.

``arena score``, ``arena pipeline`` and the bot's modes call these; the click commands only
print what they return.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena_bot.app.memo import Memo, code_version, content_ids, open_memo
from arena_bot.core.config import JudgeConfig, load_config
from arena_bot.core.errors import InputError, JudgeError, UsageError
from arena_bot.core.prices import load_price_table
from arena_bot.core.settings import Settings
from arena_bot.core.yamlio import read_text_capped
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.evaluation.store import ResultStore, result_owner
from arena_bot.intake.reviews import REVIEWS_FOLDER
from arena_bot.intake.submissions import SubmissionFolder
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.scoring.export import canonical
from arena_bot.scoring.incremental import (
    ResultLookup,
    ScoredBoard,
    TaskPart,
    board_head,
    score_task,
    submission_folders_by_task,
    task_file_chunks,
)
from arena_bot.scoring.inputs import ScoringOptions, options_digest
from arena_bot.scoring.judge import Judge, build_judge
from arena_bot.site.methodology import methodology_from_board
from arena_bot.site.source import MAX_BOARD_BYTES
from arena_bot.tasks.dataset import Dataset, TaskFolder

if TYPE_CHECKING:
    from arena_bot.scoring.calibration import CalibrationReport
    from arena_bot.scoring.compare import Comparison
    from arena_bot.scoring.loader import ResultMatch

_RESULTS_HINT = "pass the folder `arena evaluate` wrote to (default .arena/results)"


def scoring_options(settings: Settings) -> ScoringOptions:
    """The repository's arena.yaml (or the defaults) and the judge the settings configure."""
    config = load_config(settings.root).config
    # Transcripts' edits are replayed on a clone of the task at its base commit (made once,
    # only when a transcript gets that far): scoring itself runs no git.
    return ScoringOptions(
        config=config, judge=judge_for(settings, config.judge),
        prices=load_price_table(settings.root / config.prices if config.prices else None),
        base_checkout=BaseRepoCache(settings.cache_dir / "repos").get,
    )


def judge_for(settings: Settings, judge: JudgeConfig | None = None) -> Judge | None:
    """The LLM judge arena.yaml's ``judge`` section (the repository's, unless given) and the
    environment configure (``None`` when none is): the endpoint and key from the variables
    the section names, the model from ``ARENA_JUDGE_MODEL`` or else the section."""
    if judge is None:
        judge = load_config(settings.root).config.judge
    env = settings.environ
    return build_judge(
        base_url=env.get(judge.url_env) or None,
        model=env.get("ARENA_JUDGE_MODEL") or judge.model,
        api_key=env.get(judge.api_key_env) or None,
        cache_dir=settings.cache_dir,
    )


@dataclass(frozen=True)
class TaskInputs:
    """One task's submission folders (``<task>/<id>``) and the key of everything its part
    of the board is computed from."""

    folders: list[str]
    key: str


def task_inputs(
    settings: Settings, tasks: Sequence[TaskFolder], results_dir: Path, common: str, *,
    known: Collection[str], only: Collection[Path] | None = None, subset: bool = False,
) -> dict[str, TaskInputs]:
    """Each task's inputs, keyed by content ids (:func:`~arena_bot.app.memo.content_ids`):
    the task folder's files, its submissions' files (``only`` these folders, if given), the
    stored results and the review files under the task, and ``common`` (the bot's code,
    the options). Raises InputError for a submission outside the layout."""
    tops = {"dataset": settings.dataset_dir, "submissions": settings.submissions_dir,
            "results": results_dir, "reviews": settings.root / REVIEWS_FOLDER}
    roots = [top for kind, top in tops.items() if kind != "results"]
    stored = [results_dir]
    if subset:  # these tasks only: git and the hashing look at their folders alone
        roots = [top / task.id for top in roots for task in tasks]
        stored = [results_dir / task.id for task in tasks]
    grouped = ids_by_folder(settings.root, tops, content_ids(settings.root, roots, hashed=stored))
    by_task = submission_folders_by_task(
        (f"{task_id}/{inner}" for (kind, task_id), files in grouped.items()
         if kind == "submissions" for inner, _ in files),
        settings.submissions_dir, known,
    )
    keep = ({os.path.relpath(os.path.abspath(folder), os.path.abspath(settings.submissions_dir))
             for folder in only} if only is not None else None)
    found_inputs: dict[str, TaskInputs] = {}
    for task in tasks:
        folders = by_task.get(task.id, [])
        if keep is not None:
            folders = [folder for folder in folders if folder in keep]
        chosen = {folder.partition("/")[2] for folder in folders}
        lines = [f"{common}\n{task.id}\n"]
        for kind in tops:
            for inner, content_id in sorted(grouped.get((kind, task.id), [])):
                if kind in ("submissions", "results") and (
                        inner.partition("/")[0] if kind == "submissions"
                        else result_owner(inner)) not in chosen:
                    continue
                lines.append(f"{kind}\0{inner}\0{content_id}\n")
        key = hashlib.sha256("".join(lines).encode(errors="surrogateescape")).hexdigest()
        found_inputs[task.id] = TaskInputs(folders=folders, key=key)
    return found_inputs


def ids_by_folder(
    root: Path, tops: Mapping[str, Path], ids: Mapping[str, str],
) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """The content ids of the files under ``tops`` (``ids``: by path from ``root``, as
    :func:`~arena_bot.app.memo.content_ids` gives them), grouped by (the kind of top folder,
    the folder right under it: a task's), each as (path within that folder, content id)."""
    prefixes = [(kind, os.path.relpath(os.path.abspath(top), os.path.abspath(root)).replace(
        os.sep, "/") + "/") for kind, top in tops.items()]
    grouped: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path, content_id in ids.items():
        for kind, prefix in prefixes:
            if path.startswith(prefix):
                folder, _, inner = path[len(prefix):].partition("/")
                grouped.setdefault((kind, folder), []).append((inner, content_id))
                break
    return grouped


def score_board(
    settings: Settings,
    *,
    memo: Memo,
    results: Path | None = None,
    only: Iterable[Path] | None = None,
    match: ResultMatch = "store",
) -> ScoredBoard:
    """The whole board (or ``only`` these submission folders), scored task by task; a task
    whose inputs did not change since an earlier run is taken from ``memo``.

    ``match``: how results are matched to submissions (``store`` or ``latest``, see
    :mod:`arena_bot.scoring.loader`)."""
    if results is not None and not results.is_dir():
        # The default folder may not exist yet (nothing evaluated); a named one must.
        raise InputError("results folder does not exist", path=results, hint=_RESULTS_HINT)
    results_dir = results or settings.results_dir
    options = scoring_options(settings)
    tasks = Dataset(settings.dataset_dir).all()
    if not tasks:
        raise InputError("no tasks found", path=settings.dataset_dir,
                         hint="run from the repository root or pass --root")
    if not settings.submissions_dir.is_dir():
        # scored, an empty board would replace the one written before
        raise UsageError("no submissions/ folder here", path=settings.submissions_dir,
                         hint="run from the repository root, or pass --root")
    unchecked = {task.id: task.unchecked_features() for task in tasks}
    known = set(unchecked)
    tasks = [task for task in tasks if not unchecked[task.id]]
    common = f"{code_version()}:{options_digest(options)}"
    chosen = list(only) if only is not None else None
    lookup, key_of = _matching(results_dir, match)
    inputs = task_inputs(settings, tasks, results_dir, common, known=known, only=chosen)
    found: dict[str, TaskPart] = {}
    jobs: dict[str, Callable[[], TaskPart]] = {}
    for task in tasks:
        key = key_of(task.id, inputs[task.id].key)
        stored = memo.get(f"part:{key}")
        if stored is not None:
            found[task.id] = TaskPart(blob=stored, key=key)
        else:
            folders = [settings.submissions_dir / folder for folder in inputs[task.id].folders]
            jobs[task.id] = partial(score_task, task, folders, lookup, options, key)
    rescored = list(jobs)
    found.update(zip(rescored, _scored(list(jobs.values())), strict=True))
    parts = [found[task.id] for task in tasks]
    if rescored:
        # A file may have changed while its task was scored: a part is remembered only
        # under the key its inputs still have now. Git matches every file against every
        # folder named: naming most of the board's task folders is slower than none.
        again = task_inputs(settings, [task for task in tasks if task.id in rescored],
                            results_dir, common, known=known, only=chosen,
                            subset=2 * len(rescored) < len(tasks))
        for index, part in enumerate(parts):
            if part.task_id not in rescored:
                continue
            if key_of(part.task_id, again[part.task_id].key) == part.key:
                memo.put(f"part:{part.key}", part.blob)
            else:
                parts[index] = TaskPart(blob=part.blob, key="")
    digest = hashlib.sha256(f"{common}\n{sorted(unchecked.items())}\n".encode())
    for part in parts:
        digest.update(f"{part.task_id}\0{part.key}\n".encode())
    # A part without a key taints the board: nothing made from it is remembered.
    board_digest = digest.hexdigest() if all(part.key for part in parts) else ""
    stored_head = memo.get(f"board:{board_digest}") if board_digest else None
    if stored_head is not None:
        head = Leaderboard.model_validate_json(stored_head)
    else:
        head = board_head(parts, tasks, options, unchecked)
        if board_digest:
            memo.put(f"board:{board_digest}", head.model_dump_json().encode())
    if chosen is None and match == "store":
        # The whole board as published: earlier states' parts will not be asked for again.
        # A `--match latest` run leaves them (the next `arena score` reuses them).
        memo.retain("part:", {f"part:{part.key}" for part in parts})
        memo.retain("board:", {f"board:{board_digest}"})
    return ScoredBoard(head=head, parts=parts, rescored=rescored, digest=board_digest)


#: The tasks :func:`_scored`'s worker processes score (inherited when forked: no pickling).
_jobs: list[Callable[[], TaskPart]] = []


def _scored(jobs: list[Callable[[], TaskPart]]) -> list[TaskPart]:
    """Each job's part. A task's part depends on that task's inputs alone, so the tasks are
    scored in parallel, one forked process per core (Ctrl-C is the parent's: it stops the
    pool); one task, one core, or not Linux (macOS's system libraries are not safe to fork
    with, Windows has no fork): here."""
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers < 2 or sys.platform != "linux":
        return [job() for job in jobs]
    _jobs[:] = jobs
    # What the workers inherit is never their garbage: frozen, the collector in a worker
    # does not walk it again and again (a seventh of its time) nor copy its pages.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers, _worker_signals) as pool:
            parts = pool.map(_run_job, range(len(jobs)), chunksize=1)
            pool.close()  # the workers end on their own; leaving the block terminates them
            pool.join()
        return parts
    finally:
        gc.unfreeze()
        _jobs.clear()


def _worker_signals() -> None:
    """A worker leaves Ctrl-C to the parent, which stops the pool, and ends at the pool's
    SIGTERM by its default action: the command's SIGTERM handler it inherited would raise in
    it and print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_job(index: int) -> TaskPart:
    return _jobs[index]()


def _matching(
    results_dir: Path, match: ResultMatch,
) -> tuple[ResultLookup, Callable[[str, str], str]]:
    """How results are matched to submissions, and a task's key (from its id and the key
    of its inputs) under that matching. ``latest`` reads every result file now, so a task's
    key holds the results chosen for its submissions: a part scored against other results,
    or by the store, is never taken for it."""
    if match == "store":
        return ResultStore(results_dir).lookup, lambda _task_id, key: key
    from arena_bot.scoring.loader import scan_results

    scanned = scan_results(results_dir)
    chosen: dict[str, list[str]] = {}
    for (task_id, submission_id), result in sorted(scanned.items()):
        chosen.setdefault(task_id, []).append(f"{submission_id}\0{result.model_dump_json()}\n")

    def lookup(submission: SubmissionFolder, task: TaskFolder) -> EvaluationResult | None:
        return scanned.get((task.id, submission.id))

    def key_of(task_id: str, key: str) -> str:
        text = f"latest\n{key}\n{''.join(chosen.get(task_id, []))}"
        return hashlib.sha256(text.encode(errors="surrogateescape")).hexdigest()

    return lookup, key_of


@dataclass(frozen=True)
class WrittenBoard:
    """Where a board's files went and what the writing did (for the caller to report)."""

    folder: Path
    #: ``tasks/<task>.json`` files rewritten (the others were up to date).
    task_files: int = 0
    #: The board-wide files rewritten (the others held these bytes already).
    rewritten: tuple[str, ...] = ()

    @property
    def export(self) -> Path:
        return self.folder / "leaderboard.json"


#: In ``tasks/``: every task's key (the site finds the split files by it).
DIGESTS = "digests.json"


def write_scored(scored: ScoredBoard, folder: Path, memo: Memo | None = None) -> WrittenBoard:
    """Write the full export, the summary and one file per task, each only when its bytes
    differ from the file on disk. ``memo`` remembers which board a folder holds (its digest
    and each file's size, times and inode as written): the same board again, in files nobody
    touched since, is not compared byte by byte.

    ``leaderboard.json`` / ``leaderboard.csv`` hold everything (for download);
    ``board.json`` is the board without entries and ``tasks/<task>.json`` one task's entries,
    so no page has to load a file that grows with the whole board. Every file is written to
    a temporary file and renamed into place: a reader (or a kill) never sees half a file.
    """
    head = scored.head.model_dump(mode="json", exclude={"entries"})
    files: dict[str, Callable[[], Iterable[str | bytes]]] = {
        "leaderboard.json": scored.json_chunks,
        "leaderboard.csv": scored.csv_chunks,
        "board.json": lambda: [canonical(head) + "\n"],
        "methodology.md": lambda: [methodology_from_board(head, _entries(scored))],
    }
    key = f"written:{os.path.abspath(folder)}"
    if memo is not None and scored.digest and _holds(folder, files, memo.get(key),
                                                     scored.digest):
        return WrittenBoard(folder=folder)
    rewritten = [name for name, chunks in files.items()
                 if _write_if_changed(folder / name, chunks())]
    tasks = folder / "tasks"
    listed_before = _listed_tasks(tasks / DIGESTS)  # the task files this board wrote before
    written = sum(_write_if_changed(tasks / f"{part.task_id}.json", task_file_chunks(part))
                  for part in scored.parts)
    # What the site reads the task files by (arena_bot.site.source): each task's key.
    _write_if_changed(tasks / DIGESTS, [canonical({p.task_id: p.key for p in scored.parts})
                                        + "\n"])
    for task_id in listed_before - {part.task_id for part in scored.parts}:
        stale = tasks / f"{task_id}.json"  # a task that left the dataset; nothing else goes
        if stale.is_file() and not stale.is_symlink():
            stale.unlink(missing_ok=True)
    if memo is not None and scored.digest:
        memo.put(key, json.dumps({"digest": scored.digest,
                                  "files": _settled(folder, files)}).encode())
    return WrittenBoard(folder=folder, task_files=written, rewritten=tuple(rewritten))


def _listed_tasks(digests: Path) -> set[str]:
    """The task ids an earlier run's ``tasks/digests.json`` lists (none when it is missing or
    damaged); only names a task id can have (no path)."""
    try:
        listed = json.loads(digests.read_bytes())
    except (OSError, ValueError):
        return set()
    return {name for name in listed if _TASK_FILE_NAME.fullmatch(name)} if isinstance(
        listed, dict) else set()


_TASK_FILE_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")


def _holds(folder: Path, names: Iterable[str], stored: bytes | None, digest: str) -> bool:
    """Whether ``folder`` still holds the files written for the board ``digest``, as the
    memo's ``stored`` record says: every file there, no other, each with the size,
    modification and status-change times and inode it had when written. Any write to a
    file moves its status-change time, which no one can set back (``touch`` and ``utime``
    set the others), and a checkout or copy gives new inodes: such a file is compared byte
    by byte again."""
    try:
        recorded = json.loads(stored or b"null")
        return bool(recorded["digest"] == digest
                    and _stats(folder, names) == recorded["files"])
    except (TypeError, ValueError, KeyError, OSError):
        return False


def _stats(folder: Path, board_files: Iterable[str]) -> dict[str, list[int]]:
    with os.scandir(folder / "tasks") as entries:
        tasks = [f"tasks/{entry.name}" for entry in entries if entry.name.endswith(".json")
                 and not entry.name.startswith(".")]
    names = [*board_files, *tasks]
    found: dict[str, list[int]] = {}
    for name in names:
        info = os.stat(folder / name)
        found[name] = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
    return found


def _settled(folder: Path, board_files: Iterable[str]) -> dict[str, list[int]]:
    """:func:`_stats` once the clock has moved past the newest status-change time, so that
    a later edit cannot get the very time recorded (git's racy-clean rule: a file's times
    have the file system's clock granularity, a few milliseconds)."""
    found = _stats(folder, board_files)
    wait = max(info[2] for info in found.values()) + _SETTLE_NS - time.time_ns()
    if wait > 0:
        time.sleep(wait / 1e9)
        found = _stats(folder, board_files)
    return found


#: How far the clock must be past a file's status-change time before it is recorded.
_SETTLE_NS = 100_000_000


def _write_if_changed(path: Path, chunks: Iterable[str | bytes]) -> bool:
    """Write ``chunks`` to ``path`` unless the file holds exactly these bytes already.

    The file is compared as the chunks come (a board's export is hundreds of megabytes):
    nothing is held but what was compared before the first difference. The bytes go to a
    temporary file renamed into place: a reader (or a kill) never sees half a file."""
    pending = (chunk if isinstance(chunk, bytes) else chunk.encode() for chunk in chunks)
    compared: list[bytes] = []
    try:
        with path.open("rb") as handle:
            for data in pending:
                compared.append(data)
                if handle.read(len(data)) != data:
                    break
            else:
                if not handle.read(1):
                    return False
    except OSError:
        pass  # absent or unreadable: written
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as handle:
            handle.writelines(compared)
            handle.writelines(pending)
        temporary.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)  # a full disk leaves no part behind
        raise InputError(f"cannot write: {exc.strerror}", path=path) from None
    return True


def _entries(scored: ScoredBoard) -> Iterator[dict[str, Any]]:
    """The entries in JSON form, one task at a time (the methodology example needs one)."""
    for part in scored.parts:
        if part.counts.get("scored", 0) >= 2:
            yield from part.entries()
            return


def describe_scored(scored: ScoredBoard, written: WrittenBoard) -> list[str]:
    """What a command prints after :func:`write_scored`."""
    export = f"{written.export} and {written.folder / 'leaderboard.csv'}"
    return [
        f"{len(scored.parts)} task(s): {scored.count('scored')} scored, "
        f"{scored.count('pending')} pending, {scored.count('error')} failed evaluation, "
        f"{scored.count('review')} flagged for review",
        f"rescored {len(scored.rescored)} task(s) whose inputs changed, reused "
        f"{len(scored.parts) - len(scored.rescored)}; rewrote {written.task_files} task file(s)",
        *(f"note: {note}" for note in scored.head.notes),
        f"wrote {export}" if written.rewritten != () else f"{export} are up to date",
    ]


def score_to(
    settings: Settings, output: Path | None, *, results: Path | None = None,
    match: ResultMatch = "store", keep_verified: bool = False,
) -> tuple[ScoredBoard, WrittenBoard]:
    """``arena score``: the board scored and written to ``output`` (default: the cache
    folder); ``keep_verified``: only its entries with verified metrics."""
    with open_memo(settings.cache_dir) as memo:
        scored = score_board(settings, memo=memo, results=results, match=match)
        if keep_verified:
            scored = scored.verified_only()
        return scored, write_scored(scored, output or settings.cache_dir, memo)


def compare_on_board(
    settings: Settings, a: str, b: str, *, leaderboard: Path | None = None,
    results: Path | None = None, match: ResultMatch = "store",
) -> Comparison:
    """``arena compare``: A against B on a written ``leaderboard`` file, else on the board
    scored now (its unchanged tasks reused)."""
    if leaderboard is not None:
        # not a device, a FIFO or a folder; no larger than the site reads
        text = read_text_capped(leaderboard, limit=MAX_BOARD_BYTES, what="leaderboard")
        try:
            board = Leaderboard.model_validate_json(text)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=leaderboard) from None
        except ValueError:
            raise InputError(
                "not a leaderboard.json written by `arena score`", path=leaderboard,
                hint="run `arena score` to write it again",
            ) from None
    else:
        with open_memo(settings.cache_dir) as memo:
            board = score_board(settings, memo=memo, results=results, match=match).board()
    from arena_bot.scoring.compare import compare  # numpy: not for `arena score`

    return compare(board, a, b)


def calibrate_judge(settings: Settings, *, tolerance: float) -> CalibrationReport:
    """``arena calibrate``: the configured judge against the shipped reference set; a
    JudgeError when no judge is configured or it scored none of the samples."""
    judge = judge_for(settings)
    if judge is None:
        raise JudgeError(
            "no LLM judge configured",
            hint="set ARENA_JUDGE_URL (an OpenAI-compatible base URL, e.g. "
            "https://api.openai.com/v1), ARENA_JUDGE_MODEL and, if needed, "
            "ARENA_JUDGE_API_KEY",
        )
    from arena_bot.scoring.calibration import calibrate  # numpy: not for `arena score`

    report = calibrate(judge, tolerance=tolerance)
    if report.summary.judged == 0:
        # Nothing judged is a broken setup (endpoint down, wrong model), not a "Poor" judge.
        problem = next((r.problem for r in report.samples if r.problem), "no answer")
        raise JudgeError(
            f"the judge scored none of the {report.summary.total} samples: {problem}",
            hint="check ARENA_JUDGE_URL, ARENA_JUDGE_MODEL and ARENA_JUDGE_API_KEY",
        )
    return report
