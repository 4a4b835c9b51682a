from __future__ import annotations

import numpy as np
import pytest

from arena_bot.scoring import components


def a(*values: float) -> np.ndarray:
    return np.array(values, dtype=float)


def test_token_efficiency_linear_between_min_and_max() -> None:
    scores = components.token_efficiency(
        a(1_000, 5_000, 10_000, 20_000, 99_000), low=a(*[5_000] * 5), high=a(*[20_000] * 5)
    )
    assert scores.tolist() == pytest.approx([100.0, 100.0, 200 / 3, 0.0, 0.0])


def test_degenerate_baseline_min_equals_max_is_defined() -> None:
    scores = components.token_efficiency(a(10, 10, 11), low=a(10, 10, 10), high=a(10, 10, 10))
    assert scores.tolist() == [100.0, 100.0, 0.0]
    speed = components.speed(a(30.0, 31.0), low=a(30.0, 30.0), high=a(30.0, 30.0))
    assert speed.tolist() == [100.0, 0.0]
    assert not np.isnan(scores).any()


def test_speed_uses_exponent_and_missing_time_scores_50() -> None:
    scores = components.speed(a(0.0, 60.0, 930.0, 1800.0), low=a(*[60.0] * 4),
                              high=a(*[1800.0] * 4))
    assert scores[0] == 50.0
    assert scores[1] == 100.0
    assert scores[2] == pytest.approx(100 * 0.5**0.7)
    assert scores[3] == 0.0


def test_cost_missing_scores_50() -> None:
    scores = components.cost(a(0.0, 0.105), low=a(0.01, 0.01), high=a(0.2, 0.2))
    assert scores.tolist() == pytest.approx([50.0, 50.0])


def test_iteration_efficiency_seed_table() -> None:
    scores = components.iteration_efficiency(a(1, 2, 3, 4, 9), median=a(*[3.0] * 5))
    # 1 → 100; ≤ median → max(50, 100 − 15(i−1)); above → max(0, 50 − 10(i − median))
    assert scores.tolist() == [100.0, 85.0, 70.0, 40.0, 0.0]


def test_overall_renormalises_when_correctness_is_unscored() -> None:
    weights = np.array([[0.35, 0.25, 0.20, 0.20], [0.35, 0.25, 0.20, 0.20]])
    total, applied = components.overall(
        efficiency_score=a(80, 80), speed_score=a(60, 60), cost_score=a(40, 40),
        correctness_score=a(100, np.nan), weights=weights,
    )
    assert total[0] == pytest.approx(0.35 * 80 + 0.25 * 60 + 0.2 * 40 + 0.2 * 100)
    assert total[1] == pytest.approx((0.35 * 80 + 0.25 * 60 + 0.2 * 40) / 0.8)
    assert applied[1].tolist() == pytest.approx([0.4375, 0.3125, 0.25, 0.0])


def test_difficulty_adjustment_is_capped() -> None:
    assert components.difficulty_adjusted(a(50, 90), multiplier=a(1.2, 1.2)).tolist() == [
        60.0, 100.0
    ]
