"""The vectorised scoring core: baselines, scores, ranks, percentiles, intervals, outliers.

Input is columnar (one array per metric, with a task index per submission and a submission
index per run), so a full rescoring of every submission is a handful of sorts: O(n log n)
overall, no Python loop over submissions. :mod:`arena_bot.scoring.leaderboard` turns typed
inputs into these columns and the result back into the Leaderboard model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

from arena_bot.config import DEFAULT_CONFIG
from arena_bot.scoring import components
from arena_bot.scoring.grouped import (
    BoolArray,
    FloatArray,
    IntArray,
    SortedGroups,
    competition_ranks,
    group_max,
    group_mean,
    group_median,
    group_min,
    group_quantile_exclusive,
    group_sample_std,
    midrank_percentile,
    sort_groups,
)

#: Iglewicz & Hoaglin's modified z-score: 0.6745 · (x − median) / MAD (a constant of the
#: method, not a setting); the threshold is ``outliers.robust_z_threshold`` in arena.yaml.
ROBUST_Z_SCALE = 0.6745
#: Robust z needs a few values to mean anything.
ROBUST_MIN_VALUES = 5

_SCORING = DEFAULT_CONFIG.scoring
_OUTLIERS = DEFAULT_CONFIG.outliers


@dataclass(frozen=True, kw_only=True)
class DefaultBaselines:
    """Each task's default baseline (task.yaml), one value per task."""

    tokens: tuple[FloatArray, FloatArray, FloatArray]  # min, median, max
    tool_calls: tuple[FloatArray, FloatArray, FloatArray]
    execution_time: tuple[FloatArray, FloatArray, FloatArray]
    cost: tuple[FloatArray, FloatArray, FloatArray]
    median_iterations: FloatArray


@dataclass(frozen=True, kw_only=True)
class TaskColumns:
    count: int
    defaults: DefaultBaselines
    weights: FloatArray  # (tasks, 4): efficiency, speed, cost, correctness
    multiplier: FloatArray


@dataclass(frozen=True, kw_only=True)
class SubmissionColumns:
    task: IntArray
    #: Evaluated without error: counted in baselines and rankings.
    scored: BoolArray
    #: $ per million tokens for the submission's model; NaN when not in the price table.
    price_input: FloatArray
    price_cached: FloatArray
    price_output: FloatArray

    @property
    def count(self) -> int:
        return len(self.task)


@dataclass(frozen=True, kw_only=True)
class RunColumns:
    submission: IntArray
    tokens: FloatArray
    tool_calls: FloatArray
    iterations: FloatArray
    execution_time: FloatArray  # 0 = not recorded
    cost: FloatArray  # 0 = not recorded
    correctness: FloatArray  # 0..100, NaN = no criterion could be scored
    prompt: FloatArray  # NaN = not reported
    completion: FloatArray
    cached: FloatArray
    resolved: BoolArray
    #: Share of the work the run solved, 0..1: its features whose tests pass (or, for a
    #: task judged without tests, correctness / 100).
    solved: FloatArray


#: ``solved``: overall = seed 002's composite × the share of the work solved, baselines from
#: the runs that solved the task. ``seed002``: the specification's composite as it is.
ScoringPolicy = Literal["solved", "seed002"]


@dataclass(frozen=True, kw_only=True)
class CoreOptions:
    """The numbers the core uses; defaults are arena.yaml's (:mod:`arena_bot.config`)."""

    policy: ScoringPolicy = _SCORING.policy
    min_submissions: int = _SCORING.min_submissions
    confidence: float = _SCORING.confidence
    robust_z_threshold: float = _OUTLIERS.robust_z_threshold
    #: A reported cost more than this factor away from the price table's is flagged.
    cost_tolerance: float = _OUTLIERS.cost_tolerance
    efficiency_parts: tuple[float, float, float] = (
        _SCORING.efficiency_parts.token,
        _SCORING.efficiency_parts.tool_call,
        _SCORING.efficiency_parts.iteration,
    )
    token_fraction: float = _OUTLIERS.token_fraction
    fast_seconds: float = _OUTLIERS.fast_seconds
    suspicious_high: float = _OUTLIERS.suspicious_high
    min_plausible_tokens: int = _OUTLIERS.min_plausible_tokens


