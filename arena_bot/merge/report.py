"""Seed 003's merge report (``merge_report_*.json``), built from a MergeResult: seed 003's
keys (:class:`MergeReport`'s fields) plus ``strategy`` and ``severity``. On purpose:

* ``task_id`` is this project's task id (a string such as ``click-2068``), not a number;
* ``merge_status`` may also be ``apply_failed`` (CooperBench once reported a patch that did
  not apply as a clean merge);
* ``tests_passed`` is ``null`` when the tests were not run (``arena merge --no-tests``), and
  ``test_output`` then says why.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.core.files import write_atomically
from arena_bot.models.common import RecordModel
from arena_bot.models.evaluation import (
    ConflictDetails,
    ConflictSeverity,
    FeatureResult,
    MergeResult,
    MergeStatus,
    MergeStrategy,
)

#: Seed 003's timestamp format ("2024-01-15 10:30:00"), in UTC.
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"
#: Test output kept per feature in the report.
MAX_TEST_OUTPUT = 20_000


class FeatureReport(RecordModel):
    """One feature's tests on the merged code."""

    number: int
    tests_passed: bool | None
    test_output: str


class MergeReport(RecordModel):
    """Seed 003's merge report plus ``strategy`` and ``severity``."""

    repo_name: str
    task_id: str
    timestamp: str
    feature1: FeatureReport
    feature2: FeatureReport
    merge_status: MergeStatus
    conflict_score: int
    conflict_details: ConflictDetails
    strategy: MergeStrategy
    severity: ConflictSeverity

    @classmethod
    def from_result(
        cls,
        result: MergeResult,
        *,
        repo_name: str,
        task_id: str,
        feature_ids: tuple[int, int],
        timestamp: dt.datetime,
    ) -> MergeReport:
        """The report of ``result`` (features without results were not tested)."""
        by_id = {feature.feature: feature for feature in result.features}
        first, second = (
            _feature_report(number=fid, result=by_id.get(fid), merge=result)
            for fid in feature_ids
        )
        return cls(
            repo_name=repo_name,
            task_id=task_id,
            timestamp=timestamp.astimezone(dt.UTC).strftime(TIMESTAMP_FORMAT),
            feature1=first,
            feature2=second,
            merge_status=result.status,
            conflict_score=result.conflict_score,
            conflict_details=result.conflict_details,
            strategy=result.strategy,
            severity=result.severity,
        )

    def write(self, path: Path) -> None:
        """Write the report as indented JSON; InputError when the file cannot be written."""
        try:
            write_atomically(path, (json.dumps(self.model_dump(mode="json"), indent=2)
                                    + "\n").encode())
        except OSError as exc:
            raise InputError(
                f"cannot write the merge report: {exc.strerror}",
                path=path,
                hint="choose a writable file for --output",
            ) from exc


def _feature_report(
    *, number: int, result: FeatureResult | None, merge: MergeResult
) -> FeatureReport:
    if result is None:
        why = merge.error or "tests were not requested"
        return FeatureReport(number=number, tests_passed=None, test_output=f"not run: {why}")
    output = result.output
    if result.reason:
        output = f"{result.reason}\n{output}" if output else result.reason
    if len(output) > MAX_TEST_OUTPUT:
        output = output[-MAX_TEST_OUTPUT:]  # the end of a test log holds the summary
    return FeatureReport(number=number, tests_passed=result.passed, test_output=output)
