"""Scale-out on a GitHub Actions matrix: units (submission x feature, or a coop pair) dealt
into at most ``max_jobs`` shards, and the per-unit result files merged. Deterministic: the
same units give the same shards, and results merge to the same bytes in any order."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from arena_bot.core.errors import ArenaError

#: GitHub refuses a matrix of more than 256 jobs.
MAX_MATRIX_JOBS = 256


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


def shard(units: list[Unit], max_jobs: int = MAX_MATRIX_JOBS) -> list[dict[str, Any]]:
    """The matrix ``include`` list: units dealt round-robin into at most ``max_jobs`` jobs."""
    if max_jobs < 1:
        raise ArenaError("max_jobs must be at least 1")
    jobs = min(max_jobs, len(units))
    shards: list[list[str]] = [[] for _ in range(jobs)]
    for index, unit in enumerate(units):
        shards[index % jobs].append(unit.id)
    return [{"shard": i, "units": " ".join(ids)} for i, ids in enumerate(shards)]


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
