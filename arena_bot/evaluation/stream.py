"""Cross-check of the JUnit report with the outcomes streamed while the tests ran.

:mod:`.arena_stream` prints one ``arena-result {json}`` line per test phase to the harness's
reader as it happens. A report that claims ``passed`` for a test the stream saw fail, or for
a test that never ran, was written or rewritten after the fact by code under test: the
feature is ``tampered``. Only checked when the stream started (the test command is pytest)
and the captured output was not cut (lines in the middle would be missing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import PurePosixPath

from arena_bot.evaluation.junit import JUnitReport

#: Prefix of every streamed line (the plugin, arena_stream.py, spells it out too: it is
#: never imported here, since importing it duplicates the process's stdout).
MARK = "arena-result"


@lru_cache(maxsize=1)
def plugin_source() -> bytes:
    """The plugin's source, copied into the sandbox's ``/arena`` (read once)."""
    return resources.files("arena_bot.evaluation").joinpath("arena_stream.py").read_bytes()


@dataclass
class Stream:
    """What the plugin streamed: whether it started and ended, and per JUnit-style test id
    whether any phase failed."""

    started: bool = False
    ended: bool = False
    failed: set[str] = field(default_factory=set)
    seen: set[str] = field(default_factory=set)


def junit_id(nodeid: str) -> str:
    """The JUnit case name pytest writes for ``nodeid`` (``tests/test_x.py::TestA::test_b``
    → ``tests.test_x.TestA::test_b``), as :func:`arena_bot.evaluation.junit.parse_junit`
    names cases."""
    path, *rest = nodeid.split("::")
    if not rest:
        return nodeid
    module = str(PurePosixPath(path).with_suffix("")).replace("/", ".")
    return ".".join([module, *rest[:-1]]) + "::" + rest[-1]


def parse_stream(output: str) -> tuple[Stream, str]:
    """The streamed outcomes in ``output``, and ``output`` without the stream's lines."""
    stream = Stream()
    kept: list[str] = []
    prefix = f"{MARK} "
    for line in output.split("\n"):
        if not line.startswith(prefix):
            kept.append(line)
            continue
        try:
            payload = json.loads(line[len(prefix):])
        except json.JSONDecodeError:
            continue
        if not isinstance(payload, dict):
            continue
        if payload.get("event") == "start":
            stream.started = True
        elif payload.get("event") == "end":
            stream.ended = True
        elif isinstance(payload.get("id"), str):
            name = junit_id(payload["id"])
            stream.seen.add(name)
            if payload.get("outcome") == "failed":
                stream.failed.add(name)
    # The plugin surrounds each line with newlines so it never joins another line.
    text = "\n".join(kept)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return stream, text


def stream_problem(report: JUnitReport, stream: Stream) -> str | None:
    """Why ``report`` disagrees with what was streamed (a forgery), or ``None``."""
    if not stream.started:
        return None
    passed = {case.name for case in report.cases if case.outcome == "passed"}
    contradicted = sorted(passed & stream.failed)
    if contradicted:
        return (f"the JUnit report says {contradicted[0]} passed, but it failed while the tests "
                "ran: the report was rewritten by code under test")
    if not stream.ended and passed:
        return ("the stream of test outcomes stopped before pytest finished, yet the JUnit "
                "report says tests passed: the run was cut short by code under test")
    never_ran = sorted(passed - stream.seen)
    if never_ran:
        return (f"the JUnit report says {never_ran[0]} passed, but no such test ran: the "
                "report was written by code under test")
    return None
