"""The linear-time patterns of the secret scan find what the backtracking ones they replace find.

redact.py replaces patterns (detect-secrets' and its own) that take quadratic time or worse on
a long line by equivalents that do not (tests/transcripts/test_redact_speed.py times them).
Here each equivalent is run next to the pattern it replaces on many short lines, where both are
fast: lines drawn at random (a fixed seed) from pieces of what the pattern looks for, so that a
good share of them hold a finding, and each must give the same findings.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable

import pytest
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.keyword import KeywordDetector
from detect_secrets.settings import default_settings

from arena_bot.intake.transcripts import redact
from arena_bot.intake.transcripts.redact import (
    DETECTORS,
    KEYWORD_REGEXES,
    LINEAR_ASSIGNMENT,
    LINEAR_EQUIVALENTS,
    SPACED_ASSIGNMENT,
    RedactionReport,
    Redactor,
    _detector_spans,
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
        found_here = [line[start:end] for start, end in _keyword_values(line)]
        assert found_here == list(detector.analyze_string(line, KEYWORD_REGEXES)), line
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


def _keyword_values_as_before(segment: str) -> list[str]:
    """The keyword values of a text line as redact.py found them with detect-secrets'
    patterns and filter (backtracking: short lines only)."""
    values = []
    for assignment in redact.ENV_SECRET.finditer(segment):
        value = assignment.group("quoted") or assignment.group("bare")
        if not redact.ENV_NOT_SECRET.fullmatch(value):
            values.append(value)
    if not any(word in segment.lower() for word in redact.KEYWORD_WORDS):
        return values
    for found in KeywordDetector().analyze_string(segment, KEYWORD_REGEXES):
        if heuristic.is_indirect_reference(segment):
            break
        found = found.strip()
        if not found:
            continue
        value = found.strip("\"'\\") if found[:1] in "\"'\\" else found.split()[0]
        value = value.strip("\"'\\") if found[:1] in "\"'\\" else value.rstrip(");,:]}")
        code = redact.CODE_VALUE.match(value) is not None
        if not (len(value) < 6 or (code and (not re.search(r"\d", value) or "." in value))
                or heuristic.is_templated_secret(value)
                or heuristic.is_prefixed_with_dollar_sign(value)):
            values.append(value)
    return values


def test_the_keyword_secrets_are_where_the_values_were_found() -> None:
    """_keyword_secrets gives where each value is; the values are those found before."""
    rnd = random.Random(5)
    found = 0
    for _ in range(EXAMPLES):
        line = KEYWORD_LINE(rnd) + rnd.choice(["", " DB_PASSWORD=hunter2x", " X_TOKEN='abcd e'"])
        spans = list(redact._keyword_secrets(line))
        assert [line[start:end] for start, end in spans] == _keyword_values_as_before(line), line
        found += bool(spans)
    assert found > EXAMPLES // 10, found


# -- where the detectors' values are, and a line of many findings ------------------------

#: A value of each detector's, or close to one.
DETECTED = [
    "AKIAABCDEFGHIJKLMNOP", "aws_secret_key = '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'",
    " AKCabcdefghijklm ", " AP6abcdefghi ", "AccountKey=" + "a1+/" * 22,
    "https://user:pass1234@host.com/x", "://a:b@", "M" + "a" * 23 + "." + "b" * 6 + "." + "c" * 27,
    "ghp_" + "a1" * 18, "glpat-" + "a" * 20, "GR1348941" + "b" * 20, "glcbt-ab_" + "c" * 20,
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw",
    "eyJhbGci.eyJzdWIi.x", "0123456789abcdef0123456789abcdef-us12",
    "pypi-AgEIcHlwaS5vcmc" + "a" * 70, "SG." + "a" * 22 + "." + "b" * 43,
    "xoxb-1234567890-abcdef", "https://hooks.slack.com/services/Tabc/Bdef/ghi",
    "sq0csp-" + "a" * 43, "sk_live_" + "a" * 24, "123456789:" + "a" * 35, "AC" + "a" * 32,
    "SK" + "b" * 32, "//registry.npmjs.org/:_authToken=npm_abc", "xsk-" + "a" * 20 + "T3BlbkFJ"
    + "b" * 20, "cloudant_password = '" + "f" * 64 + "'", "ibm_cloud_iam_key: " + "A-_b" * 11,
    "cos_secret_key = " + "0" * 48, "softlayer_api_key = " + "a" * 64,
]
DETECTED_LINE = _runs(_pieces(DETECTED, ["", " ", "\n", '"', "'", "=", ":", "-", "x"],
                              mutate=" .:=\"'a"), 4)


@pytest.mark.parametrize("kind", [kind for kind, _ in DETECTORS])
def test_a_detector_finds_its_values_where_it_finds_them(kind: str) -> None:
    """_detector_spans gives where each value ``analyze_string`` yields is."""
    detector = dict(DETECTORS)[kind]
    rnd = random.Random(kind)
    found = 0
    for _ in range(EXAMPLES // 4):
        line = DETECTED_LINE(rnd)
        expected = [value for value in detector.analyze_string(line) if value]
        assert [line[start:end] for start, end in _detector_spans(detector, line)] == expected
        found += bool(expected)
    assert found, kind


def _line_of_many(secret: str) -> bytes:
    choose = random.Random(6).choice
    ids = ["AKIA" + "".join(choose("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
           for _ in range(3 * redact.MANY_PIECES)]
    text = (f"DB_PASSWORD={secret}\n" + " ".join(ids) + f"\nit was {secret}, mail me at "
            "maya.lindqvist@example.org; key AKIAABCDEFGHIJKLMNOP and "
            + PLANTED_JWT + " " + " ".join(ids[:10]))
    return (json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"
            ).encode()


PLANTED_JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
               "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")


def test_a_line_of_many_findings_is_redacted_as_when_each_is_replaced_in_turn() -> None:
    """Over MANY_PIECES findings on a line, a scan that only reports them replaces them in one
    pass: the same text as replacing each in turn (as a stored copy does), for each where the
    scan found it and for the longest ones (the password, here) wherever they are."""
    line = _line_of_many("Sup3rS3cret-Passw0rd-that-is-long")
    with default_settings():
        report, in_turn_report = RedactionReport(), RedactionReport()
        once = Redactor(report, everywhere=False).line(line, 1)
        in_turn = Redactor(in_turn_report).line(line, 1)
    assert once == in_turn
    assert report.lines == in_turn_report.lines
    assert {"aws-access-key", "email", "json-web-token", "secret-keyword"} <= set(report.lines)
    content = json.loads(once)["message"]["content"]
    assert "AKIA" not in content and "Sup3r" not in content and "eyJ" not in content
    assert content.count("[REDACTED:aws-access-key]") == 3 * redact.MANY_PIECES + 11


def test_a_short_value_again_on_a_line_of_many_findings_is_replaced_where_stored() -> None:
    """A keyword's value is found once per text line; replaced wherever it is, it is gone
    from a stored copy. A scan that only reports findings reports the same kinds of it."""
    line = _line_of_many("hunter2x1")
    with default_settings():
        report, stored_report = RedactionReport(), RedactionReport()
        Redactor(report, everywhere=False).line(line, 1)
        stored = Redactor(stored_report).line(line, 1)
    assert "hunter2x1" not in json.loads(stored)["message"]["content"]
    assert report.lines == stored_report.lines