@dataclass(frozen=True, kw_only=True)
class MetricBaselineArrays:
    min: FloatArray
    median: FloatArray
    max: FloatArray
    q25: FloatArray  # NaN unless dynamic
    q75: FloatArray
    count: IntArray
    dynamic: BoolArray
    #: The recorded values sorted within each task, and where they came from (indices
    #: into the arrays given to :func:`compute_baselines`): reused by the outlier checks.
    observed: SortedGroups
    members: IntArray


@dataclass(frozen=True, kw_only=True)
class BaselineArrays:
    submission_count: IntArray
    dynamic: BoolArray
    tokens: MetricBaselineArrays
    tool_calls: MetricBaselineArrays
    execution_time: MetricBaselineArrays
    cost: MetricBaselineArrays
    iterations: MetricBaselineArrays


@dataclass(frozen=True, kw_only=True)
class ComponentArrays:
    token: FloatArray
    tool_call: FloatArray
    iteration: FloatArray
    efficiency: FloatArray
    speed: FloatArray
    cost: FloatArray
    correctness: FloatArray
    #: Seed 002's composite (Σ weight · category score) before the policy's scaling.
    composite: FloatArray
    #: The share of the work solved that scaled it (1 under the seed002 policy).
    solved: FloatArray
    overall_unadjusted: FloatArray
    overall: FloatArray
    weights: FloatArray


@dataclass(frozen=True, kw_only=True)
class CoreResult:
    """Everything the core computed; arrays are indexed like the inputs."""

    baselines: BaselineArrays
    task_of: IntArray  # task index of each submission
    # submission level (NaN / -1 where not scored)
    tokens: FloatArray
    tool_calls: FloatArray
    iterations: FloatArray
    execution_time: FloatArray  # NaN = no run recorded it
    cost: FloatArray
    #: Share of the work solved (mean over the submission's runs), 0..1.
    solved: FloatArray
    scores: ComponentArrays
    run_overall: FloatArray
    rank: IntArray
    rank_shared: BoolArray  # another entry of the task has the same published score
    category_rank: IntArray  # (subs, 4); -1 = unranked
    percentile: FloatArray
    interval_mean: FloatArray
    interval_std: FloatArray
    interval_min: FloatArray
    interval_max: FloatArray
    interval_count: IntArray
    interval_low: FloatArray
    interval_high: FloatArray
    tied: BoolArray
    significance_rank: IntArray
    # outlier evidence
    task_median_tokens: FloatArray  # per task
    flag_seed_tokens: BoolArray
    flag_seed_fast: BoolArray
    flag_seed_single_call: BoolArray
    robust_z: dict[str, FloatArray]  # metric → z (NaN = not computable)
    run_tokens_inconsistent: BoolArray
    run_cost_low: FloatArray  # plausible band from the price table (NaN = unknown)
    run_cost_high: FloatArray
    run_cost_flag: BoolArray
    # seed 002 validation rules
    validation_high_pair: BoolArray
    validation_low_tokens: BoolArray
    validation_out_of_range: BoolArray


def _masked_group_mean(
    values: FloatArray, mask: BoolArray, groups: IntArray, *, n_groups: int
) -> FloatArray:
    return group_mean(values[mask], groups[mask], n_groups=n_groups)


