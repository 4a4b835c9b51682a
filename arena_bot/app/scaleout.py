"""Scale-out use cases (the publish workflow's matrix): plan the units, evaluate some on a
matrix runner, aggregate the runners' unit results into the result store."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_bot.app.evaluation import docker_evaluator, planned_base_image
from arena_bot.app.memo import Memo, code_version, content_ids
from arena_bot.app.scoring import ids_by_folder
from arena_bot.bot.plan import (
    PlanFile,
    Unit,
    aggregate,
    matrix_of,
    read_plan,
    shard,
    units_for,
    write_plan,
)
from arena_bot.bot.unit_result import UnitResult
from arena_bot.bot.units import (
    assemble,
    evaluate_unit,
    parse_units,
    plan_units_of,
    write_unit_result,
)
from arena_bot.core.errors import ArenaError, InputError, UsageError
from arena_bot.core.files import write_atomically
from arena_bot.core.settings import Settings
from arena_bot.evaluation.store import ResultStore
from arena_bot.intake.submissions import SubmissionFolder, all_submission_folders, load_submission
from arena_bot.tasks.dataset import Dataset, TaskFolder


@dataclass(frozen=True)
class Plan:
    """The units to evaluate, the matrix jobs they are dealt into, and the submissions left
    out (each with why)."""

    units: list[Unit]
    #: The unit ids of each matrix job (``shards[i]``: job ``i``'s, dealt round-robin).
    shards: list[list[str]]
    #: Why each invalid submission was left out.
    skipped: list[str] = field(default_factory=list)

    def matrix(self) -> dict[str, list[dict[str, int]]]:
        """The matrix output (``strategy.matrix``): shard indices only, at most 256."""
        return matrix_of(self.shards)

    def listing(self) -> dict[str, list[dict[str, object]]]:
        """The matrix with each shard's units (``"id id ..."``), for a person to read."""
        return {"include": [{"shard": i, "units": " ".join(ids)}
                            for i, ids in enumerate(self.shards)]}

    def write(self, folder: Path) -> Path:
        """Write ``folder/plan.json`` (each shard's unit ids, for the matrix jobs)."""
        return write_plan(PlanFile.of(self.shards), folder)


def plan(settings: Settings, *, pending: bool, max_jobs: int, memo: Memo) -> Plan:
    """The units of every valid submission (``pending``: only of those without a stored
    result for the base image evaluation will use), dealt into at most ``max_jobs`` matrix
    jobs; an invalid submission is skipped (with why), not fatal.

    What a top folder of ``submissions/`` (a task's) gives is kept in ``memo`` under the
    content ids of its files and of the task's (and, with ``pending``, of the stored
    results and the base image): an unchanged board's plan parses nothing."""
    base_image = planned_base_image(settings) if pending else settings.base_image
    tops = {"submissions": settings.submissions_dir, "dataset": settings.dataset_dir}
    if pending:
        tops["results"] = settings.results_dir
    ids = content_ids(settings.root, [settings.submissions_dir, settings.dataset_dir],
                      hashed=[settings.results_dir] if pending else [])
    digests: dict[str, Any] = {}
    for (kind, group), files in sorted(ids_by_folder(settings.root, tops, ids).items()):
        digest = digests.setdefault(group, hashlib.sha256(
            f"{code_version()}\n{pending}\n{base_image}\n{group}\n".encode()))
        for inner, content_id in sorted(files):
            digest.update(f"{kind}\0{inner}\0{content_id}\n".encode(errors="surrogateescape"))
    top = os.path.abspath(settings.submissions_dir)
    groups: dict[str, list[Path]] = {}
    for folder in all_submission_folders(settings.submissions_dir):
        relative = os.path.relpath(os.path.abspath(folder), top).replace(os.sep, "/")
        groups.setdefault(relative.partition("/")[0], []).append(folder)
    dataset = Dataset(settings.dataset_dir)
    store = ResultStore(settings.results_dir)
    specs: list[PlannedSpec] = []
    skipped: list[str] = []
    used: set[str] = set()
    for group, folders in groups.items():
        key = f"plan:{digests[group].hexdigest()}" if group in digests else ""
        stored = memo.get(key) if key else None
        if stored is None:
            found_specs, messages = _plan_group(folders, dataset, store, pending=pending,
                                                base_image=base_image)
            if key:
                memo.put(key, json.dumps([found_specs, messages]).encode())
        else:
            found_specs, messages = json.loads(stored)
        if key:
            used.add(key)
        skipped += messages
        specs += [(name, setting, list(features)) for name, setting, features in found_specs]
    memo.retain("plan:", used)
    units = units_for(specs)
    return Plan(units=units, shards=shard(units, max_jobs), skipped=skipped)


#: One submission to plan: its key, setting and features (what units are made of).
PlannedSpec = tuple[str, str, list[int]]


