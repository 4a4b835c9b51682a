from __future__ import annotations

import random

import pytest

from arena_bot.scoring.methods import (
    TEXT_METHODS,
    boolean_contains,
    compile_pattern,
    exact_match,
    extract_numbers,
    numeric_error_score,
    numeric_tolerance,
    regex_match,
    similarity,
)


def slow_levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def test_similarity_matches_textbook_dynamic_programming() -> None:
    """The similarity exact_match uses is 1 - textbook edit distance / longer length (the
    wrapper around rapidfuzz's distance went; its test now checks what scoring uses)."""
    rng = random.Random(11)
    for _ in range(200):
        a = "".join(rng.choice("abcé ") for _ in range(rng.randint(0, 12)))
        b = "".join(rng.choice("abcé ") for _ in range(rng.randint(0, 12)))
        expected = 1 - slow_levenshtein(a, b) / max(len(a), len(b)) if a or b else 1.0
        assert similarity(a, b) == pytest.approx(expected), (a, b)
    assert similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)


def test_exact_match_partial_credit_table() -> None:
    assert exact_match(expected="Paris", text="Paris").score == 1.0
    assert exact_match(expected="Paris", text="  paris ").score == 0.95
    inside = exact_match(expected="Paris", text="It is Paris")  # 6/11 extra
    assert inside.score == pytest.approx(0.95 - 0.35 * 6 / 11)
    assert 0.60 <= inside.score <= 0.95
    ci_inside = exact_match(expected="Paris", text="it is paris")
    assert ci_inside.score == pytest.approx(0.90 - 0.35 * 6 / 11)
    close = exact_match(expected="Paris", text="Parsi")  # distance 2: similarity 0.6
    assert close.score == pytest.approx(0.7 * 0.6)
    weak = exact_match(expected="abcdefghij", text="abcxyzuvwq")  # similarity 0.3
    assert weak.score == pytest.approx(0.4 * 0.3)
    assert exact_match(expected="Paris", text="Tokyo").score == 0.0
    assert exact_match(expected="", text="").score == 1.0
    assert exact_match(expected="", text="x").score == 0.0


def test_similarity_short_circuit_keeps_the_bound() -> None:
    assert similarity("", "") == 1.0
    assert similarity("a", "a" * 10) < 0.2


def test_regex_plain_and_slashed_with_flags() -> None:
    assert regex_match(pattern=r"\d{3}", text="code 123").score == 1.0
    assert regex_match(pattern="/HELLO/i", text="hello there").score == 1.0
    assert regex_match(pattern="/HELLO/", text="hello there").score == 0.0
    assert regex_match(pattern="/^b$/m", text="a\nb\nc").score == 1.0
    with pytest.raises(ValueError, match="unknown regex flag"):
        compile_pattern("/x/q")
    with pytest.raises(ValueError, match="invalid regular expression"):
        compile_pattern("(unclosed")


def test_numeric_tolerance_curve_and_extraction() -> None:
    assert numeric_error_score(0.0) == 1.0
    assert numeric_error_score(0.01) == 1.0  # full credit within 1%
    assert numeric_error_score(0.0625) == pytest.approx(0.5)
    assert numeric_error_score(0.25) == 0.0
    assert extract_numbers("x = 1,234.5 and 6.02e23, -3") == [1234.5, 6.02e23, -3.0]
    assert numeric_tolerance(expected=100.0, text="about 106.25").score == pytest.approx(0.5)
    assert numeric_tolerance(expected=100.0, text="no digits").score == 0.0
    # expected 0: absolute error
    assert numeric_tolerance(expected=0.0, text="0.005").score == 1.0
    best = numeric_tolerance(expected=42.0, text="7 then 42")
    assert best.score == 1.0 and "42" in (best.note or "")


def test_boolean_contains() -> None:
    assert boolean_contains(expected="ok", text="All OK").score == 1.0
    assert boolean_contains(expected="fail", text="All OK").score == 0.0
    assert boolean_contains(expected=None, text="anything").score == 1.0


def test_registry_covers_deterministic_criterion_types() -> None:
    assert set(TEXT_METHODS) == {"exact_match", "regex", "numeric_tolerance", "boolean"}
