"""Scoring use cases: the repository's options, a board from disk, the board's files.

``arena score``, ``arena pipeline`` and the bot's modes call these; the click commands only
print what they return.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_bot.app.batch import batch_collection
from arena_bot.config import DEFAULT_CONFIG, ArenaConfig, load_config
from arena_bot.core.prices import load_price_table
from arena_bot.errors import InputError
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.index import Index, signature, spell
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.scoring import ScoringOptions, build_leaderboard
from arena_bot.scoring.export import canonical, to_csv, to_json
from arena_bot.scoring.incremental import ScoredBoard, score_repository, task_file_chunks
from arena_bot.scoring.judge import build_judge
from arena_bot.scoring.loader import load_inputs
from arena_bot.settings import Settings
from arena_bot.site.methodology import methodology_from_board

_RESULTS_HINT = "pass the folder `arena evaluate` wrote to (default .arena/results)"


def scoring_options(settings: Settings) -> ScoringOptions:
    """The repository's arena.yaml (or the defaults) and the judge the settings configure."""
    config = load_config(settings.root).config
    prices = load_price_table(settings.root / config.prices) if config.prices else None
    options = ScoringOptions.from_config(config, judge=judge_for(settings, config), prices=prices)
    # Transcripts' edits are replayed on a clone of the task at its base commit (made once,
    # only when a transcript gets that far): scoring itself runs no git.
    repos = BaseRepoCache(settings.cache_dir / "repos")
    return dataclasses.replace(options, base_checkout=repos.get)


def judge_for(settings: Settings, config: ArenaConfig = DEFAULT_CONFIG) -> Any:
    """The LLM judge the settings configure (``None`` when none is).

    arena.yaml may name other environment variables for the endpoint and key, and a model
    that ``ARENA_JUDGE_MODEL`` overrides.
    """
    judge = config.judge
    base_url, api_key = settings.judge_base_url, settings.judge_api_key
    if judge.url_env != DEFAULT_CONFIG.judge.url_env:
        base_url = os.environ.get(judge.url_env) or None
    if judge.api_key_env != DEFAULT_CONFIG.judge.api_key_env:
        api_key = os.environ.get(judge.api_key_env) or None
    return build_judge(
        base_url=base_url,
        model=settings.judge_model or judge.model,
        api_key=api_key,
        cache_dir=settings.cache_dir,
    )


def score_board(
    settings: Settings,
    *,
    index: Index,
    results: Path | None = None,
    only: Iterable[Path] | None = None,
) -> ScoredBoard:
    """The whole board (or ``only`` these submission folders), scored task by task; a task
    whose inputs did not change since the last run is reused from the index."""
    if results is not None and not results.is_dir():
        raise InputError("results folder does not exist", path=results, hint=_RESULTS_HINT)
    with batch_collection():
        return score_repository(
            dataset_dir=settings.dataset_dir,
            submissions_dir=settings.submissions_dir,
            results_dir=results or settings.results_dir,
            options=scoring_options(settings),
            index=index,
            only=list(only) if only is not None else None,
        )


def board_from_disk(
    settings: Settings,
    *,
    results: Path | None = None,
    match: str = "store",
    only: list[Path] | None = None,
    index: Index | None = None,
) -> Leaderboard:
    """Score the tasks, submissions (all, or ``only`` these folders) and stored results.

    ``index`` (see :mod:`arena_bot.index`) spares re-reading files an earlier run read.
    """
    if results is not None and not results.is_dir():
        # The default folder may not exist yet (nothing evaluated); a named one must.
        raise InputError("results folder does not exist", path=results, hint=_RESULTS_HINT)
    with batch_collection():
        options = scoring_options(settings)
        inputs = load_inputs(
            dataset_dir=settings.dataset_dir,
            submissions_dir=settings.submissions_dir,
            results_dir=results or settings.results_dir,
            match=match,  # type: ignore[arg-type]
            only=only,
            index=index,
            options=options,
        )
        if not inputs.tasks and not inputs.unchecked:
            raise InputError(
                "no tasks found", path=settings.dataset_dir,
                hint="run from the repository root or pass --root",
            )
        return build_leaderboard(inputs, options=options)


def _write(path: Path, text: str) -> None:
    _write_chunks(path, [text])


def _write_chunks(path: Path, chunks: Iterable[str]) -> None:
    """Write ``chunks`` to a temporary file beside ``path``, then rename it into place."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        with temporary.open("w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(chunks)
        temporary.replace(path)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", path=path) from None


@dataclass(frozen=True)
class WrittenBoard:
    """Where a board's files went and what the writing did (for the caller to report)."""

    folder: Path
    #: ``tasks/<task>.json`` files rewritten (the others were up to date).
    task_files: int = 0
    #: The board-wide files rewritten (``None``: all of them, unconditionally).
    rewritten: tuple[str, ...] | None = None

    @property
    def export(self) -> Path:
        return self.folder / "leaderboard.json"


#: In the output folder: what each board-wide file was computed from, and the signature the
#: file had once written (an edited or replaced file is written again).
MANIFEST = ".written.json"


