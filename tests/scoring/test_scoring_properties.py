"""Property-based tests of the scoring core (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_bot.core.config import ScoringConfig
from arena_bot.scoring import components, core
from arena_bot.scoring.grouped import competition_ranks, midrank_percentile

positive = st.floats(min_value=0.001, max_value=1e7, allow_nan=False)


@st.composite
def baselines(draw: st.DrawFn) -> tuple[float, float, float]:
    low = draw(positive)
    high = draw(st.floats(min_value=low, max_value=max(low, 1e7) * 4))
    median = draw(st.floats(min_value=low, max_value=high))
    return low, median, high


def arr(value: float) -> np.ndarray:
    return np.array([value], dtype=float)


@given(baseline=baselines(), a=positive, b=positive)
def test_fewer_tokens_or_calls_never_lower_efficiency(baseline, a, b) -> None:
    low, _, high = baseline
    fewer, more = min(a, b), max(a, b)
    for scorer in (components.token_efficiency, components.tool_call_efficiency,
                   components.cost):
        s_fewer = scorer(arr(fewer), low=arr(low), high=arr(high))[0]
        s_more = scorer(arr(more), low=arr(low), high=arr(high))[0]
        assert 0.0 <= s_more <= s_fewer <= 100.0


@given(baseline=baselines(), a=positive, b=positive)
def test_faster_is_never_slower_scored(baseline, a, b) -> None:
    low, _, high = baseline
    quick, slow = min(a, b), max(a, b)
    s_quick = components.speed(arr(quick), low=arr(low), high=arr(high))[0]
    s_slow = components.speed(arr(slow), low=arr(low), high=arr(high))[0]
    assert 0.0 <= s_slow <= s_quick <= 100.0


@given(median=st.floats(min_value=1, max_value=50), a=st.integers(1, 200),
       b=st.integers(1, 200))
def test_fewer_iterations_never_lower_the_score(median, a, b) -> None:
    few, many = min(a, b), max(a, b)
    s_few = components.iteration_efficiency(arr(few), median=arr(median))[0]
    s_many = components.iteration_efficiency(arr(many), median=arr(median))[0]
    assert 0.0 <= s_many <= s_few <= 100.0


run_rows = st.lists(
    st.tuples(
        st.integers(0, 3),  # task
        st.floats(min_value=1, max_value=1e6),  # tokens
        st.integers(1, 300),  # tool calls
        st.integers(1, 20),  # iterations
        st.one_of(st.just(0.0), st.floats(min_value=0.1, max_value=1e4)),  # time
        st.one_of(st.just(0.0), st.floats(min_value=1e-4, max_value=50)),  # cost
        st.one_of(st.just(float("nan")), st.floats(min_value=0, max_value=100)),  # correct
    ),
    min_size=0, max_size=40,
)


def score_rows(rows, *, multiplier=1.2, solved=None, policy="solved"):
    n_tasks = 4
    ones = np.ones(n_tasks)
    tasks = core.TaskColumns(
        count=n_tasks,
        defaults=core.DefaultBaselines(
            tokens=(ones * 5000, ones * 60000, ones * 400000),
            tool_calls=(ones * 3, ones * 30, ones * 150),
            execution_time=(ones * 60, ones * 300, ones * 1800),
            cost=(ones * 0.01, ones * 0.05, ones * 0.2),
            median_iterations=ones * 3,
        ),
        weights=np.tile([0.35, 0.25, 0.2, 0.2], (n_tasks, 1)),
        multiplier=ones * multiplier,
    )
    n = len(rows)
    col = np.array(rows, dtype=float).reshape(n, 7)
    subs = core.SubmissionColumns(
        task=col[:, 0].astype(np.int64), scored=np.ones(n, dtype=bool),
        price_input=np.full(n, np.nan), price_cached=np.full(n, np.nan),
        price_output=np.full(n, np.nan),
    )
    nan = np.full(n, np.nan)
    runs = core.RunColumns(
        submission=np.arange(n, dtype=np.int64), tokens=col[:, 1], tool_calls=col[:, 2],
        iterations=col[:, 3], execution_time=col[:, 4], cost=col[:, 5],
        correctness=col[:, 6], prompt=nan, completion=nan, cached=nan,
        solved=np.ones(n) if solved is None else np.array(solved, dtype=float),
    )
    return core.score_columns(tasks=tasks, submissions=subs, runs=runs,
                              scoring=ScoringConfig(policy=policy)), col


@settings(max_examples=80, deadline=None)
@given(rows=run_rows)
def test_every_score_stays_in_range_and_is_finite(rows) -> None:
    res, _ = score_rows(rows)
    s = res.scores
    for values in (s.token, s.tool_call, s.iteration, s.efficiency, s.speed, s.cost,
                   s.overall_unadjusted, s.overall):
        assert np.all(np.isfinite(values))
        assert np.all((values >= 0) & (values <= 100))
    assert np.all((res.ranks.percentile >= 0) & (res.ranks.percentile <= 100))
    assert np.allclose(s.weights.sum(axis=1), 1.0) if len(rows) else True


@settings(max_examples=80, deadline=None)
@given(rows=run_rows)
def test_equal_published_scores_share_a_rank_and_a_percentile(rows) -> None:
    res, col = score_rows(rows)
    # Within a task entries are ranked on the unadjusted overall, as published.
    published = np.round(res.scores.overall_unadjusted, 2)
    task = col[:, 0]
    for i in range(len(rows)):
        same_task = task == task[i]
        better = np.sum(same_task & (published > published[i]))
        assert res.ranks.rank[i] == better + 1
        for j in range(len(rows)):
            if same_task[j] and published[j] == published[i]:
                assert res.ranks.rank[j] == res.ranks.rank[i]
                assert res.ranks.percentile[j] == res.ranks.percentile[i]


@given(values=st.lists(st.integers(0, 5), min_size=1, max_size=30))
def test_ranks_order_by_value(values) -> None:
    x = np.array(values, dtype=float)
    ranks = competition_ranks(x, np.zeros(len(x), dtype=np.int64), n_groups=1)
    percent = midrank_percentile(ranks)
    for i in range(len(x)):
        for j in range(len(x)):
            if x[i] > x[j]:
                assert ranks.rank[i] < ranks.rank[j] and percent[i] > percent[j]


@settings(max_examples=80, deadline=None)
@given(rows=run_rows.filter(lambda r: len(r) >= 1), pick=st.integers(0, 10**6),
       factor=st.floats(min_value=0.01, max_value=0.99))
def test_lowering_a_metric_never_lowers_its_score_even_as_baselines_move(
    rows, pick, factor
) -> None:
    """Whole pipeline: the submission's own change moves the dynamic baseline too."""
    i = pick % len(rows)
    before, _ = score_rows(rows)
    for column, attribute in ((1, "token"), (2, "tool_call"), (4, "speed"), (5, "cost")):
        changed = [list(r) for r in rows]
        if column == 2:
            changed[i][column] = max(1, int(changed[i][column] * factor))
        elif changed[i][column] > 0:  # 0 time / cost means "not recorded": leave it
            changed[i][column] = changed[i][column] * factor
        after, _ = score_rows([tuple(r) for r in changed])
        old = getattr(before.scores, attribute)[i]
        new = getattr(after.scores, attribute)[i]
        assert new >= old - 1e-9, (attribute, old, new)


