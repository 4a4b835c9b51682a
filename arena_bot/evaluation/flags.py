"""Review flags read from a submission's patch text (pure logic, no Docker).

A patch that implements a feature has no reason to reach into the test machinery: pytest's
internals and hooks, interpreter exit paths, ``sys.modules`` games, ``/proc/self``, the
harness's ``$ARENA_*`` variables, JUnit files, entry points, or the feature's test files.
Every added line of a non-test file that does is reported with its file, its line in the
patched file and the reason, so a maintainer looks before the entry is trusted. A flag is not
a verdict: the tests still decide pass/fail; the flag says "a human must confirm".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from arena_bot.evaluation.ast_flags import python_flags
from arena_bot.models.evaluation import ReviewFlag
from arena_bot.patches import Patch, ProtectedPaths

#: (pattern, reason): checked on every added line of every non-test file.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reason)
    for pattern, reason in (
        (r"_pytest|\bpytest_\w+|\bpytest\s*\.\s*(hookimpl|main|exit)|\bpytest11\b",
         "reaches into pytest internals or hooks"),
        (r"pluginmanager|\bhookwrapper\b|\bTestReport\b|\bfrom_item_and_call\b",
         "touches pytest's plugin machinery or reports"),
        (r"\bSkipTest\b|\bpytest\s*\.\s*(skip|xfail|importorskip|fail)\b|\bskip\.Exception\b"
         r"|__unittest_skip",
         "skips or fails tests from the code under test"),
        (r"\batexit\b", "registers exit handlers (atexit)"),
        (r"\bos\s*\.\s*_exit\b|\bos\s*\.\s*kill\b|\bsignal\s*\.\s*signal\b",
         "ends or signals the process itself"),
        (r"\bsys\s*\.\s*(exit|excepthook)\s*=|builtins\s*\.\s*(exit|quit)\s*=",
         "overrides sys.exit or the interpreter's exit paths"),
        (r"\bsys\s*\.\s*modules\b|\bsys\s*\.\s*meta_path\b|\bsys\s*\.\s*path_hooks\b"
         r"|\bsys\s*\.\s*settrace\b|\bsys\s*\.\s*setprofile\b|\bsys\s*\.\s*addaudithook\b",
         "rewires the import system or traces the interpreter"),
        (r"/proc/self|/proc/\d|/proc/\{", "reads the process's own /proc entries"),
        # A word of its own: ``my_arena_cache`` is not the harness's variable.
        (r"\bARENA_\w*", "reads the harness's $ARENA_ variables"),
        (r"/workspace\b|/arena\b|\.arena\b|\.patch\b", "reads the harness's own files"),
        (r"junit|\.xml\b", "mentions JUnit/XML result files"),
        (r"entry_points|importlib\s*\.\s*metadata|pkg_resources",
         "looks up installed entry points"),
        # ``re.compile(`` is ordinary code: a method call is not the builtin.
        (r"(?<![\w.])(exec|eval|compile)\s*\(|\bbuiltins\s*\.\s*(exec|eval|compile)\b"
         r"|__import__\s*\(|importlib\s*\.\s*import_module"
         r"|\bgetattr\s*\(\s*__builtins__",
         "runs dynamically built code (could hide any of the above)"),
        (r"\b(b64decode|b32decode|a85decode|fromhex|rot.?13|codecs\s*\.\s*decode"
         r"|zlib\s*\.\s*decompress|marshal\s*\.\s*loads)\b",
         "decodes hidden data or code"),
        # Feature code has no reason to find files by pytest's naming rule.
        (r"""["']test_["']|["']_test\.py["']|\btest_\*|\*_test\.py|startswith\(\s*["']test_?["']"""
         r"""|endswith\(\s*["']_test(\.py)?["']""",
         "looks for the test files by name"),
        (r"\bconftest\b|\bsitecustomize\b|\busercustomize\b|\.pth\b",
         "mentions files that change how Python or pytest start"),
        (r"\b(subprocess|os\s*\.\s*(system|popen|fork|spawn\w*|exec\w*))\b",
         "starts other processes"),
    )
)
#: Modules a package ships for tests to import (``pkg/testing.py``, ``pkg/_testing/``,
#: ``test_utils.py``, a pytest plugin module): outside the protected test folders, yet an
#: ``assert_equal`` made lenient there turns failing tests into passing ones.
_TEST_SUPPORT = re.compile(
    r"(^|/)(_?testing|_?test_?utils?|_?testutils|_?test_?helpers?|_?test_?support"
    r"|pytest_?plugins?|fixtures)(\.py$|/)", re.IGNORECASE)
#: Writes to the task's test paths: checked against the protected paths of the task.
_PATH_LITERAL = re.compile(r"""["']([^"'\s]{1,200})["']""")
#: Flags per patch: enough to show the pattern, never a wall of text.
MAX_FLAGS = 50


@dataclass(frozen=True)
class _Added:
    path: str
    line: int
    text: str


def review_flags(patch: Patch, *, protected: ProtectedPaths) -> list[ReviewFlag]:
    """Every added line of ``patch`` (outside the task's protected test files) that reaches
    into test machinery, as :class:`ReviewFlag` records (at most :data:`MAX_FLAGS`)."""
    flags: list[ReviewFlag] = []
    seen: set[tuple[str, int, str]] = set()
    for key in _findings(patch, protected=protected):
        if key in seen:
            continue
        seen.add(key)
        path, line, reason = key
        flags.append(ReviewFlag(file=path, line=line, reason=reason))
        if len(flags) >= MAX_FLAGS:
            break
    return flags


def _findings(patch: Patch, *, protected: ProtectedPaths) -> Iterator[tuple[str, int, str]]:
    """(file, line, reason) of each finding, in order: the text rules line by line, then per
    file a changed test-support module and the syntax tree's findings."""
    for added in _added_lines(patch, protected=protected):
        text = unicodedata.normalize("NFKC", added.text)
        for pattern, reason in _RULES:
            if pattern.search(text):
                yield added.path, added.line, reason
        for literal in _PATH_LITERAL.findall(text):
            candidate = literal.removeprefix("./").lstrip("/")
            if "/" in candidate and protected.rule_for(candidate) is not None:
                yield added.path, added.line, f"names a protected test path ({literal})"
            elif candidate.startswith(("tests/", "test/")) or "/tests/" in candidate:
                yield added.path, added.line, f"names a test path ({literal})"
    for file in patch.files:
        if file.new_path is None or protected.rule_for(file.path) is not None:
            continue
        if _TEST_SUPPORT.search(file.path) and file.hunks:
            yield (file.path, file.hunks[0].new_start,
                   "changes a test-support module of the package (tests import its "
                   "helpers: a lenient one turns failing tests into passing ones)")
        # What survives renaming and spelling in pieces: the syntax tree of the added Python.
        for flag in python_flags(file):
            yield file.path, flag.line, flag.reason


def _added_lines(patch: Patch, *, protected: ProtectedPaths) -> list[_Added]:
    lines: list[_Added] = []
    for file in patch.files:
        path = file.path
        if file.new_path is None or protected.rule_for(path) is not None:
            # Deletions add nothing; protected files are refused before anything runs.
            continue
        for hunk in file.hunks:
            new_line = hunk.new_start
            for body in hunk.lines:
                marker, text = body[:1], body[1:]
                if marker == "+":
                    lines.append(_Added(path=path, line=new_line, text=text))
                    new_line += 1
                elif marker == " ":
                    new_line += 1
    return lines
