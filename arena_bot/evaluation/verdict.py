"""The pass/fail verdict of one feature's tests (pure logic, no Docker).

A feature passes only if the submission's patch applied, the tests patch applied, the test
command exited 0, at least one test ran, and the structured results show no failure or
error. Printed text ("PASSED") is never read.

Canaries: the harness adds two tests with random names to the feature's test file
after the patches are applied, one that must pass and one that must fail. A report where the
failing canary passed, or either canary is missing, was forged by code under test (a rewritten
JUnit file, a pytest hook flipping outcomes, a forced exit status): the verdict is
``tampered``, never passed. With canaries the command's expected exit status is 1 (pytest's
"some tests failed", from the failing canary); 0 means the exit status was forged too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from arena_bot.evaluation.junit import JUnitReport
from arena_bot.models.evaluation import ApplyStatus, FeatureStatus
from arena_bot.models.task import ExpectedTests


def split_case(case_name: str) -> tuple[str, str]:
    """A JUnit case name's class part and test name (``pkg.test_x.TestA::test_b[p]`` →
    ``pkg.test_x.TestA``, ``test_b[p]``). Parameter ids may hold ``::`` (an IPv6 address):
    only the part before the first ``[`` is split, the bracket tail stays with the name."""
    head, bracket, tail = case_name.partition("[")
    classname, sep, name = head.rpartition("::")
    return (classname, name + bracket + tail) if sep else ("", case_name)


@dataclass(frozen=True)
class Canaries:
    """The two canary tests of one run: full JUnit case ids (``tests.test_x.TestA::test_b``)
    as the harness placed them, or bare function names (any module)."""

    must_pass: str
    must_fail: str

    def matches(self, canary: str, case_name: str) -> bool:
        """Whether ``case_name`` is the canary ``canary`` (one of the two fields)."""
        if "::" in canary:
            # A parametrized autouse fixture gives the canary parameters too: `id[param]`.
            return case_name == canary or case_name.startswith(canary + "[")
        return split_case(case_name)[1].partition("[")[0] == canary

    def is_canary(self, case_name: str) -> bool:
        """Whether a JUnit case name (``module::name``) is one of the canaries."""
        return self.matches(self.must_pass, case_name) or self.matches(self.must_fail, case_name)


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
    canaries: Canaries | None = None,
    feature_modules: frozenset[str] = frozenset(),
    expected: ExpectedTests | None = None,
    skips_fail: bool = True,
) -> Verdict:
    """Combine what happened into one verdict (first failing condition gives the reason).

    With ``canaries``, ``report`` still holds the canary cases; they are checked here and
    left out of every count (use :func:`without_canaries` for what to store).
    ``feature_modules`` are the module names (file stems, ``test_x``) of the feature's own test
    files. Skips: with ``expected`` ids, a skip counts against the run only where the id is
    expected (the gold patch's runs passed it; a test skipped by its own condition, such as a
    Windows-only ``skipif``, is not expected and does not count). Without recorded ids and
    ``skips_fail`` (a submission on an unchecked task), any skipped test of the feature's own
    files fails the feature (code under test can raise ``SkipTest`` for exactly the calls it
    cannot handle); ``skips_fail=False`` (the gold runs of ``arena dataset check``, which
    decide the expected ids) does not count skips."""
    early = _before_the_report(
        apply_status=apply_status, tests_patch_applied=tests_patch_applied,
        setup_exit=setup_exit, timed_out=timed_out, oom_killed=oom_killed, report=report,
    )
    if early is not None:
        return early
    assert report is not None  # _before_the_report answers for a missing one
    expected_exit = 0
    # Ids that fail here whatever the patch (ExpectedTests.always_failing): never counted.
    ignored = frozenset(expected.always_failing) if expected is not None else frozenset()
    if canaries is not None:
        tampered, forged_outcome = _canary_problem(report, canaries)
        report = without_canaries(report, canaries)
        real_failures = sum(case.outcome in ("failed", "error") for case in report.cases
                            if case.name not in ignored)
        # A missing canary next to real failures is an honest collection error of the test
        # module (it takes the canaries with it): that is a failure, not a forgery. A canary
        # with the wrong outcome is a forgery whatever else the report says. Failures that
        # do not count cannot explain a missing canary.
        if tampered is not None and (forged_outcome or not real_failures):
            return Verdict("tampered", False, tampered)
        # The failing canary makes pytest exit 1; a forged exit status shows as 0.
        expected_exit = 1
    if canaries is None and any(case.name in ignored and case.outcome in ("failed", "error")
                                for case in report.cases):
        expected_exit = 1  # pytest's status for the failures that do not count
    problem = (
        _outcome_problem(report, ignored=ignored)
        or _expected_problem(report, expected)
        or (_skipped_own_problem(report, feature_modules)
            if expected is None and skips_fail else None)
        or _exit_problem(exit_code, expected_exit=expected_exit,
                         canaries=canaries is not None)
    )
    return problem or Verdict("passed", True, None)


def _before_the_report(
    *, apply_status: ApplyStatus, tests_patch_applied: bool, setup_exit: int | None,
    timed_out: bool, oom_killed: bool, report: JUnitReport | None,
) -> Verdict | None:
    """What ended the run before there were results to judge, in the order it happens."""
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
    return None


def _outcome_problem(report: JUnitReport, *, ignored: frozenset[str] = frozenset()
                     ) -> Verdict | None:
    """No test ran, or one failed (``ignored``: ids that fail here whatever the patch,
    :attr:`ExpectedTests.always_failing`)."""
    ran = [case for case in report.cases if case.outcome != "skipped"]
    if not ran:
        return Verdict("no_tests", False, "no test ran (all skipped or none collected)")
    counted = [case for case in report.cases if case.name not in ignored]
    failed = sum(case.outcome == "failed" for case in counted)
    errored = sum(case.outcome == "error" for case in counted)
    if failed or errored:
        return Verdict("failed", False, f"{failed} test(s) failed and {errored} errored")
    return None


def _expected_problem(report: JUnitReport, expected: ExpectedTests | None) -> Verdict | None:
    """Every expected id (fail-to-pass and pass-to-pass) must be in the results, passed."""
    if expected is None:
        return None
    outcomes = {case.name: case.outcome for case in report.cases}
    required = [*expected.fail_to_pass, *expected.pass_to_pass]
    missing = [name for name in required if name not in outcomes]
    if missing:
        return Verdict(
            "failed", False,
            f"{len(missing)} expected test(s) are missing from the results (first: "
            f"{missing[0]}): every test the gold patch passes must run and pass",
        )
    not_passed = [name for name in required if outcomes[name] != "passed"]
    if not_passed:
        return Verdict(
            "failed", False,
            f"{len(not_passed)} expected test(s) did not pass (first: {not_passed[0]} "
            f"{outcomes[not_passed[0]]})",
        )
    return None


def _skipped_own_problem(report: JUnitReport, feature_modules: frozenset[str]) -> Verdict | None:
    skipped_own = [
        case.name for case in report.cases
        if case.outcome == "skipped" and in_modules(case.name, feature_modules)
    ]
    if skipped_own:
        return Verdict(
            "failed", False,
            f"{len(skipped_own)} of the feature's own tests were skipped (first: "
            f"{skipped_own[0]}): a feature passes only when its tests run and pass",
        )
    return None


def _exit_problem(exit_code: int | None, *, expected_exit: int, canaries: bool) -> Verdict | None:
    if canaries and exit_code == 0:
        return Verdict(
            "tampered",
            False,
            "the test command exited 0 although the harness's failing canary test failed: "
            "the exit status was forged",
        )
    if exit_code != expected_exit:
        # The report says all passed but the command did not: trust neither alone.
        return Verdict(
            "failed",
            False,
            f"the test command exited with status {exit_code} although no test failed",
        )
    return None


def without_canaries(report: JUnitReport, canaries: Canaries) -> JUnitReport:
    """``report`` without the canary cases (what is stored and counted)."""
    return replace(report, cases=[c for c in report.cases if not canaries.is_canary(c.name)])


def _canary_problem(report: JUnitReport, canaries: Canaries) -> tuple[str | None, bool]:
    """Why the canaries show a forged report (or ``None``), and whether a canary came back
    with the wrong outcome (as opposed to missing)."""
    passing = [c.outcome for c in report.cases if canaries.matches(canaries.must_pass, c.name)]
    failing = [c.outcome for c in report.cases if canaries.matches(canaries.must_fail, c.name)]
    wrong_fail = [outcome for outcome in failing if outcome != "failed"]
    if wrong_fail:
        return ("the harness's canary test that must fail is reported as "
                f"{wrong_fail[0]}: the results were rewritten by code under test"), True
    wrong_pass = [outcome for outcome in passing if outcome != "passed"]
    if wrong_pass and wrong_pass[0] != "error":
        return ("the harness's canary test that must pass is reported as "
                f"{wrong_pass[0]}: the results were tampered with"), True
    if not failing:
        return ("the harness's failing canary test is missing from the results "
                "(report forged)"), False
    if not passing or wrong_pass:
        return ("the harness's passing canary test is missing or errored "
                "(report forged)"), False
    return None, False


def in_modules(case_name: str, modules: frozenset[str]) -> bool:
    """Whether a JUnit case (``pkg.test_x.TestClass::test_y``) comes from one of ``modules``
    (test file stems such as ``test_x``)."""
    classname = split_case(case_name)[0]
    return any(part in modules for part in classname.split("."))
