"""Pytest plugin of the harness: streams each test's outcome out as it happens.

Copied to the root-owned ``/arena`` and loaded explicitly (``-p arena_stream``; plugin
autoload is off). It writes to a duplicate of the real standard output taken when pytest
loads it, before output capture starts and before any code of the repository is imported,
so the lines reach the harness's reader on the host while the tests run: a JUnit report
rewritten later (at exit, by ``os._exit`` tricks) no longer agrees with them. Standalone on
purpose (no import of ``arena_bot``): it runs inside the task image's Python.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

_OUT = os.dup(1)
#: Same as arena_bot.evaluation.stream.MARK (this file imports nothing of arena_bot).
MARK = "arena-result"


def _emit(payload: dict[str, str]) -> None:
    # A gone reader is not this process's problem: the harness sees an incomplete stream.
    with contextlib.suppress(OSError):
        os.write(_OUT, f"\n{MARK} {json.dumps(payload)}\n".encode())


def pytest_configure(config: Any) -> None:
    _emit({"event": "start"})


def pytest_runtest_logreport(report: Any) -> None:
    _emit({"id": str(report.nodeid), "when": str(report.when), "outcome": str(report.outcome)})


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    _emit({"event": "end"})
