"""Reading JUnit XML test reports written inside a sandbox (untrusted input).

Guards: a size cap, no DOCTYPE or entity declarations at all (so no entity expansion bomb
and no external entities: ``defusedxml`` refuses them as the parser meets them, in whatever
encoding the report declares), a cap on the number of test cases, and messages cut to a
length.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import defusedxml
import defusedxml.ElementTree

from arena_bot.models.evaluation import TestCaseResult, TestOutcome

MAX_JUNIT_BYTES = 5_000_000
MAX_TEST_CASES = 20_000
MAX_MESSAGE_CHARS = 500


@dataclass(frozen=True)
class JUnitReport:
    """Test cases read from one report, or why none could be read."""

    cases: list[TestCaseResult] = field(default_factory=list)
    error: str | None = None

    def count(self, outcome: TestOutcome) -> int:
        return sum(1 for case in self.cases if case.outcome == outcome)


def parse_junit(data: bytes, *, truncated: bool = False) -> JUnitReport:
    """Parse JUnit XML (pytest's ``--junitxml`` and the common variants) into test cases."""
    if truncated or len(data) > MAX_JUNIT_BYTES:
        return JUnitReport(error=f"the JUnit report is larger than {MAX_JUNIT_BYTES:,} bytes")
    if not data.strip():
        return JUnitReport(error="the JUnit report is empty")
    try:
        root = defusedxml.ElementTree.fromstring(data, forbid_dtd=True)
    except defusedxml.DefusedXmlException:
        return JUnitReport(error="the JUnit report declares a DOCTYPE or entities (refused)")
    except ET.ParseError as exc:
        return JUnitReport(error=f"the JUnit report is not well-formed XML ({exc})")
    cases: list[TestCaseResult] = []
    for element in root.iter("testcase"):
        if len(cases) >= MAX_TEST_CASES:
            return JUnitReport(error=f"the JUnit report has more than {MAX_TEST_CASES} tests")
        cases.append(_case(element))
    return JUnitReport(cases=cases)


def _message(attribute: str | None, text: str | None) -> str | None:
    """The element's message plus the cause from its text when pytest's message is generic.

    A collection error's message is only "collection failure"; the cause people need
    (``ModuleNotFoundError: No module named ...``) is the first ``E   `` line of the text.
    """
    body = (text or "").strip()
    cause = next((line[1:].strip() for line in body.splitlines() if line.startswith("E   ")),
                 None)
    if attribute and cause and cause not in attribute:
        return f"{attribute}: {cause}"
    return attribute or body or None


def _case(element: ET.Element) -> TestCaseResult:
    name = element.get("name", "?")
    classname = element.get("classname")
    full_name = f"{classname}::{name}" if classname else name
    outcome: TestOutcome = "passed"
    message: str | None = None
    # Worst outcome wins when a case carries several children (pytest writes a failure and
    # an error for a test whose teardown also fails).
    for child in element:
        tag = child.tag
        if tag == "error":
            outcome = "error"
        elif tag == "failure" and outcome != "error":
            outcome = "failed"
        elif tag == "skipped" and outcome == "passed":
            outcome = "skipped"
        else:
            continue
        message = message or _message(child.get("message"), child.text)
    try:
        duration = float(element.get("time", "0") or 0)
    except ValueError:
        duration = 0.0
    if not math.isfinite(duration) or duration < 0:
        duration = 0.0
    if message is not None:
        message = message[:MAX_MESSAGE_CHARS]
    return TestCaseResult(
        name=full_name[:300], outcome=outcome, duration=duration, message=message
    )
