"""Scale-out on a GitHub Actions matrix: units (submission x feature, or a coop pair) dealt
into at most ``max_jobs`` shards, and the per-unit result files merged. Deterministic: the
same units give the same shards, and results merge to the same bytes in any order.

The matrix itself carries shard indices only (GitHub caps a job's outputs at 1 MB, which
the unit ids of a large board exceed); each shard's unit ids travel in ``plan.json``
(:class:`PlanFile`), which the plan job uploads and each matrix job downloads."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from arena_bot.core.errors import ArenaError, InputError, UsageError, first_problem
from arena_bot.core.files import write_atomically

#: GitHub refuses a matrix of more than 256 jobs.
MAX_MATRIX_JOBS = 256
#: The plan file's name in the folder ``arena bot plan --output`` writes.
PLAN_FILE = "plan.json"
#: The version of ``plan.json`` this bot writes and reads.
PLAN_VERSION: Literal[1] = 1


class Unit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    submission: str  # task/submission key
    setting: str
    features: tuple[int, ...]


def units_for(specs: Iterable[tuple[str, str, Iterable[int]]]) -> list[Unit]:
    """Units of ``(key, setting, features)``: coop keeps its pair together (merge analysis
    needs both patches); single and solo split per feature. Sorted by id."""
    units: dict[str, Unit] = {}
    for key, setting, features in specs:
        feats = tuple(features)
        if setting == "coop":
            parts = [(f"{key}#coop-{'-'.join(map(str, feats))}", feats)]
        else:
            parts = [(f"{key}#f{f}", (f,)) for f in feats]
        for unit_id, unit_features in parts:
            units[unit_id] = Unit(id=unit_id, submission=key, setting=setting,
                                  features=unit_features)
    return [units[k] for k in sorted(units)]


def shard(units: list[Unit], max_jobs: int = MAX_MATRIX_JOBS) -> list[list[str]]:
    """The unit ids of each matrix job: units dealt round-robin into at most ``max_jobs``
    jobs (none empty; no job at all for no unit)."""
    if max_jobs < 1:
        raise ArenaError("max_jobs must be at least 1")
    jobs = min(max_jobs, len(units))
    shards: list[list[str]] = [[] for _ in range(jobs)]
    for index, unit in enumerate(units):
        shards[index % jobs].append(unit.id)
    return shards


def matrix_of(shards: Sequence[Sequence[str]]) -> dict[str, list[dict[str, int]]]:
    """The matrix (``strategy.matrix``): one ``{"shard": i}`` per job, no unit ids, so its
    size depends on the number of jobs (at most 256) and never on the number of units."""
    return {"include": [{"shard": i} for i in range(len(shards))]}


UnitId = Annotated[str, Field(min_length=1)]


class PlanShard(BaseModel):
    """One matrix job's share: its index (``matrix.shard``) and its unit ids."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    shard: Annotated[int, Field(ge=0)]
    units: Annotated[list[UnitId], Field(min_length=1)]


class PlanFile(BaseModel):
    """``plan.json``: the unit ids of every matrix job, written by ``arena bot plan
    --output`` and read by ``arena bot evaluate-unit --plan FILE --shard N``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    schema_version: Literal[1] = 1
    #: The jobs in order: ``shards[i].shard == i``; every unit id appears once.
    shards: Annotated[list[PlanShard], Field(max_length=MAX_MATRIX_JOBS)]

    @model_validator(mode="after")
    def _indexed_and_unique(self) -> PlanFile:
        for index, job in enumerate(self.shards):
            if job.shard != index:
                raise ValueError(f"shards[{index}] has shard {job.shard}; the shards are "
                                 "numbered 0, 1, 2... in order")
        seen: set[str] = set()
        for job in self.shards:
            for unit in job.units:
                if unit in seen:
                    raise ValueError(f"unit {unit!r} is in more than one place")
                seen.add(unit)
        return self

    @classmethod
    def of(cls, shards: Sequence[Sequence[str]]) -> PlanFile:
        """The plan file of :func:`shard`'s unit ids."""
        return cls(shards=[PlanShard(shard=i, units=list(ids)) for i, ids in enumerate(shards)])

    def units_of(self, index: int, path: Path) -> list[str]:
        """The unit ids of shard ``index``; a shard the plan does not have is a UsageError
        naming ``path`` (the file read)."""
        if not 0 <= index < len(self.shards):
            count = len(self.shards)
            have = (f"its shards are 0 to {count - 1}" if count > 1 else "it has shard 0 only"
                    if count else "it has no shard (nothing to evaluate)")
            raise UsageError(f"the plan has no shard {index}: {have}", path=path,
                             hint="give the matrix job's own `matrix.shard` and the plan.json "
                             "of the same run")
        return list(self.shards[index].units)