shares = st.sampled_from([0.0, 1 / 3, 0.5, 2 / 3, 1.0])


@settings(max_examples=120, deadline=None)
@given(data=st.data(), rows=run_rows.filter(lambda r: len(r) >= 2))
def test_under_the_solved_policy_failures_never_rank_above_solutions(data, rows) -> None:
    solved = data.draw(st.lists(shares, min_size=len(rows), max_size=len(rows)))
    res, col = score_rows(rows, solved=solved)
    task = col[:, 0]
    s = res.scores
    for i in range(len(rows)):
        # Composite x share: nothing solved scores 0, everything solved the composite.
        assert s.overall_unadjusted[i] == pytest.approx(s.composite[i] * solved[i])
        if solved[i] == 0.0:
            assert s.overall_unadjusted[i] == 0.0
        for j in range(len(rows)):
            if task[i] == task[j] and solved[i] == 0.0 and solved[j] == 1.0:
                assert res.ranks.rank[i] >= res.ranks.rank[j]


@settings(max_examples=120, deadline=None)
@given(data=st.data(), rows=run_rows.filter(lambda r: len(r) >= 2))
def test_entries_share_a_rank_only_with_equal_scores(data, rows) -> None:
    solved = data.draw(st.lists(shares, min_size=len(rows), max_size=len(rows)))
    res, col = score_rows(rows, solved=solved, multiplier=2.0)  # the cap at 100 bites often
    plain = np.round(res.scores.overall_unadjusted, 2)
    task = col[:, 0]
    for i in range(len(rows)):
        for j in range(len(rows)):
            if task[i] == task[j] and res.ranks.rank[i] == res.ranks.rank[j]:
                assert plain[i] == plain[j]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), rows=run_rows.filter(lambda r: len(r) >= 1))
def test_the_seed002_policy_ignores_the_share_solved(data, rows) -> None:
    solved = data.draw(st.lists(shares, min_size=len(rows), max_size=len(rows)))
    seed, _ = score_rows(rows, solved=solved, policy="seed002")
    everything, _ = score_rows(rows, solved=[1.0] * len(rows), policy="seed002")
    assert np.array_equal(seed.scores.overall_unadjusted, seed.scores.composite)
    assert np.array_equal(seed.scores.overall, everything.scores.overall)


#: What the published files hold: text keys, and text, numbers, true/false/null as values.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(data=json_values, small=st.floats(min_value=-1e-4, max_value=1e-4))
def test_the_published_json_is_the_json_modules_spelling(data, small) -> None:
    """canonical() encodes with orjson, whose floats below 0.0001 read otherwise: every
    value, tiny floats and number-like text included, comes out as json.dumps spells it."""
    import json

    from arena_bot.scoring.export import canonical

    for document in (data, small, [small, f"x {small}"], {"a": data, f"{small},": small}):
        assert canonical(document) == json.dumps(document, indent=2, sort_keys=True,
                                                 ensure_ascii=False)
