"""The linear-time patterns of the secret scan find what the backtracking ones they replace find.

redact.py replaces patterns (detect-secrets' and its own) that take quadratic time or worse on
a long line by equivalents that do not (tests/transcripts/test_redact_speed.py times them).
Here each equivalent is run next to the pattern it replaces on many short lines, where both are
fast: lines drawn at random (a fixed seed) from pieces of what the pattern looks for, so that a
good share of them hold a finding, and each must give the same findings.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable

import pytest
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.keyword import KeywordDetector

from arena_bot.intake.transcripts import redact
from arena_bot.intake.transcripts.redact import (
    DETECTORS,
    KEYWORD_REGEXES,
    LINEAR_ASSIGNMENT,
    LINEAR_EQUIVALENTS,
    SPACED_ASSIGNMENT,
    _is_indirect_reference,
    _keyword_values,
    redact_text,
)

#: Lines drawn for each pattern.
EXAMPLES = 4000

Draw = Callable[[random.Random], str]


def _pieces(*choices: list[str], mutate: str = "", repeat: int = 1) -> Draw:
    """Lines made of one of each of ``choices`` in turn, with up to two characters of
    ``mutate`` put in or taken out at random places, the whole up to ``repeat`` times."""

    def draw(rnd: random.Random) -> str:
        line = "".join(rnd.choice(choice) for choice in choices)
        for _ in range(rnd.randint(0, 2) if mutate else 0):
            at = rnd.randint(0, len(line))
            line = line[:at] + rnd.choice(mutate) + line[at + rnd.randint(0, 2):]
        return line * rnd.randint(1, repeat)

    return draw


def _runs(draw: Draw, most: int = 4) -> Draw:
    return lambda rnd: "".join(draw(rnd) for _ in range(rnd.randint(1, most)))


HEX = "0123456789abcdef0123456789abcdef0123"


def _assignment(prefixes: list[str], keywords: list[str], secrets: list[str]) -> Draw:
    """Lines shaped like ``build_assignment_regex``'s ``[prefix-keyword] = 'secret'``."""
    return _pieces(
        ["", " ", "x", "(", "'", "a_", "\n"], ["", "["], ["", "'", '"'], [*prefixes, "", "x"],
        ["", "_", "-"], ["", "api"], [*keywords, "x"], ["", "'", '"'], ["", "]"],
        ["", "", " ", "  ", "     "], ["", "=", ":", ":=", "=>", "::", "==", "= =", ">"],
        ["", "", " ", "   "], ["", "'", '"'], [*secrets, "xyz"], ["", "'", '"', "a", "-", " ", "0"],
        mutate=" =:a'0", repeat=2)


#: Lines for each library pattern with a linear equivalent, by the detector's kind.
DRAWS: dict[str, Draw] = {
    "npm-tokens": _runs(_pieces(
        ["//", "/", "", "x//y", "///"], ["", "a", "registry.npmjs.org", "/"],
        ["/:_authToken=", ":_authToken=", "/:_authToken", ""], ["", " ", "\t", "\n", "  "],
        ["npm_", "npm_abc", HEX, HEX.upper()[:20] + "-" + HEX[21:], "0123", "x"],
        ["", " tail", "\n", "\r", "//"])),
    "json-web-token": _runs(_pieces(
        ["eyJ", "eyJa", "xeyJ", "eyJhbGci", "a", "-", "_", "=", ""], ["", "abc", "eyJb", "A-_="],
        [".", "", ".."], ["", "x", "eyJc", "a=b", "+/"], [".", "", " ", "+", "/", "!"])),
    "openai-token": _runs(_pieces(
        ["sk-", "xsk-", "sk-sk-", "-", "", "a"], ["", "abc", "-_", "sk-"],
        ["A" * 20, "A" * 19, "a1" * 10, "A" * 25, ""], ["T3BlbkFJ", "T3Blbk", ""],
        ["B" * 20, "B" * 19, "b" * 21, ""], ["", " ", "-", "_", "sk-", "T3BlbkFJ", "!"]), 3),
    "cloudant-credentials": _assignment(["cloudant", "cl", "clou"], ["key", "pwd", "password"],
                                        ["f" * 64, "a" * 24, "0" * 63, "A" * 24]),
    "ibm-cloud-iam-key": _assignment(["ibm", "ibm_cloud", "ibm-cloud-iam", "cloud_iam", "iam"],
                                     ["key", "pwd", "pass", "token"],
                                     ["Ab-_" * 11, "0" * 44, "a" * 45]),
    "ibm-cos-hmac-credentials": _assignment(
        ["cos", "ibm_cos_hmac", "ibm-cos", "cos_hmac"],
        ["secret_key", "secret_access_key", "secret-key", "secretkey"], ["f" * 48, "0" * 49]),
    "softlayer-credentials": _assignment(["softlayer", "sl", "sl_api", "softlayer-"],
                                         ["key", "pwd", "password", "token"],
                                         ["a" * 64, "0" * 64, "a" * 63]),
}


def _library(detector: RegexBasedDetector) -> RegexBasedDetector:
    """The library's own detector of which ``detector`` may scan with other patterns."""
    own = type(detector)
    return (own.__mro__[1] if own.__module__ == redact.__name__ else own)()


