"""Cross-checking the JUnit report with the outcomes streamed while the tests ran (pure; the
plugin itself runs in every Docker evaluation and in the exploit corpus)."""

from __future__ import annotations

import json

from arena_bot.evaluation.junit import JUnitReport
from arena_bot.evaluation.stream import junit_id, parse_stream, stream_problem
from arena_bot.models.evaluation import TestCaseResult

NONCE = "a1b2c3"


class _Numbered:
    """Numbers the lines of one plugin run, as arena_stream does."""

    def __init__(self, nonce: str = NONCE) -> None:
        self.nonce, self.seq = nonce, 0

    def __call__(self, **payload: object) -> str:
        self.seq += 1
        return f"\narena-result {json.dumps({**payload, 'n': self.nonce, 'seq': self.seq})}\n"


_line = _Numbered()


def _report(**outcomes: str) -> JUnitReport:
    """Keyword ``tests__test_x__test_a`` names the JUnit case ``tests.test_x::test_a``."""
    def name(key: str) -> str:
        *module, test = key.split("__")
        return ".".join(module) + "::" + test
    return JUnitReport(cases=[TestCaseResult(name=name(key), outcome=outcome)
                              for key, outcome in outcomes.items()])


def _stream(*events: str, end: bool = True, nonce: str = NONCE) -> str:
    _line = _Numbered(nonce)
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


def test_lines_of_another_nonce_are_not_the_plugins() -> None:
    """Lines printed by the code under test (no start of their own, or a nonce they made
    up) neither add outcomes nor end the run."""
    forged = _Numbered("f00")
    text = (_stream("tests/test_x.py::test_b call failed", end=False)
            + forged(id="tests/test_x.py::test_c", when="call", outcome="passed")
            + forged(event="end"))
    stream, _ = parse_stream(text)
    assert stream.started and not stream.ended and "tests.test_x::test_c" not in stream.seen
    problem = stream_problem(_report(tests__test_x__test_b="passed"), stream)
    assert problem is not None


def test_a_gap_in_the_sequence_is_caught() -> None:
    line = _Numbered()
    text = (line(event="start") + line(id="tests/test_x.py::test_a", when="call",
                                       outcome="failed"))
    line.seq += 1  # a suppressed line
    text += line(id="tests/test_x.py::test_b", when="call", outcome="passed") + line(event="end")
    stream, _ = parse_stream(text)
    assert stream.broken and stream.ended
    problem = stream_problem(_report(tests__test_x__test_b="passed"), stream)
    assert problem is not None and "missing or repeated" in problem


def test_a_replayed_line_of_the_real_nonce_breaks_the_sequence() -> None:
    line = _Numbered()
    text = line(event="start") + line(event="end")
    line.seq = 1
    text += line(id="tests/test_x.py::test_a", when="call", outcome="passed")
    stream, _ = parse_stream(text)
    assert stream.broken


def test_tamper_and_review_events_are_read() -> None:
    line = _Numbered()
    text = (line(event="start") + line(event="tamper", reason="pytest internals were replaced")
            + line(event="review", file="pkg/__init__.py", line=3, reason="walks objects")
            + line(event="end"))
    stream, _ = parse_stream(text)
    assert stream.tampered == ["pytest internals were replaced"]
    assert [(r.file, r.line) for r in stream.reviews] == [("pkg/__init__.py", 3)]
    problem = stream_problem(_report(tests__a="failed"), stream)
    assert problem is not None and "pytest internals were replaced" in problem


def test_taking_the_stream_out_gives_back_pytests_output_as_printed() -> None:
    """The plugin writes each line between newlines, wherever pytest's own output stands
    (mid-line after a progress dot, or after a finished line): taking the lines out must
    leave no blank line and no broken progress line behind."""
    line = _Numbered()
    printed = ["tests/test_x.py ", ".", ".", "F", "                [100%]\n", "\n",
               "=== 1 failed, 2 passed ===\n"]
    streamed = line(event="start")
    for part in printed:
        streamed += part + line(id="tests/test_x.py::test_a", when="call", outcome="passed")
    stream, text = parse_stream(streamed + line(event="end"))
    assert stream.started and stream.ended and not stream.broken
    assert text == "".join(printed)
    assert text.count("\n\n") == 1  # only pytest's own blank line


def _run_of(nonce: str, *passed: str, junit: bool | None) -> str:
    """A whole run under ``nonce``: each test id passed, then the end (saying whether the
    run wrote the JUnit report, as arena_stream's end does; ``None``: an older plugin's end)."""
    line = _Numbered(nonce)
    end = {"event": "end"} if junit is None else {"event": "end", "junit": junit}
    return (line(event="start") + "".join(line(id=i, when="call", outcome="passed")
                                          for i in passed) + line(**end))


def test_a_run_printed_whole_by_the_code_under_test_is_caught() -> None:
    """Every run announces its own nonce, so code under test can print a whole run (start,
    outcomes, end) beside a report it writes at exit. The feature's test never ran in the
    real run (its module failed to import): nothing the real run streamed contradicts the
    report. The report is checked against the run that wrote it."""
    report = _report(tests__test_x__test_a="passed")
    real = _run_of("real", junit=True)
    for forged in (_run_of("f00", "tests/test_x.py::test_a", junit=False),
                   _run_of("f00", "tests/test_x.py::test_a", junit=None)):
        problem = stream_problem(report, parse_stream(real + forged)[0])
        assert problem is not None and "no such test ran" in problem, problem
    claims = stream_problem(report, parse_stream(
        real + _run_of("f00", "tests/test_x.py::test_a", junit=True))[0])
    assert claims is not None and "more than one run" in claims


def test_runs_that_write_no_report_beside_the_one_that_does_are_honest() -> None:
    """A test command may start pytest more than once (one run writes the report), and the
    guard's child processes add runs of their own (a finding each, no outcome)."""
    text = (_run_of("first", "tests/test_y.py::test_b", junit=False)
            + _run_of("real", "tests/test_x.py::test_a", junit=True)
            + _Numbered("kid")(event="start", child=True)
            + _Numbered("kid")(event="end").replace('"seq": 1', '"seq": 2'))
    stream, _ = parse_stream(text)
    assert stream.report_runs == 1 and stream.ended and not stream.broken
    assert stream_problem(_report(tests__test_x__test_a="passed"), stream) is None


def test_a_run_that_ends_more_than_once_counts_everything_it_streamed() -> None:
    """pytester's inline runs end inside the run that holds them (the same plugin, the same
    nonce): the tests after that first end are the report's too."""
    line = _Numbered("real")
    text = (line(event="start") + line(id="tests/test_x.py::test_a", when="call",
                                        outcome="passed")
            + line(event="end", junit=True)
            + line(id="tests/test_x.py::test_b", when="call", outcome="passed")
            + line(event="end", junit=True))
    stream, _ = parse_stream(text)
    assert stream.report_runs == 1
    assert stream_problem(_report(tests__test_x__test_a="passed",
                                  tests__test_x__test_b="passed"), stream) is None


def test_junit_ids_of_doctest_files_keep_their_ending() -> None:
    """pytest's JUnit writer strips only ``.py`` from a node's path: a doctest text file's
    case keeps ``.txt`` (before, its streamed outcome was read as another test's, and a
    passing doctest made the report look written by the code under test)."""
    assert junit_id("tests/test_x.txt::test_x.txt") == "tests.test_x.txt::test_x.txt"
    assert junit_id("docs/index.rst::index.rst") == "docs.index.rst::index.rst"
    assert junit_id("src/pkg/mod.py::pkg.mod.func") == "src.pkg.mod::pkg.mod.func"
