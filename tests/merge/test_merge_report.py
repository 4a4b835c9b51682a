"""Seed 003's merge report built from MergeResults."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from arena_bot.merge.report import MAX_TEST_OUTPUT, MergeReport
from arena_bot.models.evaluation import ConflictDetails, FeatureResult, MergeResult

WHEN = dt.datetime(2024, 1, 15, 11, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))


def feature(number: int, *, passed: bool, output: str = "", reason: str | None = None):
    return FeatureResult(
        feature=number, status="passed" if passed else "failed", passed=passed,
        apply_status="clean", output=output, reason=reason,
    )


def test_report_has_seed_keys_and_values(tmp_path: Path) -> None:
    details = ConflictDetails(conflict_sections=2, conflict_lines=11, avg_lines_per_conflict=5.5)
    result = MergeResult(
        status="conflicts", strategy="union", conflict_score=62, severity="HIGH",
        conflict_details=details,
        features=[feature(2, passed=True, output="2 passed"),
                  feature(5, passed=False, output="1 failed", reason="tests failed")],
        both_passed=False,
    )

    report = MergeReport.from_result(result, repo_name="pallets_click_task", task_id="t-1",
                                     feature_ids=(2, 5), timestamp=WHEN)
    report.write(tmp_path / "r.json")

    data = json.loads((tmp_path / "r.json").read_text())
    assert data == {
        "repo_name": "pallets_click_task",
        "task_id": "t-1",
        "timestamp": "2024-01-15 10:30:00",  # converted to UTC
        "feature1": {"number": 2, "tests_passed": True, "test_output": "2 passed"},
        "feature2": {"number": 5, "tests_passed": False,
                     "test_output": "tests failed\n1 failed"},
        "merge_status": "conflicts",
        "conflict_score": 62,
        "conflict_details": {"conflict_sections": 2, "conflict_lines": 11,
                             "avg_lines_per_conflict": 5.5},
        "strategy": "union",
        "severity": "HIGH",
    }


def test_untested_features_are_null_and_long_output_keeps_its_end() -> None:
    long_output = "x" * MAX_TEST_OUTPUT + "SUMMARY"
    result = MergeResult(status="clean", strategy="ort",
                         features=[feature(1, passed=True, output=long_output)])

    report = MergeReport.from_result(result, repo_name="r", task_id="t", feature_ids=(1, 2),
                                     timestamp=WHEN)

    assert report.feature1.tests_passed is True
    assert len(report.feature1.test_output) == MAX_TEST_OUTPUT
    assert report.feature1.test_output.endswith("SUMMARY")
    assert report.feature2.tests_passed is None
    assert report.feature2.test_output == "not run: tests were not requested"