def _replaced() -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    """(kind, library pattern, the pattern scanned instead) for each replaced pattern."""
    replaced = []
    for kind, detector in DETECTORS:
        for theirs, ours in zip(_library(detector).denylist, detector.denylist, strict=True):
            if theirs is not ours:
                replaced.append((kind, theirs, ours))
    return replaced


def test_every_backtracking_library_pattern_is_replaced() -> None:
    """Each equivalent names a pattern detect-secrets has (a changed library pattern is
    scanned as it is, slow: this test says so), and none of the scanned ones backtracks."""
    library = {pattern.pattern for _, detector in DETECTORS
               for pattern in _library(detector).denylist}
    assert set(LINEAR_EQUIVALENTS) <= library
    scanned = [pattern.pattern for _, detector in DETECTORS for pattern in detector.denylist]
    assert not set(LINEAR_EQUIVALENTS) & set(scanned)
    assert not [pattern for pattern in scanned if SPACED_ASSIGNMENT in pattern]
    assert {kind for kind, _, _ in _replaced()} == set(DRAWS)
    # The assignment is the one build_assignment_regex writes.
    built = RegexBasedDetector.build_assignment_regex("P", "K", "S").pattern
    assert SPACED_ASSIGNMENT in built
    assert LINEAR_ASSIGNMENT in built.replace(SPACED_ASSIGNMENT, LINEAR_ASSIGNMENT)


@pytest.mark.parametrize(("kind", "theirs", "ours"), _replaced(),
                         ids=[f"{kind}-{index}" for index, (kind, _, _) in enumerate(_replaced())])
def test_a_linear_detector_pattern_finds_what_the_library_pattern_finds(
    kind: str, theirs: re.Pattern[str], ours: re.Pattern[str]
) -> None:
    rnd = random.Random(kind)
    found = 0
    for _ in range(EXAMPLES):
        line = DRAWS[kind](rnd)
        expected = theirs.findall(line)
        assert ours.findall(line) == expected, line
        found += bool(expected)
    assert found > EXAMPLES // 200, found  # the lines do exercise the pattern


