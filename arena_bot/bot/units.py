"""Evaluating one planned unit on a matrix runner, and assembling stored results from units.

:func:`assemble` turns the units of each submission back into the EvaluationResult
``arena evaluate`` would have stored, under the same content address, so publishing and
scoring cannot tell a scaled-out evaluation from a local one. A submission is assembled only
when all its units are present and were evaluated on the same inputs; otherwise the publish
job's own ``arena pipeline`` evaluates it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from arena_bot.bot.plan import Unit as PlanUnit
from arena_bot.bot.plan import units_for
from arena_bot.bot.unit_result import (
    FeatureOutcome,
    MergeOutcome,
    RunObservations,
    UnitResult,
)

# The engine's per-submission bookkeeping is reused as is, so a unit runs exactly the code
# `arena evaluate` runs; only which of its units run is chosen here.
from arena_bot.core.files import write_atomically
from arena_bot.evaluation.engine import Evaluator, _cacheable, _Pending, plan_units
from arena_bot.evaluation.engine import Unit as EngineUnit
from arena_bot.evaluation.store import InputKey, input_key
from arena_bot.intake.submissions import SubmissionFolder
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.tasks.dataset import TaskFolder


@dataclass(frozen=True)
class Assembled:
    results: list[tuple[SubmissionFolder, InputKey, EvaluationResult]]
    incomplete: list[str]  # submission keys with a missing or disagreeing unit


def plan_units_of(submission: SubmissionFolder) -> list[PlanUnit]:
    """The plan's units of one submission (the ids ``arena bot plan`` prints)."""
    spec = submission.spec
    return units_for([(submission.key, spec.setting, spec.features)])


def _belongs(engine_unit: EngineUnit, unit: PlanUnit) -> bool:
    if unit.setting == "coop":
        return engine_unit.kind == "coop"
    return engine_unit.kind == "feature" and engine_unit.feature_id in unit.features


def evaluate_unit(
    evaluator: Evaluator, submission: SubmissionFolder, task: TaskFolder, unit: PlanUnit,
    *, jobs: int = 1,
) -> UnitResult:
    """Run the engine's units that make up ``unit`` (every run of the submission)."""
    key = input_key(submission, task, evaluator.images.base_image)
    state = _Pending(submission=submission, task=task, key=key, started=time.monotonic())
    chosen = [u for u in plan_units(0, submission, task, patch_bytes=evaluator.patch_bytes)
              if _belongs(u, unit)]
    if chosen:
        evaluator._run_all(chosen, pending={0: state}, jobs=jobs)
    return UnitResult(
        unit=unit.id, submission=submission.key, content=key.content,
        image_digest=key.image, image=state.image,
        features=[FeatureOutcome(run_id=run, result=result)
                  for (run, _), result in sorted(state.features.items())],
        merges=[MergeOutcome(run_id=run, result=result)
                for run, result in sorted(state.merges.items())],
        observations=[RunObservations(run_id=run, observations=obs)
                      for run, obs in sorted(state.observations.items())],
        error=state.error,
        evaluated_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
        duration=round(time.monotonic() - state.started, 3),
    )


def write_unit_result(result: UnitResult, folder: Path) -> Path:
    """Write ``result`` into ``folder`` under a file name derived from its unit id."""
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(result.unit.encode()).hexdigest()[:12]
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", result.unit)[-80:]
    path = folder / f"{safe}-{digest}.json"
    write_atomically(path, (result.model_dump_json(indent=1) + "\n").encode())
    return path


def parse_units(documents: Iterable[dict[str, Any]]) -> list[UnitResult]:
    """The merged documents as UnitResults; a document that is not one is an error."""
    from arena_bot.core.errors import InputError, first_problem

    parsed = []
    for document in documents:
        try:
            parsed.append(UnitResult.model_validate(document))
        except ValidationError as exc:
            raise InputError(
                f"unit {document.get('unit')!r} is not a unit result: {first_problem(exc)}",
                hint="unit results are written by `arena bot evaluate-unit`",
            ) from None
    return parsed


def assemble(
    units: Sequence[UnitResult], submissions: dict[str, tuple[SubmissionFolder, TaskFolder]],
) -> Assembled:
    """Each submission's EvaluationResult from its unit results; a unit of a submission not
    in ``submissions`` (removed since it was planned) is ignored."""
    by_key: dict[str, list[UnitResult]] = defaultdict(list)
    for unit in units:
        by_key[unit.submission].append(unit)
    results: list[tuple[SubmissionFolder, InputKey, EvaluationResult]] = []
    incomplete: list[str] = []
    for key in sorted(by_key):
        if key not in submissions:
            continue
        submission, task = submissions[key]
        got = by_key[key]
        expected = {u.id for u in plan_units_of(submission)}
        addresses = {(u.content, u.image_digest) for u in got}
        if {u.unit for u in got} != expected or len(addresses) != 1:
            incomplete.append(key)
            continue
        content, image = addresses.pop()
        address = InputKey(content=content, image=image)
        result = _assemble_one(submission, task, address, got)
        if _cacheable(result):
            results.append((submission, address, result))
        else:  # a harness failure in some unit: the publish job re-runs it
            incomplete.append(key)
    return Assembled(results=results, incomplete=incomplete)


def _assemble_one(
    submission: SubmissionFolder, task: TaskFolder, address: InputKey,
    units: Sequence[UnitResult],
) -> EvaluationResult:
    state = _Pending(submission=submission, task=task, key=address, started=0.0)
    for unit in sorted(units, key=lambda u: u.unit):
        for feature in unit.features:
            state.features[(feature.run_id, feature.result.feature)] = feature.result
        for merge in unit.merges:
            state.merges[merge.run_id] = merge.result
        for observed in unit.observations:
            state.observations[observed.run_id] = observed.observations
        state.image = state.image or unit.image
        state.error = state.error or unit.error
    # _assemble reads nothing of the evaluator but ``state``: the engine's own assembly, so
    # a scaled-out result has exactly the shape of a local one.
    result = Evaluator._assemble(cast(Evaluator, None), state)
    # Deterministic: the same unit files give the same bytes, whatever order they came in.
    return result.model_copy(update={
        "evaluated_at": max(u.evaluated_at for u in units),
        "duration": round(sum(u.duration for u in units), 3),
    })
