"""Critical t values and intervals are Student's t quantiles (scipy.stats.t)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from arena_bot.scoring.core import t_interval
from arena_bot.scoring.stats import t_critical


@pytest.mark.parametrize("df", [1, 2, 4, 29, 30, 512, 519, 10**6])
def test_critical_values_are_the_t_quantile(df: int) -> None:
    assert t_critical(df=df) == float(stats.t.ppf(0.975, df))
    assert t_critical(df=df, confidence=0.9) == float(stats.t.ppf(0.95, df))


def test_seed_002s_fixed_value_for_four_degrees_of_freedom() -> None:
    assert round(t_critical(df=4), 3) == 2.776


def test_intervals_equal_the_t_formula() -> None:
    mean = np.array([50.0, 60.0, 70.0, 80.0])
    std = np.array([5.0, 0.0, 12.5, 3.0])
    count = np.array([3, 1, 5, 2])
    low, high = t_interval(mean, std, count, confidence=0.95)
    t_value = stats.t.ppf(0.975, np.where(count >= 2, count - 1, 1))
    margin = t_value * std / np.sqrt(count)
    ok = count >= 2
    assert np.array_equal(low[ok], np.clip(mean - margin, 0, 100)[ok])
    assert np.array_equal(high[ok], np.clip(mean + margin, 0, 100)[ok])
    assert np.isnan(low[~ok]).all() and np.isnan(high[~ok]).all()