#: redact.py's own patterns as they were, backtracking, by the name of the one now scanned.
BACKTRACKING = {
    "KEY_BEGIN": r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----",
    "KEY_END": r"-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----",
    "KEY_INLINE": (r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----(?:[^\"\\]|\\.)*?"
                   r"(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|(?=\")|$)"),
    "KEY_MATERIAL": r"^(?:> ?)?\s*(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*)\s*$",
    "ENV_SECRET": (
        r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY"
        r"|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*="
        r"(?:\\?[\"'](?P<quoted>[^\"'\\$][^\"'\\]{3,}?)\\?[\"']"
        r"|(?P<bare>[^\s\"'$\\][^\s\"'\\]{3,}))"),
}
KEY = _runs(_pieces(
    ["", "x", "-----BEGIN ", "-----END ", "-----BEGIN ", "-----END "],
    ["", "RSA ", "OPENSSH ", "1 ", "A1 ", "PRIVATE KEY "], ["PRIVATE KEY", "PRIVATE", ""],
    ["", " BLOCK", "1", " PRIVATE KEY", " 2 B"], ["-----", "----", ""],
    ["", "b3Bl", "\\n", '"', "\\", '\\"', " "], mutate=" -1A"), 4)
OWN_DRAWS: dict[str, Draw] = {
    "KEY_BEGIN": KEY,
    "KEY_END": KEY,
    "KEY_INLINE": KEY,
    "KEY_MATERIAL": _runs(_pieces([" ", "> ", ">", "\t", "A", "a", "+", "/", "=", ":", ": ",
                                   "Proc-Type", "-", "!", "x y"]), 8),
    "ENV_SECRET": _runs(_pieces(
        ["", " ", "x", "export "], ["A", "DB_", "X1_", "_", "a"],
        ["PASSWORD", "PASSWD", "PWD", "SECRET", "TOKEN", "API_KEY", "APIKEY", "ACCESS_KEY",
         "PRIVATE_KEY", "CREDENTIAL", "CREDENTIALS", "NAME", ""], ["", "_X", "PASSWORD", "1"],
        ["=", "", " ="], ["", "'", '"', "\\\"", "$"], ["hunter2", "abc", "open sesame", "a$b", ""],
        ["", "'", '"', "\\\"", " ", "\\"]), 3),
}


@pytest.mark.parametrize("name", list(BACKTRACKING))
def test_an_atomic_pattern_matches_what_the_backtracking_one_matched(name: str) -> None:
    theirs, ours = re.compile(BACKTRACKING[name]), getattr(redact, name)
    rnd = random.Random(name)
    found = 0
    for _ in range(EXAMPLES):
        line = OWN_DRAWS[name](rnd)
        expected = [(m.span(), m.groups()) for m in theirs.finditer(line)]
        assert [(m.span(), m.groups()) for m in ours.finditer(line)] == expected, line
        found += bool(expected)
    assert found > EXAMPLES // 200, found


def test_an_email_address_is_found_as_before_and_a_long_run_before_an_at_sign_in_part() -> None:
    unbounded = re.compile(redact.EMAIL.pattern.replace("{1,64}", "+"))
    draw = _runs(_pieces(["", " ", "x.", "maya.lindqvist", "a+b", "_", "-", "."], ["@", ""],
                         ["example", "a-b", "1"], [".org", ".c", ".co.uk", "", ".a1"],
                         ["", ":x", ":", " ", "."]), 3)
    rnd = random.Random("email")
    for _ in range(EXAMPLES):
        line = draw(rnd)
        assert redact.EMAIL.findall(line) == unbounded.findall(line), line
    name = "a." * 40 + "b"
    assert redact_text(f"mail {name}@example.org\n") == f"mail {name[:17]}[REDACTED:email]\n"


# -- detect-secrets' keyword patterns ------------------------------------------------------

#: Lines shaped like keyword assignments, comparisons and statements (``password = 'x';``,
#: ``'x' == pwd``), in any number and with quotes, backquotes and blanks put in or taken out.
KEYWORD_LINE = _runs(_pieces(
    ["", "", " ", "x", "db_", "my", "(", "[", "'", '"', "`", "this."],
    ["password", "PASSWORD", "Password", "pwd", "secret", "api_key", "apikey", "db_pass",
     "passwd", "private_key", "contraseña", "key", "pass", "token", "x"],
    ["", "", "_x", "1", "pwd", "s"], ["", "", "'", '"', "]", "']", "''", "'''", '"]'],
    ["", "", " ", "  ", "\t", "\v"],
    [":", ":", ": ", "=", "==", "===", "!=", "!==", "=>", ":=", "", "(", ".assign(", "= =", "::"],
    ["", "", " ", "\t"], ["", "", "'", '"', "`", "`", '\\"'],
    ["hunter2", "a", "abc def", "x,y", "a`b", "a,", "a`", "$x", "{x}", "a;b", "Tr0ub4dor&3x", "",
     " a", "1"],
    ["", "'", '"', "`", "`;", "';", '";', ",`", "`,"],
    ["", "", ";", " == password", "==pwd", " != 'x'", ")", " ", ",", "`", "'", '"'],
    mutate="'\"` ;=,a\v"), 3)
#: Lines of their characters in any order, backquotes and semicolons many.
KEYWORD_CHARACTERS = _runs(_pieces(
    ["pwd", "PWD", "password", "key", "api_key", "secret", "paſsword", "\u212aey", "a", "b",
     "1", "_", " ", "\t", "\v", "\u00a0", "'", '"', "`", "`", "`;", ":", "=", "==pwd", "!", ">",
     "]", "[", ";", ",", "(", ")", "$", "{", ".", "-", "\\"]), 24)


@pytest.mark.parametrize(("draw", "each"), [(KEYWORD_LINE, True), (KEYWORD_CHARACTERS, False)],
                         ids=["lines", "characters"])
def test_the_keyword_values_are_those_detect_secrets_finds(draw: Draw, each: bool) -> None:
    detector = KeywordDetector()
    rnd = random.Random(3)
    found = [0] * len(KEYWORD_REGEXES)
    for _ in range(EXAMPLES * 2):
        line = draw(rnd)
        assert _keyword_values(line) == list(detector.analyze_string(line, KEYWORD_REGEXES)), line
        for index, pattern in enumerate(KEYWORD_REGEXES):
            found[index] += pattern.search(line) is not None
    # Each of the seven patterns matched (the lines), or many did (the characters).
    assert (min(found) if each else sum(found)) > EXAMPLES // 200, found


def test_an_indirect_reference_is_found_as_detect_secrets_finds_it() -> None:
    rnd = random.Random(4)
    found = 0
    for _ in range(EXAMPLES * 2):
        line = KEYWORD_LINE(rnd) + rnd.choice(
            ["", " = f(x)", " = a[1]", "= x.y(", ": a(b", "\v)", "!=z[", " = get(", ")"])
        expected = heuristic.is_indirect_reference(line)
        assert _is_indirect_reference(line) == expected, line
        found += expected
    assert found > EXAMPLES // 10, found
    # A line of more than 1,000 characters is none, there too.
    for length in (999, 1000, 1001):
        line = f"{'token = get_token()':<{length}}"
        assert _is_indirect_reference(line) is heuristic.is_indirect_reference(line) is (
            length <= 1000)


def test_the_keyword_patterns_are_those_the_linear_scan_follows() -> None:
    """_keyword_values and _is_indirect_reference follow detect-secrets 1.5.0's patterns: a
    release that changes them needs them read again (and this test's figure updated)."""
    patterns = repr([(pattern.pattern, pattern.flags, group)
                     for pattern, group in KEYWORD_REGEXES.items()])
    assert hashlib.sha256(patterns.encode()).hexdigest() == (
        "cf53441f048a436900487b89ba4da119747aac9d1a16c3d8e5f10a78de26fdda")
    assert heuristic._get_indirect_reference_regex().pattern == (
        r"([^\v=!:]*)\s*(:=?|[!=]{1,3})\s*([\w.-]+[\[\(][^\v]*[\]\)])")