def write_scored(scored: ScoredBoard, folder: Path) -> WrittenBoard:
    """Write the full export, the summary and one file per task, each only when what it is
    computed from changed (or the file on disk is not the one written).

    ``leaderboard.json`` / ``leaderboard.csv`` hold everything (for download);
    ``board.json`` is the board without entries and ``tasks/<task>.json`` one task's entries,
    so no page has to load a file that grows with the whole board. Every file is written to
    a temporary file and renamed into place: a reader (or a kill) never sees half a file.
    """
    manifest = _read_json(folder / MANIFEST)
    files: dict[str, Callable[[], Iterable[str]]] = {
        "leaderboard.json": scored.json_chunks,
        "leaderboard.csv": scored.csv_chunks,
        "board.json": lambda: [canonical(scored.summary) + "\n"],
        "methodology.md": lambda: [methodology_from_board(scored.summary, _entries(scored))],
    }
    rewritten: list[str] = []
    for name, chunks in files.items():
        path = folder / name
        if _up_to_date(path, manifest.get(name), scored.digest):
            continue
        _write_chunks(path, chunks())
        manifest[name] = [scored.digest, _signature_of(path)]
        rewritten.append(name)
    written = _write_task_files(folder / "tasks", scored)
    if rewritten:
        _write(folder / MANIFEST, canonical(manifest) + "\n")
    return WrittenBoard(folder=folder, task_files=written, rewritten=tuple(rewritten))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _signature_of(path: Path) -> str:
    try:
        return spell(signature(path.stat()))
    except OSError:
        return ""


def _up_to_date(path: Path, recorded: object, digest: str) -> bool:
    """Whether ``path`` is the file written from ``digest`` and untouched since."""
    if not digest or not isinstance(recorded, list) or len(recorded) != 2:
        return False
    return bool(recorded[0] == digest and recorded[1] == _signature_of(path) != "")


def _entries(scored: ScoredBoard) -> Iterator[dict[str, Any]]:
    """The entries in JSON form, one task at a time (the methodology example needs one)."""
    for part in scored.parts:
        if part.counts.get("scored", 0) >= 2:
            yield from part.entries()
            return


def _write_task_files(folder: Path, scored: ScoredBoard) -> int:
    """``tasks/<task>.json`` for every task whose file is missing or out of date.

    ``digests.json`` records, per task, the key its file was computed from (the task's
    inputs, the scoring options and the bot's version).
    """
    manifest_path = folder / "digests.json"
    manifest = _read_json(manifest_path)
    current = {part.task_id: part.key for part in scored.parts}
    written = 0
    for part in scored.parts:
        path = folder / f"{part.task_id}.json"
        if part.key and manifest.get(part.task_id) == part.key and path.is_file():
            continue
        _write_chunks(path, task_file_chunks(part))
        written += 1
    for stale in sorted(set(manifest) - set(current)):  # tasks that left the dataset
        path = folder / f"{stale}.json"
        # The manifest is a file on disk: never let a name in it reach outside the folder.
        if isinstance(stale, str) and path.parent == folder and not stale.startswith("."):
            path.unlink(missing_ok=True)
    if current != manifest:
        _write(manifest_path, canonical(current) + "\n")
    return written


def write_board(board: Leaderboard, folder: Path) -> WrittenBoard:
    """Write a whole typed board's leaderboard.json, leaderboard.csv and methodology.md."""
    _write(folder / "leaderboard.json", to_json(board))
    _write(folder / "leaderboard.csv", to_csv(board))
    summary = board.model_dump(mode="json", exclude={"entries"})
    entries = (entry.model_dump(mode="json") for entry in board.entries)
    _write(folder / "methodology.md", methodology_from_board(summary, entries))
    return WrittenBoard(folder=folder)


def describe_scored(scored: ScoredBoard, written: WrittenBoard) -> list[str]:
    """What a command prints after :func:`write_scored`."""
    export = f"{written.export} and {written.folder / 'leaderboard.csv'}"
    return [
        f"{len(scored.parts)} task(s): {scored.count('scored')} scored, "
        f"{scored.count('pending')} pending, {scored.count('error')} failed evaluation, "
        f"{scored.count('review')} flagged for review",
        f"rescored {len(scored.rescored)} task(s) whose inputs changed, reused "
        f"{len(scored.parts) - len(scored.rescored)}; rewrote {written.task_files} task file(s)",
        *(f"note: {note}" for note in scored.notes),
        f"wrote {export}" if written.rewritten != () else f"{export} are up to date",
    ]


def describe_board(board: Leaderboard, written: WrittenBoard) -> list[str]:
    """What a command prints after :func:`write_board`."""
    count = {status: sum(1 for e in board.entries if e.status == status)
             for status in ("scored", "pending", "error")}
    review = sum(1 for e in board.entries if e.review_status == "under-review")
    return [
        f"{len(board.tasks)} task(s): {count['scored']} scored, {count['pending']} pending, "
        f"{count['error']} failed evaluation, {review} flagged for review",
        *(f"note: {note}" for note in board.notes),
        f"wrote {written.export} and {written.folder / 'leaderboard.csv'}",
    ]
