from __future__ import annotations

import random
import statistics

import numpy as np
import pytest

from arena_bot.scoring.grouped import (
    competition_ranks,
    group_median,
    group_quantile_exclusive,
    midrank_percentile,
    sort_groups,
)


def test_competition_ranks_share_ties_and_skip() -> None:
    values = np.array([90.0, 80.0, 90.0, 70.0, 80.0])
    ranks = competition_ranks(values, np.zeros(5, dtype=np.int64), n_groups=1)
    assert ranks.rank.tolist() == [1, 3, 1, 5, 3]


def test_ranks_are_per_group_and_empty_input_is_fine() -> None:
    values = np.array([1.0, 2.0, 3.0, 3.0])
    groups = np.array([0, 0, 2, 2])
    ranks = competition_ranks(values, groups, n_groups=3)
    assert ranks.rank.tolist() == [2, 1, 1, 1]
    empty = competition_ranks(np.zeros(0), np.zeros(0, dtype=np.int64), n_groups=2)
    assert len(empty.rank) == 0


def test_midrank_percentile_against_brute_force() -> None:
    rng = random.Random(7)
    values = [float(rng.randint(0, 5)) for _ in range(40)]
    ranks = competition_ranks(np.array(values), np.zeros(40, dtype=np.int64), n_groups=1)
    got = midrank_percentile(ranks)
    for value, percent in zip(values, got, strict=True):
        below = sum(v < value for v in values)
        equal = sum(v == value for v in values)
        assert percent == pytest.approx(100 * (below + equal / 2) / 40)
    tied = competition_ranks(np.ones(4), np.zeros(4, dtype=np.int64), n_groups=1)
    assert midrank_percentile(tied).tolist() == [50.0] * 4


def test_median_and_quartiles_match_the_standard_library() -> None:
    rng = random.Random(3)
    groups, values = [], []
    sizes = [5, 6, 7, 12, 1, 0, 2]
    for g, size in enumerate(sizes):
        for _ in range(size):
            groups.append(g)
            values.append(rng.uniform(0, 1000))
    ordered = sort_groups(np.array(values), np.array(groups), n_groups=len(sizes))
    medians = group_median(ordered)
    q25 = group_quantile_exclusive(ordered, fraction=0.25)
    q75 = group_quantile_exclusive(ordered, fraction=0.75)
    for g, size in enumerate(sizes):
        members = [v for v, gg in zip(values, groups, strict=True) if gg == g]
        if size == 0:
            assert np.isnan(medians[g])
            continue
        assert medians[g] == pytest.approx(statistics.median(members))
        if size >= 2:
            quartiles = statistics.quantiles(members, n=4)
            assert q25[g] == pytest.approx(quartiles[0])
            assert q75[g] == pytest.approx(quartiles[2])
        else:
            assert np.isnan(q25[g])
