"""Seed 004's statistics: multi-run summaries, model comparison, pass@k, correlation.

Every function handles empty and constant input explicitly: it returns ``None`` for a
quantity that is undefined rather than NaN or a made-up number, and says why in a note
where the caller shows one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from arena_bot.models.leaderboard import Summary

#: Seed 004 §6: significance level of the comparison.
ALPHA = 0.05

EffectSize = Literal["negligible", "small", "medium", "large"]


def t_critical(*, df: int, confidence: float = 0.95) -> float:
    """Two-sided critical t value for ``df`` degrees of freedom (seed 002 fixes 2.776)."""
    from scipy.special import stdtrit  # scipy.stats.t.ppf's own function, faster to import

    return float(stdtrit(df, 0.5 + confidence / 2.0))


def summarize(
    values: Sequence[float],
    *,
    weights: Sequence[float] | None = None,
    confidence: float = 0.95,
) -> Summary | None:
    """Seed 004 ``getDetailedAggregateScores``: Σ(score·weight)/Σ(weight) plus statistics.

    The standard deviation is the weighted sample one (Σw(x − mean)² / Σw · n/(n − 1)),
    which is the ordinary sample deviation for equal weights. The interval is
    mean ± t(n − 1) · sd / √n, clipped to 0..100; it is ``None`` below 2 values. Empty
    input (or weights summing to 0) has no summary: ``None``.
    """
    if not values:
        return None
    x = np.asarray(values, dtype=float)
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=float)
    total = float(w.sum())
    if total <= 0:
        return None
    mean = float((x * w).sum() / total)
    n = len(x)
    if n >= 2:
        variance = float((w * (x - mean) ** 2).sum() / total) * n / (n - 1)
        std = math.sqrt(max(variance, 0.0))
        margin = t_critical(df=n - 1, confidence=confidence) * std / math.sqrt(n)
        low, high = max(0.0, mean - margin), min(100.0, mean + margin)
    else:  # one value: no spread to speak of, no interval
        std, low, high = 0.0, None, None
    return Summary(
        mean=mean,
        std=std,
        min=float(x.min()),
        max=float(x.max()),
        count=n,
        total_weight=total,
        low=low,
        high=high,
        confidence=confidence,
    )


def interpret_effect_size(d: float) -> EffectSize:
    """Seed 004 §6: |d| < 0.2 negligible, < 0.5 small, < 0.8 medium, else large."""
    sizes: tuple[tuple[float, EffectSize], ...] = ((0.2, "negligible"), (0.5, "small"),
                                                    (0.8, "medium"))
    return next((size for limit, size in sizes if abs(d) < limit), "large")


@dataclass(frozen=True, kw_only=True)
class WelchResult:
    """Seed 004 ``ModelComparison`` (two-sided Welch t-test and Cohen's d)."""

    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    difference: float  # mean_a − mean_b
    std_error: float
    t: float | None
    df: float | None
    p_value: float
    significant: bool
    cohens_d: float | None
    effect: EffectSize | None
    note: str | None = None


def welch_test(a: Sequence[float], b: Sequence[float]) -> WelchResult:
    """Welch's unequal-variance t-test with Cohen's d (pooled standard deviation).

    Needs at least 2 values per side (seed 004: "requires at least 2 runs per model");
    raises ValueError otherwise. When both sides have zero variance the t statistic is
    undefined: equal means give p = 1, different means p = 0 (the difference is exact),
    and Cohen's d is reported as ``None`` with a note.
    """
    if len(a) < 2 or len(b) < 2:
        raise ValueError("Welch's t-test needs at least 2 values on each side")
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    mean_a, mean_b = float(x.mean()), float(y.mean())
    var_a, var_b = float(x.var(ddof=1)), float(y.var(ddof=1))
    n_a, n_b = len(x), len(y)
    std_error = math.sqrt(var_a / n_a + var_b / n_b)
    pooled = math.sqrt(((n_a - 1) * var_a + (n_b - 1) * var_b) / (n_a + n_b - 2))
    difference = mean_a - mean_b
    if std_error == 0:  # both constant
        p_value = 1.0 if difference == 0 else 0.0
        return WelchResult(
            n_a=n_a, n_b=n_b, mean_a=mean_a, mean_b=mean_b, difference=difference,
            std_error=0.0, t=None, df=None, p_value=p_value, significant=p_value < ALPHA,
            cohens_d=None, effect=None,
            note="both sides are constant: no variance, so t and Cohen's d are undefined",
        )
    from scipy import stats as scipy_stats  # only comparisons need it

    result = scipy_stats.ttest_ind(x, y, equal_var=False)
    df = (var_a / n_a + var_b / n_b) ** 2 / (
        (var_a / n_a) ** 2 / (n_a - 1) + (var_b / n_b) ** 2 / (n_b - 1)
    )
    d = difference / pooled
    return WelchResult(
        n_a=n_a, n_b=n_b, mean_a=mean_a, mean_b=mean_b, difference=difference,
        std_error=std_error, t=float(result.statistic), df=float(df),
        p_value=float(result.pvalue), significant=float(result.pvalue) < ALPHA,
        cohens_d=float(d), effect=interpret_effect_size(d),
    )


@dataclass(frozen=True, kw_only=True)
class PairedResult:
    """A paired t-test on per-item differences ("Adding Error Bars to Evals")."""

    n: int
    mean_difference: float
    std_error: float
    t: float | None
    df: int
    p_value: float
    significant: bool
    low: float
    high: float
    confidence: float
    note: str | None = None


def paired_test(
    differences: Sequence[float], *, confidence: float = 0.95
) -> PairedResult:
    """Paired t-test: t = mean(d) / (sd(d)/√n) with n − 1 degrees of freedom, and its CI.

    Known vector: [1, 2, 3, 4] → t = 3.873, df = 3, p = 0.0305, 95% CI [0.446, 4.554].
    Needs 2+ differences (ValueError otherwise). Constant differences have no spread: the
    interval collapses to the point and p is 1 for a zero difference, 0 otherwise.
    """
    if len(differences) < 2:
        raise ValueError("a paired test needs at least 2 paired values")
    d = np.asarray(differences, dtype=float)
    n = len(d)
    mean = float(d.mean())
    std_error = float(d.std(ddof=1)) / math.sqrt(n)
    if std_error == 0:
        p_value = 1.0 if mean == 0 else 0.0
        return PairedResult(
            n=n, mean_difference=mean, std_error=0.0, t=None, df=n - 1, p_value=p_value,
            significant=p_value < ALPHA, low=mean, high=mean, confidence=confidence,
            note="all differences are equal: no variance, t is undefined",
        )
    from scipy import special

    t = mean / std_error
    p_value = float(2.0 * special.stdtr(n - 1, -abs(t)))  # = scipy.stats.t.sf(|t|) * 2
    margin = t_critical(df=n - 1, confidence=confidence) * std_error
    return PairedResult(
        n=n, mean_difference=mean, std_error=std_error, t=float(t), df=n - 1, p_value=p_value,
        significant=p_value < ALPHA, low=mean - margin, high=mean + margin,
        confidence=confidence,
    )


def pass_at_k(*, n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 − C(n − c, k) / C(n, k).

    n = 10, c = 3 → pass@1 = 0.3, pass@5 = 0.9167. Needs 1 <= k <= n and 0 <= c <= n.
    """
    if not (1 <= k <= n) or not (0 <= c <= n):
        raise ValueError(f"pass@k needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    if n - c < k:  # every choice of k runs contains a passing one
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation; ``None`` when undefined (fewer than 2 pairs or a constant side)."""
    if len(x) != len(y):
        raise ValueError("pearson needs two sequences of equal length")
    if len(x) < 2:
        return None
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])
