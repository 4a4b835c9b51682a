"""The committed table of t quantiles is exactly what scipy computes (bit for bit)."""

from __future__ import annotations

import numpy as np
from scipy import special

from arena_bot.scoring.core import t_interval
from arena_bot.scoring.stats import t_critical
from arena_bot.scoring.t_table import QUANTILE, T_975, t_quantile


def test_every_tabled_value_is_scipys() -> None:
    df = np.arange(1, len(T_975) + 1)
    assert np.array_equal(T_975, special.stdtrit(df, 0.5 + 0.95 / 2.0))
    assert QUANTILE == 0.5 + 0.95 / 2.0
    for d in (1, 2, 4, 29, 30, len(T_975)):
        assert t_critical(df=d) == float(special.stdtrit(d, QUANTILE))


def test_values_off_the_table_are_computed_by_scipy() -> None:
    beyond = len(T_975) + 7
    assert t_critical(df=beyond) == float(special.stdtrit(beyond, QUANTILE))
    assert t_critical(df=3, confidence=0.9) == float(special.stdtrit(3, 0.95))
    mixed = np.array([1, 3, beyond])
    assert np.array_equal(t_quantile(mixed, QUANTILE), special.stdtrit(mixed, QUANTILE))
    assert np.array_equal(t_quantile(np.array([0, 2]), QUANTILE),
                          special.stdtrit(np.array([0, 2]), QUANTILE), equal_nan=True)


def test_intervals_equal_the_scipy_formula() -> None:
    mean = np.array([50.0, 60.0, 70.0, 80.0])
    std = np.array([5.0, 0.0, 12.5, 3.0])
    count = np.array([3, 1, 5, 2])
    low, high = t_interval(mean, std, count, confidence=0.95)
    t_value = special.stdtrit(np.where(count >= 2, count - 1, 1), QUANTILE)
    margin = t_value * std / np.sqrt(count)
    ok = count >= 2
    assert np.array_equal(low[ok], np.clip(mean - margin, 0, 100)[ok])
    assert np.array_equal(high[ok], np.clip(mean + margin, 0, 100)[ok])
    assert np.isnan(low[~ok]).all() and np.isnan(high[~ok]).all()