def _metric_baseline(
    values: FloatArray,
    groups: IntArray,
    *,
    n_groups: int,
    enough: BoolArray,
    default: tuple[FloatArray, FloatArray, FloatArray],
    members: IntArray | None = None,
) -> MetricBaselineArrays:
    """Dynamic min/median/max/quartiles where ``enough`` and any value exists, else default."""
    ordered = sort_groups(values, groups, n_groups=n_groups)
    if members is None:
        members = np.arange(len(values), dtype=np.int64)
    dynamic = enough & (ordered.counts > 0)
    return MetricBaselineArrays(
        min=np.where(dynamic, group_min(ordered), default[0]),
        median=np.where(dynamic, group_median(ordered), default[1]),
        max=np.where(dynamic, group_max(ordered), default[2]),
        q25=np.where(dynamic, group_quantile_exclusive(ordered, fraction=0.25), np.nan),
        q75=np.where(dynamic, group_quantile_exclusive(ordered, fraction=0.75), np.nan),
        count=ordered.counts,
        dynamic=dynamic,
        observed=ordered,
        members=members,
    )


def compute_baselines(
    *,
    tasks: TaskColumns,
    task_of: IntArray,
    tokens: FloatArray,
    tool_calls: FloatArray,
    iterations: FloatArray,
    execution_time: FloatArray,
    cost: FloatArray,
    min_submissions: int,
) -> BaselineArrays:
    """Seed 002 ``calculate_task_baseline`` for every task at once.

    Inputs are the scored submissions' (mean) metrics. Time and cost only count recorded
    (positive) values; a task whose submissions recorded none falls back to its default for
    that metric (the seed falls back to fixed 300/60/1800 s and $0.05/0.01/0.20, which are
    the task format's defaults).
    """
    n = tasks.count
    submission_count = np.bincount(task_of, minlength=n).astype(np.int64)
    enough = submission_count >= min_submissions
    timed = execution_time > 0
    costed = cost > 0
    defaults = tasks.defaults
    iteration_default = (
        np.ones(n), defaults.median_iterations, np.maximum(defaults.median_iterations, 1.0)
    )
    return BaselineArrays(
        submission_count=submission_count,
        dynamic=enough,
        tokens=_metric_baseline(
            tokens, task_of, n_groups=n, enough=enough, default=defaults.tokens
        ),
        tool_calls=_metric_baseline(
            tool_calls, task_of, n_groups=n, enough=enough, default=defaults.tool_calls
        ),
        execution_time=_metric_baseline(
            execution_time[timed], task_of[timed], n_groups=n, enough=enough,
            default=defaults.execution_time, members=np.flatnonzero(timed),
        ),
        cost=_metric_baseline(
            cost[costed], task_of[costed], n_groups=n, enough=enough, default=defaults.cost,
            members=np.flatnonzero(costed),
        ),
        iterations=_metric_baseline(
            iterations, task_of, n_groups=n, enough=enough, default=iteration_default
        ),
    )


def score_components(
    *,
    baselines: BaselineArrays,
    tasks: TaskColumns,
    task_of: IntArray,
    tokens: FloatArray,
    tool_calls: FloatArray,
    iterations: FloatArray,
    execution_time: FloatArray,
    cost: FloatArray,
    correctness: FloatArray,
    solved: FloatArray | None = None,
    parts: tuple[float, float, float] = CoreOptions.efficiency_parts,
) -> ComponentArrays:
    """Seed 002's component, overall and difficulty-adjusted scores for given metrics.

    ``solved`` (0..1), when given, scales the composite: the ``solved`` policy's overall.
    """
    b = baselines
    token = components.token_efficiency(
        tokens, low=b.tokens.min[task_of], high=b.tokens.max[task_of]
    )
    tool_call = components.tool_call_efficiency(
        tool_calls, low=b.tool_calls.min[task_of], high=b.tool_calls.max[task_of]
    )
    iteration = components.iteration_efficiency(iterations, median=b.iterations.median[task_of])
    efficiency = components.efficiency(
        token, tool_call, iteration,
        parts={"token": parts[0], "tool_call": parts[1], "iteration": parts[2]},
    )
    speed = components.speed(
        np.nan_to_num(execution_time, nan=0.0),
        low=b.execution_time.min[task_of],
        high=b.execution_time.max[task_of],
    )
    cost_score = components.cost(
        np.nan_to_num(cost, nan=0.0), low=b.cost.min[task_of], high=b.cost.max[task_of]
    )
    total, applied = components.overall(
        efficiency_score=efficiency,
        speed_score=speed,
        cost_score=cost_score,
        correctness_score=correctness,
        weights=tasks.weights[task_of],
    )
    share = np.ones_like(total) if solved is None else solved
    composite = total
    total = composite * share
    adjusted = components.difficulty_adjusted(total, multiplier=tasks.multiplier[task_of])
    return ComponentArrays(
        composite=composite,
        solved=share,
        token=token,
        tool_call=tool_call,
        iteration=iteration,
        efficiency=efficiency,
        speed=speed,
        cost=cost_score,
        correctness=correctness,
        overall_unadjusted=total,
        overall=adjusted,
        weights=applied,
    )


