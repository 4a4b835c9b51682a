"""JUnit XML parsing of untrusted reports."""

from __future__ import annotations

from arena_bot.evaluation.junit import MAX_JUNIT_BYTES, MAX_TEST_CASES, parse_junit

PYTEST_REPORT = b"""<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4">
<testcase classname="tests.test_a" name="test_ok" time="0.010" />
<testcase classname="tests.test_a" name="test_bad" time="0.020">
  <failure message="assert 1 == 2">trace</failure></testcase>
<testcase classname="tests.test_a" name="test_teardown" time="nan">
  <failure message="first">x</failure><error message="teardown broke">y</error></testcase>
<testcase classname="tests.test_b" name="test_skip" time="-1">
  <skipped message="not today" /></testcase>
</testsuite></testsuites>
"""


def test_pytest_report_outcomes_and_messages() -> None:
    report = parse_junit(PYTEST_REPORT)
    assert report.error is None
    outcomes = {case.name: case.outcome for case in report.cases}
    assert outcomes == {
        "tests.test_a::test_ok": "passed",
        "tests.test_a::test_bad": "failed",
        "tests.test_a::test_teardown": "error",  # the worst outcome wins
        "tests.test_b::test_skip": "skipped",
    }
    bad = report.cases[1]
    assert (bad.message, bad.duration) == ("assert 1 == 2", 0.02)
    assert report.cases[2].duration == 0.0 and report.cases[3].duration == 0.0


def test_entity_declarations_are_refused() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;">]><testsuite><testcase name="&lol2;"/></testsuite>'
    )
    report = parse_junit(bomb)
    assert report.cases == [] and "DOCTYPE" in (report.error or "")


def test_declarations_are_refused_in_every_encoding() -> None:
    """Issue 29: a UTF-16 report with an <!ENTITY> got past a search of the raw bytes and the
    entity expanded into a test name. The parser itself refuses them now."""
    declared = [
        '<?xml version="1.0" encoding="{enc}"?><!DOCTYPE t [<!ENTITY x "forged">]>'
        '<testsuite><testcase name="&x;"/></testsuite>',
        '<?xml version="1.0" encoding="{enc}"?><!DOCTYPE t SYSTEM "file:///etc/passwd">'
        '<testsuite><testcase name="a"/></testsuite>',
        '<?xml version="1.0" encoding="{enc}"?><!DOCTYPE t [<!ENTITY % p SYSTEM '
        '"http://example.org/x.dtd"> %p;]><testsuite/>',
        '<?xml version="1.0" encoding="{enc}"?><!DOCTYPE testsuite><testsuite/>',
    ]
    for encoding in ("utf-8", "utf-16", "utf-16-le", "utf-16-be"):
        for text in declared:
            data = text.format(enc=encoding.removesuffix("-le").removesuffix("-be"))
            raw = data.encode(encoding)
            if encoding in ("utf-16-le", "utf-16-be"):  # with a byte order mark
                raw = ("\ufeff" + data).encode(encoding)
            report = parse_junit(raw)
            assert report.cases == [], (encoding, text)
            assert "DOCTYPE" in (report.error or ""), (encoding, text, report.error)
    # An encoding the parser does not read is refused too, whatever it declares.
    assert parse_junit(declared[0].format(enc="utf-32").encode("utf-32")).cases == []


def test_a_utf16_report_without_declarations_is_read() -> None:
    report = parse_junit(PYTEST_REPORT.decode().replace("utf-8", "utf-16").encode("utf-16"))
    assert report.error is None and len(report.cases) == 4


def test_broken_empty_huge_and_truncated_reports() -> None:
    assert "well-formed" in (parse_junit(b"<testsuite><testcase").error or "")
    assert "empty" in (parse_junit(b"  \n").error or "")
    assert "larger" in (parse_junit(b" " * (MAX_JUNIT_BYTES + 1)).error or "")
    assert "larger" in (parse_junit(PYTEST_REPORT, truncated=True).error or "")


def test_too_many_cases_is_an_error() -> None:
    many = b"<testsuite>" + b'<testcase name="t"/>' * (MAX_TEST_CASES + 1) + b"</testsuite>"
    assert "more than" in (parse_junit(many).error or "")