def _plan_group(
    folders: list[Path], dataset: Dataset, store: ResultStore, *, pending: bool,
    base_image: str,
) -> tuple[list[PlannedSpec], list[str]]:
    specs: list[PlannedSpec] = []
    messages: list[str] = []
    for folder in folders:
        try:
            loaded = load_submission(folder)
            task = dataset.get(loaded.spec.task) if pending else None
        except ArenaError as exc:
            messages.append(str(exc))
            continue
        if task is None or store.lookup(loaded, task, base_image) is None:
            specs.append((loaded.key, loaded.spec.setting, list(loaded.spec.features)))
    return specs, messages


def shard_units(plan_file: Path, index: int) -> list[str]:
    """The unit ids of shard ``index`` in ``plan_file`` (a plan.json :meth:`Plan.write`
    wrote); a missing or malformed file, or one without that shard, is a clear error."""
    return read_plan(plan_file).units_of(index, plan_file)


def evaluate_units(
    settings: Settings, ids: Sequence[str], *, output: Path, jobs: int, base_image: str | None,
    progress: Callable[[str], None] = lambda _line: None,
) -> Iterator[tuple[UnitResult, Path]]:
    """Evaluate the planned units ``ids`` in Docker (every id checked before any runs),
    each unit's result written to ``output`` as it finishes (yielded with its file)."""
    resolved = [_resolve_unit(settings, unit_id) for unit_id in ids]
    setup = docker_evaluator(settings, base_image=base_image, progress=progress)
    try:
        for submission, task, unit in resolved:
            result = evaluate_unit(setup.evaluator, submission, task, unit, jobs=jobs)
            yield result, write_unit_result(result, output)
    finally:
        setup.engine.drain()


def _resolve_unit(settings: Settings, unit_id: str) -> tuple[SubmissionFolder, TaskFolder, Unit]:
    """(submission, task, plan unit) of a unit id; an unknown id is a clear error."""
    key = unit_id.split("#", 1)[0]
    folder = _folder_of(settings, key)
    if "#" not in unit_id or folder is None:
        raise UsageError(f"unknown unit {unit_id!r}", path=settings.submissions_dir / key,
                         hint="use the ids `arena bot plan` prints (task/submission#f1)")
    submission = load_submission(folder)
    task = Dataset(settings.dataset_dir).get(submission.spec.task)
    units = plan_units_of(submission)
    for unit in units:
        if unit.id == unit_id:
            return submission, task, unit
    raise UsageError(f"unknown unit {unit_id!r}", path=folder / "submission.yaml",
                     hint=f"this submission's units are: {', '.join(u.id for u in units)}")


def _folder_of(settings: Settings, key: str) -> Path | None:
    """The folder of submission ``key`` (task/submission); ``None``: there is none."""
    folder = settings.submissions_dir / key
    if ".." in key.split("/") or not (folder / "submission.yaml").is_file():
        return None
    return folder


@dataclass(frozen=True)
class Aggregated:
    """What :func:`aggregate_units` did."""

    #: The merged unit results (``{"units": [...]}``, sorted by unit id).
    merged: dict[str, list[dict[str, object]]]
    stored: list[str]  # submission keys whose assembled result was stored
    incomplete: list[str]  # keys with a missing or failed unit: `arena pipeline` evaluates
    skipped: list[str] = field(default_factory=list)  # "key: why" of units ignored


def aggregate_units(
    settings: Settings, paths: Sequence[Path], *, also_from: Path | None = None,
    output: Path | None = None,
) -> Aggregated | None:
    """Merge the unit result files (any order; ``paths`` and every ``*.json`` under
    ``also_from``, the downloaded matrix artifacts) and store each submission's assembled
    EvaluationResult in the result store; a submission with a missing or failed unit is
    not stored. ``output``: also the merged unit results, written whole. ``None``: no unit
    result at all (no matrix ran)."""
    paths = list(paths)
    if also_from is not None and also_from.is_dir():
        paths += sorted(p for p in also_from.rglob("*.json") if p.is_file())
    if not paths:
        return None
    merged = aggregate(paths)
    units = parse_units(merged["units"])
    dataset = Dataset(settings.dataset_dir)
    found: dict[str, tuple[SubmissionFolder, TaskFolder]] = {}
    skipped = []
    for key in sorted({u.submission for u in units}):
        folder = _folder_of(settings, key)
        if folder is None:
            skipped.append(f"{key}: no such submission any more; its units are ignored")
            continue
        try:
            submission = load_submission(folder)
            found[key] = (submission, dataset.get(submission.spec.task))
        except ArenaError as exc:
            skipped.append(f"{key}: skipped ({exc})")
    assembled = assemble(units, found)
    store = ResultStore(settings.results_dir)
    for submission, address, result in assembled.results:
        store.save(submission, address, result)
    if output is not None:
        data = json.dumps(merged, indent=2, sort_keys=True) + "\n"
        try:
            write_atomically(output, data.encode())
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror}", path=output) from None
    return Aggregated(merged=merged, stored=[s.key for s, _, _ in assembled.results],
                      incomplete=assembled.incomplete, skipped=skipped)