def _group_extremes(
    values: FloatArray, groups: IntArray, *, n_groups: int, counts: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Min and max per group; NaN for empty groups.

    Runs arrive grouped by submission (the builder writes them so), which allows
    ``reduceat``; otherwise one sort does it.
    """
    low = np.full(n_groups, np.nan)
    high = np.full(n_groups, np.nan)
    if len(values) == 0:
        return low, high
    if np.all(groups[1:] >= groups[:-1]):
        has = counts > 0
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[has]
        low[has] = np.minimum.reduceat(values, starts)
        high[has] = np.maximum.reduceat(values, starts)
        return low, high
    ordered = sort_groups(values, groups, n_groups=n_groups)
    return group_min(ordered), group_max(ordered)


def t_interval(
    mean: FloatArray, std: FloatArray, count: IntArray, *, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """mean ± t(confidence, n − 1) · std / √n, clipped to 0..100; NaN for n < 2.

    Seed 002 uses t = 2.776 (the value for 4 degrees of freedom) for every n < 30 and 1.96
    above; here t comes from the t distribution for the actual degrees of freedom.
    """
    ok = count >= 2
    df = np.where(ok, count - 1, 1)
    t_value = special.stdtrit(df, 0.5 + confidence / 2.0)  # = scipy.stats.t.ppf
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = t_value * std / np.sqrt(np.maximum(count, 1))
    low = np.where(ok, np.clip(mean - margin, 0.0, 100.0), np.nan)
    high = np.where(ok, np.clip(mean + margin, 0.0, 100.0), np.nan)
    return low, high


def _robust_z(observed: SortedGroups, members: IntArray, *, size: int) -> FloatArray:
    """Modified z-score of log(value) within each group (median / MAD); NaN if undefined.

    ``observed`` holds the recorded (positive) values sorted within each group — the
    baseline's sort, reused: log is monotone, so the logs are sorted too. Undefined: the
    value is missing, the group has fewer than ROBUST_MIN_VALUES values, or its MAD is 0
    (more than half the values identical: nothing is "unusual" then).
    """
    out = np.full(size, np.nan)
    if len(observed.values) == 0:
        return out
    n_groups = len(observed.counts)
    logs = np.log(observed.values)
    g = np.repeat(np.arange(n_groups), observed.counts)
    log_sorted = SortedGroups(
        values=logs, order=observed.order, starts=observed.starts, counts=observed.counts
    )
    median = group_median(log_sorted)
    deviation = np.abs(logs - median[g])
    mad = group_median(sort_groups(deviation, g, n_groups=n_groups))
    usable = (observed.counts >= ROBUST_MIN_VALUES) & (mad > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = ROBUST_Z_SCALE * (logs - median[g]) / mad[g]
    out[members[observed.order]] = np.where(usable[g], z, np.nan)
    return out


def significance(
    *,
    score: FloatArray,
    rank: IntArray,
    low: FloatArray,
    high: FloatArray,
    groups: IntArray,
    n_groups: int,
) -> tuple[BoolArray, IntArray]:
    """Statistical ties with the group leader, and rank = 1 + #entries wholly above.

    An entry without an interval (a single run) counts as the point [score, score].
    """
    n = len(score)
    if n == 0:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64)
    low = np.where(np.isnan(low), score, low)
    high = np.where(np.isnan(high), score, high)
    # Leader: the first entry ranked 1 (input order: the builder sorts inputs by key).
    counts = np.bincount(groups, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    first = np.flatnonzero(rank == 1)
    leader = np.full(n_groups, n, dtype=np.int64)
    np.minimum.at(leader, groups[first], first)
    lead = leader[groups]
    overlaps = (high >= low[lead]) & (low <= high[lead])
    is_leader = np.arange(n) == lead
    others_tied = np.bincount(groups, weights=(overlaps & ~is_leader), minlength=n_groups) > 0
    tied = np.where(is_leader, others_tied[groups], overlaps)
    # Count entries of the same group whose low is above my high (lows are within 0..100,
    # so an offset of 1000 per group keeps groups apart in one sorted array).
    offset = groups.astype(np.float64) * 1000.0
    sorted_lows = np.sort(offset + low)
    position = np.searchsorted(sorted_lows, offset + high, side="right")
    ends = (starts + counts)[groups]
    above = ends - position
    return tied, (1 + above).astype(np.int64)


def score_columns(
    *,
    tasks: TaskColumns,
    submissions: SubmissionColumns,
    runs: RunColumns,
    options: CoreOptions,
) -> CoreResult:
    """Rescore everything: the whole pipeline of seed 002 plus the statistics of seed 004."""
    n_subs = submissions.count
    n_tasks = tasks.count
    sub = runs.submission
    # Submission metrics: the mean of the runs (time and cost over recorded runs only).
    tokens = group_mean(runs.tokens, sub, n_groups=n_subs)
    tool_calls = group_mean(runs.tool_calls, sub, n_groups=n_subs)
    iterations = group_mean(runs.iterations, sub, n_groups=n_subs)
    execution_time = _masked_group_mean(
        runs.execution_time, runs.execution_time > 0, sub, n_groups=n_subs
    )
    cost = _masked_group_mean(runs.cost, runs.cost > 0, sub, n_groups=n_subs)
    has_correctness = ~np.isnan(runs.correctness)
    correctness = _masked_group_mean(runs.correctness, has_correctness, sub, n_groups=n_subs)

    solved_policy = options.policy == "solved"
    solved = group_mean(runs.solved, sub, n_groups=n_subs)

    scored = submissions.scored
    scored_idx = np.flatnonzero(scored)
    task_of = submissions.task
    st = task_of[scored_idx]
    # The baseline says what the task takes: under the solved policy, what it takes to solve
    # it (submissions that solved all their work), so cheap failures do not set the bar.
    base_idx = scored_idx[solved[scored_idx] >= 1.0] if solved_policy else scored_idx
    baselines = compute_baselines(
        tasks=tasks,
        task_of=task_of[base_idx],
        tokens=tokens[base_idx],
        tool_calls=tool_calls[base_idx],
        iterations=iterations[base_idx],
        execution_time=np.nan_to_num(execution_time[base_idx], nan=0.0),
        cost=np.nan_to_num(cost[base_idx], nan=0.0),
        min_submissions=options.min_submissions,
    )
    scores = score_components(
        baselines=baselines,
        tasks=tasks,
        task_of=task_of,
        tokens=tokens,
        tool_calls=tool_calls,
        iterations=iterations,
        execution_time=execution_time,
        cost=cost,
        correctness=correctness,
        solved=solved if solved_policy else None,
        parts=options.efficiency_parts,
    )
    run_scores = score_components(
        baselines=baselines,
        tasks=tasks,
        task_of=task_of[sub],
        tokens=runs.tokens,
        tool_calls=runs.tool_calls,
        iterations=runs.iterations,
        execution_time=runs.execution_time,
        cost=runs.cost,
        correctness=runs.correctness,
        solved=runs.solved if solved_policy else None,
        parts=options.efficiency_parts,
    )

    # Ranks and percentiles over the scored entries of each task, on the unadjusted overall
    # rounded as displayed (2 decimals): within a task every entry has the same difficulty
    # multiplier, and the adjusted score's clip at 100 would merge distinct scores.
    rounded = np.round(scores.overall_unadjusted[scored_idx], 2)
    # Ranked in hundredths (integers): the same order, and a single integer sort.
    overall_ranks = competition_ranks(np.round(rounded * 100), st, n_groups=n_tasks)
    rank = np.full(n_subs, -1, dtype=np.int64)
    rank[scored_idx] = overall_ranks.rank
    rank_shared = np.zeros(n_subs, dtype=bool)
    rank_shared[scored_idx] = overall_ranks.equal > 1
    percentile = np.full(n_subs, np.nan)
    percentile[scored_idx] = midrank_percentile(overall_ranks)
    category_rank = np.full((n_subs, 4), -1, dtype=np.int64)
    for column, values in enumerate(
        (scores.efficiency, scores.speed, scores.cost, scores.correctness)
    ):
        category_values = np.round(values[scored_idx] * 100)  # hundredths, as published
        ok = ~np.isnan(category_values)
        ranks = competition_ranks(category_values[ok], st[ok], n_groups=n_tasks)
        category_rank[scored_idx[ok], column] = ranks.rank

    # Multi-run intervals over the runs' overall scores.
    interval_mean = group_mean(run_scores.overall, sub, n_groups=n_subs)
    interval_std = group_sample_std(
        run_scores.overall, sub, n_groups=n_subs, means=interval_mean
    )
    interval_count = np.bincount(sub, minlength=n_subs).astype(np.int64)
    interval_min, interval_max = _group_extremes(
        run_scores.overall, sub, n_groups=n_subs, counts=interval_count
    )
    interval_low, interval_high = t_interval(
        interval_mean, interval_std, interval_count, confidence=options.confidence
    )
    # Ties are judged on the scale the ranks use (unadjusted).
    plain_mean = group_mean(run_scores.overall_unadjusted, sub, n_groups=n_subs)
    plain_low, plain_high = t_interval(
        plain_mean,
        group_sample_std(run_scores.overall_unadjusted, sub, n_groups=n_subs, means=plain_mean),
        interval_count,
        confidence=options.confidence,
    )
    tied = np.zeros(n_subs, dtype=bool)
    significance_rank = np.full(n_subs, -1, dtype=np.int64)
    tied_s, sig_s = significance(
        score=rounded,
        rank=overall_ranks.rank,
        low=plain_low[scored_idx],
        high=plain_high[scored_idx],
        groups=st,
        n_groups=n_tasks,
    )
    tied[scored_idx] = tied_s
    significance_rank[scored_idx] = sig_s

    # Seed 002's outlier heuristics, against the median of the task's scored submissions
    # (all of them, whatever the policy: outliers are judged among peers).
    scored_tokens = sort_groups(tokens[scored_idx], st, n_groups=n_tasks)
    task_median_tokens = group_median(scored_tokens)
    flag_seed_tokens = scored & (
        tokens < options.token_fraction * task_median_tokens[task_of]
    )
    # The seed flags execution_time < 5 including 0, but 0 means "not recorded" here.
    flag_seed_fast = scored & (execution_time > 0) & (execution_time < options.fast_seconds)
    flag_seed_single_call = scored & (tool_calls == 1)
    robust: dict[str, FloatArray] = {}
    for name, metric_values in (
        ("tokens", tokens),
        ("cost", cost),
        ("execution_time", execution_time),
    ):
        # Recorded (positive) values only: time and cost of 0 mean "not recorded", and the
        # z-score works on logarithms.
        values = np.nan_to_num(metric_values[scored_idx], nan=0.0)
        members = np.flatnonzero(values > 0)
        observed = sort_groups(values[members], st[members], n_groups=n_tasks)
        z = np.full(n_subs, np.nan)
        z[scored_idx] = _robust_z(observed, members, size=len(scored_idx))
        robust[name] = z

    # Token totals that do not add up (the submission model checks most of this; results
    # built by other means are checked again here).
    prompt, completion, cached = runs.prompt, runs.completion, runs.cached
    with np.errstate(invalid="ignore"):
        inconsistent = (
            (~np.isnan(prompt) & ~np.isnan(completion) & (prompt + completion != runs.tokens))
            | (prompt > runs.tokens)
            | (completion > runs.tokens)
            | (cached > np.where(np.isnan(prompt), runs.tokens, prompt))
        )
    # Cost against the price table: the exact split when prompt and completion are known,
    # otherwise the band between the cheapest and dearest rate for the total.
    rate_in = submissions.price_input[sub]
    rate_cached = submissions.price_cached[sub]
    rate_out = submissions.price_output[sub]
    known_split = ~np.isnan(prompt) & ~np.isnan(completion)
    cached0 = np.nan_to_num(cached, nan=0.0)
    exact = (
        (np.nan_to_num(prompt) - cached0) * rate_in
        + cached0 * rate_cached
        + np.nan_to_num(completion) * rate_out
    ) / 1e6
    cheapest = np.fmin(np.fmin(rate_in, rate_cached), rate_out)
    dearest = np.fmax(np.fmax(rate_in, rate_cached), rate_out)
    expected_low = np.where(known_split, exact, runs.tokens * cheapest / 1e6)
    expected_high = np.where(known_split, exact, runs.tokens * dearest / 1e6)
    tolerance = options.cost_tolerance
    run_cost_low = expected_low / tolerance
    run_cost_high = expected_high * tolerance
    with np.errstate(invalid="ignore"):
        run_cost_flag = (
            (runs.cost > 0)
            & ~np.isnan(expected_low)
            & (expected_high > 0)
            & ((runs.cost < run_cost_low) | (runs.cost > run_cost_high))
        )

    # Seed 002 ``validate_evaluation_metrics``.
    in_range = np.ones(n_subs, dtype=bool)
    for values in (
        scores.overall, scores.efficiency, scores.speed, scores.cost, scores.correctness
    ):
        in_range &= np.isnan(values) | ((values >= 0) & (values <= 100))
    return CoreResult(
        baselines=baselines,
        task_of=task_of,
        tokens=tokens,
        tool_calls=tool_calls,
        iterations=iterations,
        execution_time=execution_time,
        cost=cost,
        solved=solved,
        scores=scores,
        run_overall=run_scores.overall,
        rank=rank,
        rank_shared=rank_shared,
        category_rank=category_rank,
        percentile=percentile,
        interval_mean=interval_mean,
        interval_std=interval_std,
        interval_min=interval_min,
        interval_max=interval_max,
        interval_count=interval_count,
        interval_low=interval_low,
        interval_high=interval_high,
        tied=tied,
        significance_rank=significance_rank,
        task_median_tokens=task_median_tokens,
        flag_seed_tokens=flag_seed_tokens,
        flag_seed_fast=flag_seed_fast,
        flag_seed_single_call=flag_seed_single_call,
        robust_z=robust,
        run_tokens_inconsistent=inconsistent,
        run_cost_low=run_cost_low,
        run_cost_high=run_cost_high,
        run_cost_flag=run_cost_flag,
        # On the scores as published (2 decimals), like the seed's evaluation dict.
        validation_high_pair=scored
        & (np.round(scores.efficiency, 2) > options.suspicious_high)
        & (np.round(scores.speed, 2) > options.suspicious_high),
        validation_low_tokens=scored & (tokens < options.min_plausible_tokens),
        validation_out_of_range=scored & ~in_range,
    )