def write_plan(plan: PlanFile, folder: Path) -> Path:
    """Write ``folder/plan.json`` (the folder created); its path."""
    path = folder / PLAN_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(path, (plan.model_dump_json() + "\n").encode())
    except OSError as exc:
        raise InputError(f"cannot write the plan: {exc.strerror}", path=path) from None
    return path


def read_plan(path: Path) -> PlanFile:
    """Read and check ``plan.json``; every failure is an InputError naming the file."""
    hint = "download the plan job's artifact (arena-plan) first; `arena bot plan --output " \
        "DIR` writes DIR/plan.json"
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot read the plan: {exc.strerror}", path=path, hint=hint) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("the plan is not a file", path=path, hint=hint)
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read the plan: {exc.strerror}", path=path, hint=hint) from None
    except RecursionError:
        raise InputError("the plan is not JSON (nested too deep)", path=path,
                         hint=hint) from None
    except ValueError as exc:  # UnicodeDecodeError included
        raise InputError(f"the plan is not JSON ({exc})", path=path, hint=hint) from None
    if isinstance(data, dict) and data.get("schema_version") != PLAN_VERSION:
        found = (f"schema_version {json.dumps(data['schema_version'])}"
                 if "schema_version" in data else "no schema_version")
        raise InputError(
            f"the plan has {found}; this bot reads version {PLAN_VERSION}", path=path,
            hint="plan and evaluate with the same version of the bot (one workflow run)")
    try:
        return PlanFile.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"the plan does not match its format at {first_problem(exc)} "
            f"({exc.error_count()} problem(s))", path=path,
            hint="plan.json is written by `arena bot plan --output DIR`") from None


def aggregate(paths: Iterable[Path]) -> dict[str, Any]:
    """Merge per-unit result files (``{"unit": id, ...}``) into one document keyed by unit.

    The same unit twice with identical content is fine (a re-run job); with different
    content it is an error naming both files, since picking one would depend on order.
    """
    merged: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path in paths:
        result = _read_result(path)
        unit = result["unit"]
        if unit in merged and merged[unit][1] != result:
            raise ArenaError(
                f"unit {unit!r} has two different results (also in {merged[unit][0]})",
                path=path, hint="re-run the matrix job of that unit and keep one file",
            )
        merged.setdefault(unit, (path, result))
    return {"units": [merged[k][1] for k in sorted(merged)]}


def _read_result(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ArenaError(f"cannot read the result ({exc.strerror})", path=path) from None
    except RecursionError:
        raise ArenaError("result is not JSON (nested too deep)", path=path,
                         hint="unit results are written per unit by the matrix jobs") from None
    except ValueError as exc:
        raise ArenaError(f"result is not JSON ({exc})", path=path,
                         hint="the matrix job did not finish writing it; re-run it") from None
    if not isinstance(data, dict) or not isinstance(data.get("unit"), str):
        raise ArenaError('result has no "unit" id', path=path,
                         hint="unit results are written per unit by the matrix jobs")
    return data
