"""Vectorised per-group statistics over flat numpy arrays (a value array and a group index
beside it): sorting once by ``(group, value)`` gives every group's order statistics by
index arithmetic, with no Python loop over groups."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class SortedGroups:
    """``values`` sorted within each of ``n_groups`` groups (groups may be empty)."""

    values: FloatArray  # sorted by (group, value)
    order: IntArray  # original index of each sorted value
    starts: IntArray  # first sorted index of each group
    counts: IntArray  # size of each group

    def nth(self, position: IntArray) -> FloatArray:
        """The value at ``position`` (0-based within group); NaN for empty groups."""
        out = np.full(len(self.counts), np.nan)
        has = self.counts > 0
        out[has] = self.values[self.starts[has] + position[has]]
        return out


def group_order(values: FloatArray, groups: IntArray) -> IntArray:
    """Indices that sort by ``(group, value)``, in one or two cheap sorts.

    ``np.lexsort`` is 3–4x slower here. Integral values (token and call counts, scores in
    hundredths) combine with the group into one integer key ``group · span + value``;
    other values are ranked first and the unique keys ``group · n + rank`` sorted. Equal
    values may come out in any order, which no caller depends on (equal values get equal
    results), and the sorts are deterministic, so outputs never vary between runs.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    groups = groups.astype(np.int64)
    low, high = float(values.min()), float(values.max())
    span = high - low + 1
    n_groups = int(groups.max()) + 1
    if span * n_groups < 2.0**62 and np.array_equal(values, np.floor(values)):
        key = groups * int(span) + (values - low).astype(np.int64)
        return np.argsort(key)
    by_value = np.argsort(values)
    rank = np.empty(n, dtype=np.int64)
    rank[by_value] = np.arange(n, dtype=np.int64)
    return np.argsort(groups * n + rank)


def sort_groups(values: FloatArray, groups: IntArray, *, n_groups: int) -> SortedGroups:
    """Sort ``values`` by group then value: O(n log n)."""
    order = group_order(values, groups)
    counts = np.bincount(groups, minlength=n_groups).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    return SortedGroups(values=values[order], order=order, starts=starts, counts=counts)


def group_min(sorted_groups: SortedGroups) -> FloatArray:
    return sorted_groups.nth(np.zeros_like(sorted_groups.counts))


def group_max(sorted_groups: SortedGroups) -> FloatArray:
    return sorted_groups.nth(np.maximum(sorted_groups.counts - 1, 0))


def group_median(sorted_groups: SortedGroups) -> FloatArray:
    """Median as :func:`statistics.median` (mean of the two middle values when even)."""
    counts = sorted_groups.counts
    low = sorted_groups.nth(np.maximum((counts - 1) // 2, 0))
    high = sorted_groups.nth(counts // 2)
    return (low + high) / 2.0


def group_quantile_exclusive(sorted_groups: SortedGroups, *, fraction: float) -> FloatArray:
    """Quantile as :func:`statistics.quantiles` (method ``exclusive``): position p·(n+1).

    Only defined for groups of 2+ values (NaN otherwise). Like the standard library, the
    lower index is clamped to 1..n−1 and the weight is not, so for very small groups the
    quantile extrapolates beyond the data (dynamic baselines have 5+ values, where it
    never does).
    """
    counts = sorted_groups.counts
    out = np.full(len(counts), np.nan)
    has = counts >= 2
    n = counts[has]
    position = fraction * (n + 1)  # 1-based
    below = np.clip(np.floor(position).astype(np.int64), 1, n - 1)
    weight = position - below
    starts = sorted_groups.starts[has]
    low = sorted_groups.values[starts + below - 1]
    high = sorted_groups.values[starts + below]
    out[has] = low + (high - low) * weight
    return out


def group_mean(values: FloatArray, groups: IntArray, *, n_groups: int) -> FloatArray:
    """Mean per group; NaN for empty groups."""
    counts = np.bincount(groups, minlength=n_groups)
    sums = np.bincount(groups, weights=values, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def group_sample_std(
    values: FloatArray, groups: IntArray, *, n_groups: int, means: FloatArray
) -> FloatArray:
    """Sample standard deviation (n − 1) per group; NaN for groups of fewer than 2."""
    counts = np.bincount(groups, minlength=n_groups)
    squares = np.bincount(groups, weights=(values - means[groups]) ** 2, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts >= 2, np.sqrt(squares / np.maximum(counts - 1, 1)), np.nan)


@dataclass(frozen=True)
class TieRanks:
    """Competition ranks ("1, 1, 3") and tie counts within each group."""

    rank: IntArray  # 1-based, best = 1
    below: IntArray  # entries of the same group strictly worse
    equal: IntArray  # entries of the same group with the same value (including itself)
    group_size: IntArray


def competition_ranks(
    values: FloatArray, groups: IntArray, *, n_groups: int
) -> TieRanks:
    """Rank within each group, higher first, ties sharing the best rank of their run (seed
    002's rule).

    ``values`` must be free of NaN (callers exclude unscored entries first).
    """
    n = len(values)
    if n == 0:  # nothing to rank
        empty = np.zeros(0, dtype=np.int64)
        return TieRanks(rank=empty, below=empty, equal=empty, group_size=empty)
    key = -values
    order = group_order(key, groups)
    sorted_key, sorted_group = key[order], groups[order]
    counts = np.bincount(groups, minlength=n_groups)
    # Runs of equal values within a group, in sorted order: each run's first and last index.
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (sorted_group[1:] != sorted_group[:-1]) | (sorted_key[1:] != sorted_key[:-1])
    run_starts = np.flatnonzero(new_run)
    run = np.cumsum(new_run) - 1
    first = run_starts[run]
    last = np.append(run_starts[1:], n)[run] - 1
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))[sorted_group]
    size = counts[sorted_group]
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.arange(n)
    return TieRanks(
        rank=(first - start + 1)[inverse].astype(np.int64),
        below=(size - (last - start + 1))[inverse].astype(np.int64),
        equal=(last - first + 1)[inverse].astype(np.int64),
        group_size=size[inverse].astype(np.int64),
    )


def midrank_percentile(ranks: TieRanks) -> FloatArray:
    """Mid-rank percentile: 100 · (below + equal / 2) / n. Ties share one percentile.

    Seed 002's ``calculate_percentile`` is ``100 · below / n`` (index of the first equal
    score in the ascending list), which puts the lowest score at 0 and never reaches 100;
    the mid-rank form is symmetric and equals 50 for everyone when all are tied.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * (ranks.below + ranks.equal / 2.0) / ranks.group_size
