"""Seed 002's component scores, vectorised: each function names its seed formula, takes
and returns arrays, all values in 0..100."""

from __future__ import annotations

import numpy as np

from arena_bot.scoring.grouped import FloatArray

#: Seed 002: missing execution time or cost (recorded as 0) scores this.
MISSING_SCORE = 50.0
#: Seed 002, ``calculate_speed_score``: speed_ratio ** 0.7.
SPEED_EXPONENT = 0.7


def _linear_between(
    value: FloatArray, low: FloatArray, high: FloatArray, *, exponent: float = 1.0
) -> FloatArray:
    """100 at or below ``low``, 0 at or above ``high``, ((high − v)/(high − low))^e in between.

    ``high == low`` never reaches the division: every value is either <= low (100) or
    >= high (0), as in the seed.
    """
    span = high - low
    safe_span = np.where(span > 0, span, 1.0)  # only used where low < value < high
    ratio = np.clip((high - value) / safe_span, 0.0, 1.0)
    between = 100.0 * ratio**exponent if exponent != 1.0 else 100.0 * ratio
    return np.where(value <= low, 100.0, np.where(value >= high, 0.0, between))


def token_efficiency(tokens: FloatArray, *, low: FloatArray, high: FloatArray) -> FloatArray:
    """Seed 002 ``calculate_token_efficiency_score`` (and, the same formula,
    ``calculate_tool_call_efficiency_score``): (max − t)/(max − min) · 100.

    The seed's comment says "logarithmic" but its code is linear; the code is followed.
    """
    return _linear_between(tokens, low, high)


tool_call_efficiency = token_efficiency


def iteration_efficiency(iterations: FloatArray, *, median: FloatArray) -> FloatArray:
    """Seed 002 ``calculate_iteration_efficiency_score``.

    1 iteration → 100; up to the median → max(50, 100 − (i − 1)·15); above it →
    max(0, 50 − (i − median)·10).
    """
    up_to_median = np.maximum(50.0, 100.0 - (iterations - 1.0) * 15.0)
    above = np.maximum(0.0, 50.0 - (iterations - median) * 10.0)
    return np.where(
        iterations == 1.0, 100.0, np.where(iterations <= median, up_to_median, above)
    )


def efficiency(
    token: FloatArray, tool_call: FloatArray, iteration: FloatArray, *, parts: dict[str, float]
) -> FloatArray:
    """Seed 002 ``calculate_efficiency_score``: 0.5·token + 0.3·tool_call + 0.2·iteration."""
    return token * parts["token"] + tool_call * parts["tool_call"] + iteration * parts["iteration"]


def speed(
    seconds: FloatArray, *, low: FloatArray, high: FloatArray, exponent: float = SPEED_EXPONENT
) -> FloatArray:
    """Seed 002 ``calculate_speed_score``: ((max − t)/(max − min))^0.7 · 100; 0 s → 50.

    A time of 0 (or NaN) means "not recorded" and scores the seed's default 50.
    """
    missing = ~(seconds > 0)
    scored = _linear_between(np.where(missing, 1.0, seconds), low, high, exponent=exponent)
    return np.where(missing, MISSING_SCORE, scored)


def cost(dollars: FloatArray, *, low: FloatArray, high: FloatArray) -> FloatArray:
    """Seed 002 ``calculate_cost_score``: (max − c)/(max − min) · 100; $0 → 50."""
    return speed(dollars, low=low, high=high, exponent=1.0)


def overall(
    *,
    efficiency_score: FloatArray,
    speed_score: FloatArray,
    cost_score: FloatArray,
    correctness_score: FloatArray,
    weights: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Seed 002 ``calculate_overall_score``: Σ weight · category score.

    ``weights`` has one row per value (columns efficiency, speed, cost, correctness).
    A NaN correctness (no criterion could be scored) is left out and the other three
    weights are scaled up to sum to 1, instead of silently counting it as 0 or 100.
    Returns the overall score and the weights actually applied.
    """
    applied = weights.copy()
    unscored = np.isnan(correctness_score)
    applied[unscored, 3] = 0.0
    applied = applied / applied.sum(axis=1, keepdims=True)
    total = (
        efficiency_score * applied[:, 0]
        + speed_score * applied[:, 1]
        + cost_score * applied[:, 2]
        + np.where(unscored, 0.0, correctness_score) * applied[:, 3]
    )
    return total, applied


def difficulty_adjusted(score: FloatArray, *, multiplier: FloatArray) -> FloatArray:
    """Seed 002 ``apply_difficulty_adjustment``: min(100, score · multiplier)."""
    return np.minimum(100.0, score * multiplier)
