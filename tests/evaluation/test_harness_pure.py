"""Pure helpers of the harness: output capping, the protected-path pre-check, the changed
files handed to the plugin and the verdict checked against the plugin's stream."""

from __future__ import annotations

import hashlib

from arena_bot.evaluation.harness import (
    ReportTrailer,
    _stream_verdict,
    cap_text,
    changed_files,
    check_protected,
    reaped,
)
from arena_bot.evaluation.junit import MAX_JUNIT_BYTES, JUnitReport
from arena_bot.evaluation.stream import STREAM_LOST, Stream, parse_stream
from arena_bot.evaluation.verdict import Verdict
from arena_bot.intake.patches import ProtectedPaths
from arena_bot.models.evaluation import TestCaseResult
from arena_bot.sandbox.base import ExecResult

PROTECTED = ProtectedPaths(patterns=("tests/*",), exact=frozenset({"tests/test_new.py"}))


def _diff(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1 +1 @@\n-old\n+new\n"
    )


def test_cap_text_keeps_head_and_tail() -> None:
    assert cap_text("short", limit=100) == "short"
    capped = cap_text("H" * 900 + "T" * 900, limit=400)
    assert capped.startswith("H" * 300) and capped.endswith("T" * 100)
    assert "output cut to 400 bytes" in capped
    # Multi-byte characters are never split into invalid text.
    assert "\ufffd" not in cap_text("é" * 1000, limit=101)


def test_protected_paths_are_named_in_the_rejection() -> None:
    assert check_protected(_diff("src/app.py"), PROTECTED) is None
    reason = check_protected(_diff("tests/test_app.py") + _diff("pkg/conftest.py"), PROTECTED)
    assert reason is not None
    assert "tests/test_app.py" in reason and "pkg/conftest.py" in reason


def _run_result(*, truncated: bool = False) -> ExecResult:
    return ExecResult(exit_code=1, output="", truncated=truncated, timed_out=False,
                      oom_killed=False, duration=1.0)


_PASSED = Verdict("passed", True, None)
_REPORT = JUnitReport(cases=[TestCaseResult(name="tests.test_x::test_a", outcome="passed")])


def _stream(text: str) -> Stream:
    return parse_stream(text)[0]


def test_a_pytest_run_that_streamed_nothing_cannot_pass() -> None:
    """pytest or the harness's plugin was replaced (shadowed): a report without a stream."""
    verdict = _stream_verdict(_PASSED, stream=Stream(), report=_REPORT, run=_run_result(),
                              pytest_command=True)
    assert verdict.status == "tampered" and "never reported" in (verdict.reason or "")
    # A test command that is not pytest has no plugin to hear from.
    assert _stream_verdict(_PASSED, stream=Stream(), report=_REPORT, run=_run_result(),
                           pytest_command=False) == _PASSED


def test_output_cut_at_the_cap_cannot_pass_but_a_tamper_event_before_the_cut_counts() -> None:
    cut = _stream_verdict(_PASSED, stream=Stream(), report=_REPORT,
                          run=_run_result(truncated=True), pytest_command=True)
    assert cut.status == "failed" and "output cap" in (cut.reason or "")
    start = '\narena-result {"event": "start", "n": "ab", "seq": 1}\n'
    tamper = '\narena-result {"event": "tamper", "reason": "x replaced", "n": "ab", "seq": 2}\n'
    tampered = _stream_verdict(_PASSED, stream=_stream(start + tamper), report=_REPORT,
                               run=_run_result(truncated=True), pytest_command=True)
    assert tampered.status == "tampered" and "x replaced" in (tampered.reason or "")


