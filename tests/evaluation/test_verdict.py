"""The pass/fail rule of issue 3, condition by condition."""

from __future__ import annotations

import pytest

from arena_bot.evaluation.junit import JUnitReport
from arena_bot.evaluation.verdict import decide
from arena_bot.models.evaluation import TestCaseResult


def report(*outcomes: str) -> JUnitReport:
    return JUnitReport(
        cases=[TestCaseResult(name=f"t{i}", outcome=o) for i, o in enumerate(outcomes)]  # type: ignore[arg-type]
    )


GOOD = {
    "apply_status": "clean",
    "tests_patch_applied": True,
    "setup_exit": None,
    "exit_code": 0,
    "timed_out": False,
    "oom_killed": False,
    "report": report("passed", "skipped"),
}


def test_everything_right_passes() -> None:
    verdict = decide(**GOOD)
    assert (verdict.status, verdict.passed, verdict.reason) == ("passed", True, None)
    assert decide(**{**GOOD, "apply_status": "three_way"}).passed


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"apply_status": "failed"}, "apply_failed", "does not apply"),
        ({"apply_status": "missing"}, "apply_failed", "no patch"),
        ({"tests_patch_applied": False}, "apply_failed", "tests patch"),
        ({"timed_out": True, "report": None}, "timeout", "wall-clock"),
        ({"oom_killed": True, "exit_code": 137}, "failed", "out of memory"),
        ({"setup_exit": 2}, "failed", "setup"),
        ({"report": None}, "no_tests", "no JUnit"),
        ({"report": JUnitReport(error="bad xml")}, "no_tests", "bad xml"),
        ({"report": report()}, "no_tests", "no test ran"),
        ({"report": report("skipped")}, "no_tests", "no test ran"),
        ({"report": report("passed", "failed"), "exit_code": 1}, "failed", "1 test(s) failed"),
        ({"report": report("passed", "error")}, "failed", "1 errored"),
        # All reported passing but a non-zero exit: neither is trusted alone.
        ({"exit_code": 1}, "failed", "exited with status 1"),
        ({"exit_code": None}, "failed", "exited with status None"),
    ],
)
def test_each_condition_fails_with_a_reason(change: dict, status: str, words: str) -> None:
    verdict = decide(**{**GOOD, **change})
    assert verdict.status == status and not verdict.passed
    assert words in (verdict.reason or "")
