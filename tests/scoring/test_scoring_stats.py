from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats as scipy_stats

from arena_bot.scoring.stats import (
    interpret_effect_size,
    paired_test,
    pass_at_k,
    pearson,
    summarize,
    t_critical,
    welch_test,
)


def test_paired_test_known_vector() -> None:
    result = paired_test([1, 2, 3, 4])
    assert result.t == pytest.approx(3.873, abs=5e-4)
    assert result.df == 3
    assert result.p_value == pytest.approx(0.0305, abs=5e-5)
    assert (result.low, result.high) == (pytest.approx(0.446, abs=5e-4),
                                         pytest.approx(4.554, abs=5e-4))
    assert result.significant


def test_paired_test_constant_differences_have_no_t() -> None:
    zero = paired_test([0.0, 0.0, 0.0])
    assert zero.t is None and zero.p_value == 1.0 and not zero.significant
    shifted = paired_test([2.0, 2.0])
    assert shifted.p_value == 0.0 and shifted.low == shifted.high == 2.0
    with pytest.raises(ValueError):
        paired_test([1.0])


def test_pass_at_k_known_vector() -> None:
    assert pass_at_k(n=10, c=3, k=1) == pytest.approx(0.3)
    assert pass_at_k(n=10, c=3, k=5) == pytest.approx(0.9167, abs=5e-5)
    assert pass_at_k(n=10, c=0, k=5) == 0.0
    assert pass_at_k(n=10, c=8, k=3) == 1.0  # n − c < k
    with pytest.raises(ValueError):
        pass_at_k(n=3, c=1, k=4)


def test_welch_matches_scipy_and_cohens_d_uses_pooled_sd() -> None:
    a, b = [70.0, 72.0, 75.0, 71.0], [60.0, 65.0, 59.0, 66.0, 63.0]
    result = welch_test(a, b)
    reference = scipy_stats.ttest_ind(a, b, equal_var=False)
    assert result.p_value == pytest.approx(reference.pvalue)
    assert result.t == pytest.approx(reference.statistic)
    pooled = math.sqrt(
        (3 * statistics.variance(a) + 4 * statistics.variance(b)) / 7
    )
    assert result.cohens_d == pytest.approx((statistics.mean(a) - statistics.mean(b)) / pooled)
    assert result.significant and result.effect == "large"


def test_welch_constant_sides_and_too_few_values() -> None:
    same = welch_test([5.0, 5.0], [5.0, 5.0])
    assert same.p_value == 1.0 and same.cohens_d is None and same.note
    different = welch_test([5.0, 5.0], [6.0, 6.0])
    assert different.p_value == 0.0 and different.significant
    with pytest.raises(ValueError):
        welch_test([1.0], [1.0, 2.0])


@pytest.mark.parametrize(
    ("d", "label"),
    [(0.0, "negligible"), (-0.19, "negligible"), (0.2, "small"), (0.49, "small"),
     (0.5, "medium"), (-0.79, "medium"), (0.8, "large"), (3.0, "large")],
)
def test_effect_size_interpretation(d: float, label: str) -> None:
    assert interpret_effect_size(d) == label


def test_summarize_uses_t_for_actual_degrees_of_freedom() -> None:
    values = [60.0, 70.0, 80.0]
    summary = summarize(values)
    assert summary is not None
    margin = scipy_stats.t.ppf(0.975, 2) * statistics.stdev(values) / math.sqrt(3)
    assert summary.low == pytest.approx(70.0 - margin)
    assert summary.high == pytest.approx(min(100.0, 70.0 + margin))
    assert t_critical(df=4) == pytest.approx(2.776, abs=1e-3)  # the seed's fixed value
    assert t_critical(df=2) == pytest.approx(4.303, abs=1e-3)


def test_summarize_weighted_mean_and_edge_cases() -> None:
    summary = summarize([10.0, 40.0], weights=[3.0, 1.0])
    assert summary is not None and summary.mean == pytest.approx(17.5)
    assert summary.total_weight == 4.0
    single = summarize([42.0])
    assert single is not None and single.low is None and single.std == 0.0
    assert summarize([]) is None
    assert summarize([1.0], weights=[0.0]) is None


def test_pearson_undefined_cases() -> None:
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [5, 5, 5]) is None
    assert pearson([1], [1]) is None
