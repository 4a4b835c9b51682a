"""A line crafted to be slow is scanned for secrets in time linear in its length.

Python's regular expressions backtrack: a pattern that can start anywhere in a run and scans
to the run's end before it fails takes time quadratic in the run's length, or worse. A red-team
run found such lines (``'//' * 50000`` in a Claude Code message: 33 s in detect-secrets' npm
pattern; ``'PASSWORD' * 2500``: three minutes in its keyword patterns), and an honest line comes
close (a Claude Code ``Write`` of a JavaScript file full of ``//`` comments). Every transcript
line is scanned before it is read, so one such line held ``arena validate`` for hours.

Each crafted line here is about 200 KB. Its scan may take no more than :data:`SLOWER` times the
scan of a plain line of the same length, both measured in the same test (the machine's speed
varies from run to run, the ratio does not; benchmarks/ keeps absolute figures); quadratic
time makes that ratio a thousand and more. Under xdist the other workers pause meanwhile.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from detect_secrets.settings import default_settings

from arena_bot.intake.transcripts.redact import RedactionReport, Redactor

pytestmark = [pytest.mark.alone, pytest.mark.timeout(300)]

#: Characters of each crafted line (its JSON text is a little longer).
SIZE = 200_000
#: How many times the scan of a plain line of the same length a crafted line's may take.
SLOWER = 20


@pytest.fixture(scope="module", autouse=True)
def _alone(alone_on_machine: None) -> None:
    """The timings are taken with the other xdist workers paused."""


def _message(content: str) -> bytes:
    """A Claude Code user message holding ``content``, one JSON line as the transcript has it."""
    return (json.dumps({"type": "user", "uuid": "u1",
                        "message": {"role": "user", "content": content}}) + "\n").encode()


def _repeat(unit: str, size: int = SIZE) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _plain(size: int = SIZE) -> str:
    """Prose of common words, none of them a secret or a keyword."""
    choose = random.Random(1).choice
    words = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "and", "then",
             "some", "more", "text", "with", "words", "of", "varying", "length"]
    return " ".join(choose(words) for _ in range(size // 4))[:size]


def _javascript(size: int = SIZE) -> str:
    """A JavaScript file with ``//`` comments and URLs, as a Claude Code ``Write`` holds it."""
    lines: list[str] = []
    total, index = 0, 0
    while total < size:
        lines += [f"// step {index}: compute item {index} from its parts",
                  f"const item{index} = compute(parts[{index}]); // http://example.com/{index}"]
        total += len(lines[-2]) + len(lines[-1]) + 2
        index += 1
    return "\n".join(lines)[:size]


def _access_key_ids(size: int = SIZE) -> str:
    """AWS access key ids (``AKIA`` and 16 random letters or digits), one after another."""
    choose = random.Random(5).choice
    ids = ["AKIA" + "".join(choose("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
           for _ in range(size // 21 + 1)]
    return " ".join(ids)[:size]


def _seconds(lines: list[bytes]) -> float:
    """One scan of ``lines`` (a transcript) as ``find_secrets`` does it."""
    redactor = Redactor(RedactionReport(), everywhere=False)
    with default_settings():
        started = time.perf_counter()
        for number, line in enumerate(lines, 1):
            redactor.line(line, number)
        return time.perf_counter() - started


def _assert_linear(crafted: list[bytes], plain: list[bytes]) -> None:
    """``crafted`` scans in at most :data:`SLOWER` times ``plain``'s time (best of three each,
    taken in turn)."""
    crafted_best = plain_best = float("inf")
    for _ in range(3):
        plain_best = min(plain_best, _seconds(plain))
        crafted_best = min(crafted_best, _seconds(crafted))
    assert crafted_best <= SLOWER * plain_best, (
        f"{crafted_best:.3f} s against {plain_best:.3f} s for a plain line")


#: The crafted contents of a Claude Code message, each about :data:`SIZE` characters.
CRAFTED = {
    # detect-secrets' npm pattern: each ``//`` scanned the line to its end.
    "slashes": lambda: _repeat("//"),
    "javascript-write": _javascript,
    "http-urls": lambda: _repeat("http://a"),
    "basic-auth-urls": lambda: _repeat("://a:b@"),
    # the e-mail pattern: each start of a run of address characters scanned the run.
    "base64-without-slashes": lambda: _repeat("aB1+"),
    "dotted-run": lambda: _repeat(".a"),
    # OpenAI and JWT: each ``sk-`` / ``eyJ`` of a run scanned the run.
    "openai-prefixes": lambda: _repeat("ksk-"),
    "jwt-prefixes": lambda: _repeat("eyJa"),
    # Cloudant, IBM, SoftLayer: three runs of spaces against each other (cubic).
    "spaces-after-an-ibm-keyword": lambda: "cos_secret_key" + " " * SIZE + "x",
    "spaces-after-a-softlayer-keyword": lambda: "softlayer_api_key" + " " * SIZE + "x",
    # a private key's name: each ``PRIVATE KEY`` of it was tried against the dashes.
    "private-key-names": lambda: "-----BEGIN " + _repeat("PRIVATE KEY "),
    # detect-secrets' keyword patterns: each keyword of a run read it to its end and back,
    # each quote the text up to the next one.
    "keywords": lambda: _repeat("PASSWORD"),
    "an-environment-secret-name": lambda: "X_" + _repeat("PASSWORD"),
    "keywords-and-backquotes": lambda: _repeat("pwd`"),
    "backquoted-values": lambda: "password " + _repeat("`a"),
    # detect-secrets' indirect-reference filter, on each text line (of up to 1,000
    # characters) with a keyword's value: each ``=`` read the line to its end.
    "calls-after-assignments": lambda: _repeat("password = 'x' " + "=a(" * 328 + "\n"),
    # many findings: each was replaced in turn, reading the whole line again.
    "many-access-key-ids": lambda: _access_key_ids(),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_line_scans_in_linear_time(name: str) -> None:
    _assert_linear([_message(CRAFTED[name]())], [_message(_plain())])


def test_a_blank_line_after_a_private_key_line_scans_in_linear_time() -> None:
    """After a BEGIN line without its END (Aider's Markdown), each line is checked for key
    material; leading blanks were given back one by one (quadratic)."""
    begin = b"-----BEGIN RSA PRIVATE KEY-----\n"
    _assert_linear([begin, b" " * SIZE + b"!\n"], [begin, _plain().encode() + b"\n"])