def test_changed_files_are_the_patch_new_paths() -> None:
    patch = _diff("src/app.py") + (
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n"
        "+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
    new = hashlib.sha1(b"new").hexdigest()[:12]
    assert changed_files(patch) == {"changed": ["src/app.py"], "added": [],
                                    "lines": {"src/app.py": [(1, new)]}, "processes": []}
    added = ("diff --git a/statistics.py b/statistics.py\nnew file mode 100644\n"
             "--- /dev/null\n+++ b/statistics.py\n@@ -0,0 +1 @@\n+x = 1\n")
    assert changed_files(patch + added)["added"] == ["statistics.py"]
    assert changed_files("") == {"changed": [], "added": [], "lines": {}, "processes": []}
    # Files whose starting of programs is the feature's business: one whose kept lines start
    # processes already, or every file when the feature's tests stand in for the process API.
    running = ("diff --git a/run.py b/run.py\n--- a/run.py\n+++ b/run.py\n"
               "@@ -1 +1,2 @@\n subprocess.run(cmd)\n+x = 1\n")
    assert changed_files(patch + running)["processes"] == ["run.py"]
    assert changed_files(patch + running, processes=True)["processes"] == ["run.py", "src/app.py"]


def test_a_run_the_plugin_ended_for_a_lost_stream_is_tampered() -> None:
    lost = ExecResult(exit_code=STREAM_LOST, output="", truncated=False, timed_out=False,
                      oom_killed=False, duration=1.0)
    start = _stream('\narena-result {"event": "start", "n": "ab", "seq": 1}\n')
    verdict = _stream_verdict(Verdict("no_tests", False, "no report"), stream=start,
                              report=None, run=lost, pytest_command=True)
    assert verdict.status == "tampered" and "closed or replaced" in (verdict.reason or "")


_JUNIT = ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="1">'
          '<testcase classname="tests.test_x" name="test_a"/></testsuite></testsuites>')


def _trailer(report: str | None, *, nonce: str = "n0nce") -> str:
    size = "-" if report is None else str(len(report.encode()))
    return f"\narena-junit {nonce} {size}\n{report or ''}"


def test_the_report_trailer_is_split_from_the_tests_output() -> None:
    trailer = ReportTrailer(path="/tmp/r/junit.xml", nonce="n0nce")
    output, report = trailer.split("1 passed in 0.01s\n" + _trailer(_JUNIT))
    assert output == "1 passed in 0.01s\n"
    assert [(c.name, c.outcome) for c in report.cases] == [("tests.test_x::test_a", "passed")]
    output, report = trailer.split("no junit\n" + _trailer(None))
    assert output == "no junit\n" and "wrote no JUnit report" in (report.error or "")


def test_a_trailer_printed_by_the_code_under_test_does_not_count() -> None:
    """Code under test can read the nonce (the shell's command line is its own uid's) and
    print a trailer of its own: only the last marker, printed by the shell once every
    process of the tester is killed, is read; a forged one after it cannot exist."""
    trailer = ReportTrailer(path="/tmp/r/junit.xml", nonce="n0nce")
    failing = _JUNIT.replace('name="test_a"/>', 'name="test_a"><failure message="x"/></testcase>')
    _, report = trailer.split("out\n" + _trailer(_JUNIT) + "\nmore\n" + _trailer(failing))
    assert [c.outcome for c in report.cases] == ["failed"]
    # The real trailer damaged (an unreadable file: no size): an error, never the forged one.
    _, report = trailer.split(_trailer(_JUNIT) + "\narena-junit n0nce \nwc: denied\n")
    assert report.cases == [] and "could not be read" in (report.error or "")


def test_a_missing_or_cut_trailer_is_an_error() -> None:
    trailer = ReportTrailer(path="/tmp/r/junit.xml", nonce="n0nce")
    assert "no report trailer" in (trailer.split("killed\n")[1].error or "")
    cut = _trailer(_JUNIT)[:-10]  # output lost at the end
    assert "announced size" in (trailer.split(cut)[1].error or "")
    other = trailer.split(_trailer(_JUNIT, nonce="other"))[1]  # another run's nonce
    assert other.cases == [] and other.error
    huge = f"\narena-junit n0nce {MAX_JUNIT_BYTES + 1}\n<x/>"
    assert "larger" in (trailer.split(huge)[1].error or "")


def test_reaped_kills_the_tester_before_printing_the_report() -> None:
    script = reaped("pytest", report=ReportTrailer(path="/tmp/r/junit.xml", nonce="n0nce"))
    lines = script.splitlines()
    kill = next(i for i, line in enumerate(lines) if line.startswith("kill -KILL -1"))
    report = next(i for i, line in enumerate(lines) if "arena-junit n0nce" in line)
    assert lines[:4] == ["exec 2>&1", "(", "pytest", ")"] and kill < report
    assert lines[-1] == "exit $arena_rc"
