"""Seed 004's deterministic scoring methods, each 0..1, in a criterion type → scorer registry.

Judge-based methods live in :mod:`.judge` (they need an endpoint); :mod:`.correctness`
dispatches between the two.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein


@dataclass(frozen=True)
class MethodScore:
    """A 0..1 score with a short human-readable explanation."""

    score: float
    note: str | None = None


def similarity(a: str, b: str) -> float:
    """1 − Levenshtein distance (insert, delete, substitute: cost 1 each) / longer length
    (1.0 for two empty strings), by ``rapidfuzz``."""
    return float(Levenshtein.normalized_similarity(a, b))


def exact_match(*, expected: str, text: str) -> MethodScore:
    """Seed 004 §4.1: exact match with partial credit.

    exact → 1.0; case-insensitive → 0.95; expected inside the text → 0.95 − 0.35·extra
    (0.60..0.95); case-insensitive inside → 0.90 − 0.35·extra (0.55..0.90), where extra is
    the share of the text that is not the expected answer; otherwise Levenshtein
    similarity s (case-insensitive): s > 0.5 → 0.7·s, 0.2 <= s <= 0.5 → 0.4·s, else 0.
    Leading and trailing whitespace is ignored. An empty expected answer matches only an
    empty text.
    """
    want, got = expected.strip(), text.strip()
    if not want:
        return MethodScore(1.0 if not got else 0.0, "empty expected answer")
    if got == want:
        return MethodScore(1.0, "exact match")
    if got.lower() == want.lower():
        return MethodScore(0.95, "case-insensitive match")
    extra = (len(got) - len(want)) / len(got) if got else 0.0
    if want in got:
        return MethodScore(0.95 - 0.35 * extra, f"expected text found ({extra:.0%} extra)")
    if want.lower() in got.lower():
        return MethodScore(
            0.90 - 0.35 * extra, f"expected text found ignoring case ({extra:.0%} extra)"
        )
    s = similarity(want.lower(), got.lower())
    if s > 0.5:
        return MethodScore(0.7 * s, f"similar ({s:.0%})")
    if s >= 0.2:
        return MethodScore(0.4 * s, f"weakly similar ({s:.0%})")
    return MethodScore(0.0, f"no match (similarity {s:.0%})")


_REGEX_FLAGS = MappingProxyType(
    {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE, "g": 0, "u": 0}
)
_SLASHED = re.compile(r"^/(?P<body>.*)/(?P<flags>[a-z]*)$", re.DOTALL)


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``/pattern/flags`` (flags i, m, s, x; g and u are accepted and ignored) or plain.

    Raises ValueError with a readable reason for a bad pattern or flag.
    """
    flags = 0
    body = pattern
    slashed = _SLASHED.match(pattern)
    if slashed:
        body = slashed.group("body")
        for flag in slashed.group("flags"):
            if flag not in _REGEX_FLAGS:
                raise ValueError(f"unknown regex flag {flag!r} (use i, m, s or x)")
            flags |= _REGEX_FLAGS[flag]
    try:
        return re.compile(body, flags)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None


def regex_match(*, pattern: str, text: str) -> MethodScore:
    """Seed 004 §4.2: 1.0 when the pattern matches anywhere in the text, else 0."""
    compiled = compile_pattern(pattern)
    if compiled.search(text):
        return MethodScore(1.0, "pattern matches")
    return MethodScore(0.0, "pattern does not match")


_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
FULL_CREDIT_ERROR = 0.01
ZERO_CREDIT_ERROR = 0.25


def extract_numbers(text: str) -> list[float]:
    """Every number in the text, including 1,234.5 and scientific notation."""
    numbers = []
    for match in _NUMBER.finditer(text):
        try:
            numbers.append(float(match.group().replace(",", "")))
        except ValueError:  # e.g. a lone "," run
            continue
    return [n for n in numbers if np.isfinite(n)]


def numeric_error_score(error: float) -> float:
    """Seed 004 §4.3: 1 within 1%, 1 − (error/0.25)^0.5 up to 25%, 0 beyond.

    The seed's table gives full credit within 1% while its formula gives 0.8 at exactly
    1%; both are kept, so credit drops from 1.0 to 0.8 at the 1% boundary.
    """
    if error <= FULL_CREDIT_ERROR:
        return 1.0
    if error >= ZERO_CREDIT_ERROR:
        return 0.0
    return 1.0 - math.sqrt(error / ZERO_CREDIT_ERROR)


def numeric_tolerance(*, expected: float, text: str) -> MethodScore:
    """Seed 004 §4.3 on the best number found in the text.

    Relative error |x − expected| / |expected|; for an expected 0 the absolute error is
    used instead (a relative error is undefined there).
    """
    numbers = extract_numbers(text)
    if not numbers:
        return MethodScore(0.0, "no number found")
    best_score, best_number = -1.0, numbers[0]
    for number in numbers:
        error = abs(number - expected) / abs(expected) if expected != 0 else abs(number)
        score = numeric_error_score(error)
        if score > best_score:
            best_score, best_number = score, number
    return MethodScore(best_score, f"closest number {best_number:g} (expected {expected:g})")


def boolean_contains(*, expected: str | None, text: str) -> MethodScore:
    """Seed 004 §4.4: case-insensitive substring; no expected text → pass."""
    if not expected:
        return MethodScore(1.0, "no expected text: passes")
    if expected.lower() in text.lower():
        return MethodScore(1.0, "expected text found")
    return MethodScore(0.0, "expected text not found")


#: Criterion type → scorer(criterion, text): the criterion's fields are the task format's
#: (ExactMatch, RegexMatch, NumericTolerance, BooleanContains).
TEXT_METHODS: MappingProxyType[str, Callable[[Any, str], MethodScore]] = MappingProxyType({
    "exact_match": lambda criterion, text: exact_match(expected=criterion.expected, text=text),
    "regex": lambda criterion, text: regex_match(pattern=criterion.pattern, text=text),
    "numeric_tolerance": lambda criterion, text: numeric_tolerance(
        expected=criterion.expected, text=text),
    "boolean": lambda criterion, text: boolean_contains(expected=criterion.expected, text=text),
})
