"""The pass/fail verdict of one feature's tests (pure logic, no Docker).

Issue 3's rule: a feature passes only if the submission's patch applied, the tests patch
applied, the test command exited 0, at least one test ran, and the structured results show
no failure or error. Printed text ("PASSED") is never read.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena_bot.evaluation.junit import JUnitReport
from arena_bot.models.evaluation import ApplyStatus, FeatureStatus


@dataclass(frozen=True)
class Verdict:
    status: FeatureStatus
    passed: bool
    reason: str | None


def decide(
    *,
    apply_status: ApplyStatus,
    tests_patch_applied: bool,
    setup_exit: int | None,
    exit_code: int | None,
    timed_out: bool,
    oom_killed: bool,
    report: JUnitReport | None,
) -> Verdict:
    """Combine what happened into one verdict (first failing condition gives the reason)."""
    if apply_status == "failed":
        return Verdict(
            "apply_failed", False, "the submission's patch does not apply to the base commit"
        )
    if apply_status == "missing":
        return Verdict("apply_failed", False, "the submission has no patch to apply")
    if not tests_patch_applied:
        return Verdict(
            "apply_failed",
            False,
            "the feature's tests patch does not apply on top of the submission's patch",
        )
    if timed_out:
        return Verdict("timeout", False, "the tests hit the wall-clock limit and were killed")
    if oom_killed:
        return Verdict(
            "failed", False, "a process ran out of memory and was killed (memory limit)"
        )
    if setup_exit not in (None, 0):
        return Verdict("failed", False, f"the test setup command exited with status {setup_exit}")
    if report is None or report.error is not None:
        detail = report.error if report is not None else "no JUnit report was written"
        return Verdict("no_tests", False, f"no structured test results: {detail}")
    ran = [case for case in report.cases if case.outcome != "skipped"]
    if not ran:
        return Verdict("no_tests", False, "no test ran (all skipped or none collected)")
    failed = report.count("failed")
    errored = report.count("error")
    if failed or errored:
        return Verdict(
            "failed", False, f"{failed} test(s) failed and {errored} errored"
        )
    if exit_code != 0:
        # The report says all passed but the command did not: trust neither alone.
        return Verdict(
            "failed",
            False,
            f"the test command exited with status {exit_code} although no test failed",
        )
    return Verdict("passed", True, None)
