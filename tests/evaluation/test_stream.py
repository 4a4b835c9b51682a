"""Cross-checking the JUnit report with the outcomes streamed while the tests ran (pure; the
plugin itself runs in every Docker evaluation and in the exploit corpus)."""

from __future__ import annotations

import json

from arena_bot.evaluation.junit import JUnitReport
from arena_bot.evaluation.stream import junit_id, parse_stream, stream_problem
from arena_bot.models.evaluation import TestCaseResult


def _line(**payload: str) -> str:
    return f"\narena-result {json.dumps(payload)}\n"


def _report(**outcomes: str) -> JUnitReport:
    """Keyword ``tests__test_x__test_a`` names the JUnit case ``tests.test_x::test_a``."""
    def name(key: str) -> str:
        *module, test = key.split("__")
        return ".".join(module) + "::" + test
    return JUnitReport(cases=[TestCaseResult(name=name(key), outcome=outcome)
                              for key, outcome in outcomes.items()])


def _stream(*events: str, end: bool = True) -> str:
    text = _line(event="start") + ".. some pytest output\n"
    for event in events:
        nodeid, when, outcome = event.split(" ")
        text += _line(id=nodeid, when=when, outcome=outcome)
    return text + (_line(event="end") if end else "") + "1 failed, 1 passed\n"


def test_nodeids_map_to_junit_names() -> None:
    assert junit_id("tests/test_x.py::test_a[1-2]") == "tests.test_x::test_a[1-2]"
    assert junit_id("tests/sub/test_x.py::TestA::test_b") == "tests.sub.test_x.TestA::test_b"
    assert junit_id("tests/test_x.py") == "tests/test_x.py"


def test_an_honest_report_agrees_and_the_lines_are_removed_from_the_output() -> None:
    stream, text = parse_stream(_stream("tests/test_x.py::test_a call passed",
                                        "tests/test_x.py::test_b call failed"))
    assert stream_problem(_report(tests__test_x__test_a="passed",
                                  tests__test_x__test_b="failed"), stream) is None
    assert "arena-result" not in text and "1 failed, 1 passed" in text


def test_a_report_rewritten_to_passed_is_caught() -> None:
    stream, _ = parse_stream(_stream("tests/test_x.py::test_b setup passed",
                                     "tests/test_x.py::test_b call failed"))
    problem = stream_problem(_report(tests__test_x__test_b="passed"), stream)
    assert problem is not None and "tests.test_x::test_b passed, but it failed" in problem


def test_a_forged_passed_line_does_not_hide_a_streamed_failure() -> None:
    stream, _ = parse_stream(_stream("tests/test_x.py::test_b call failed",
                                     "tests/test_x.py::test_b call passed"))
    assert stream_problem(_report(tests__test_x__test_b="passed"), stream) is not None


def test_a_passed_test_that_never_ran_is_caught() -> None:
    stream, _ = parse_stream(_stream("tests/test_x.py::test_a call passed"))
    problem = stream_problem(_report(tests__test_x__test_a="passed",
                                     tests__test_x__test_new="passed"), stream)
    assert problem is not None and "no such test ran" in problem


def test_a_stream_cut_short_next_to_passes_is_caught() -> None:
    stream, _ = parse_stream(_stream("tests/test_x.py::test_a call passed", end=False))
    assert "stopped" in (stream_problem(_report(tests__test_x__test_a="passed"), stream) or "")


def test_collection_errors_and_skips_need_no_stream_line() -> None:
    stream, _ = parse_stream(_stream("tests/test_x.py::test_a call skipped"))
    report = _report(tests__test_x__test_a="skipped", tests__test_y__collect="error")
    assert stream_problem(report, stream) is None


def test_no_stream_means_no_check() -> None:
    # The test command is not pytest (or the plugin never loaded): nothing to compare.
    stream, text = parse_stream("plain output\n")
    assert not stream.started and text == "plain output\n"
    assert stream_problem(_report(tests__a="passed"), stream) is None


def test_damaged_lines_are_ignored() -> None:
    stream, _ = parse_stream("arena-result {not json\narena-result [1]\n" + _stream())
    assert stream.started and stream.ended and not stream.seen
