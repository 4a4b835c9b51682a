"""The vectorised scoring core: baselines, scores, ranks, percentiles, intervals, outliers.

Input is columnar (one array per metric, with a task index per submission and a submission
index per run), so a full rescoring of every submission is a handful of sorts: O(n log n)
overall, no Python loop over submissions. :mod:`arena_bot.scoring.leaderboard` turns typed
inputs into these columns and the result back into the Leaderboard model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from arena_bot.core.config import DEFAULT_CONFIG, OutlierConfig, ScoringConfig
from arena_bot.scoring import components
from arena_bot.scoring.grouped import (
    BoolArray,
    FloatArray,
    IntArray,
    TieRanks,
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
    #: Scored and not held for review: ranked (``None``: every scored submission). Held
    #: entries are still scored, count in baselines (as seed 002's) and are judged for
    #: outliers.
    ranked: BoolArray | None = None

    @property
    def count(self) -> int:
        return len(self.task)


@dataclass(frozen=True, kw_only=True)
class Metrics:
    """The metrics scored, one value per row (a submission's run means, or its runs)."""

    tokens: FloatArray
    tool_calls: FloatArray
    iterations: FloatArray
    #: NaN or 0: not recorded.
    execution_time: FloatArray
    cost: FloatArray
    #: NaN: no criterion scored.
    correctness: FloatArray
    #: Share of the work solved, 0..1: the features whose tests pass (for a task judged
    #: without tests, correctness / 100).
    solved: FloatArray


@dataclass(frozen=True, kw_only=True)
class RunColumns(Metrics):
    """Each run's metrics, and what only runs have."""

    submission: IntArray
    prompt: FloatArray  # NaN = not reported
    completion: FloatArray
    cached: FloatArray


@dataclass(frozen=True, kw_only=True)
class MetricBaselineArrays:
    min: FloatArray
    median: FloatArray
    max: FloatArray
    q25: FloatArray  # NaN unless dynamic
    q75: FloatArray
    count: IntArray
    dynamic: BoolArray


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
    overall_unadjusted: FloatArray
    overall: FloatArray
    weights: FloatArray


@dataclass(frozen=True, kw_only=True)
class CoreResult:
    """Everything the core computed; arrays are indexed like the inputs (NaN / -1 where an
    entry is not scored or not ranked)."""

    baselines: BaselineArrays
    task_of: IntArray  # task index of each submission
    #: The submissions' metrics (run means; time and cost NaN when no run recorded them).
    metrics: Metrics
    scores: ComponentArrays
    run_overall: FloatArray
    ranks: Ranks
    intervals: Intervals
    seed: SeedOutliers
    robust_z: dict[str, FloatArray]  # metric → z (NaN = not computable)
    run_tokens_inconsistent: BoolArray
    #: Each run's plausible cost band from the price table (NaN = unknown).
    cost_band: CostBand
    # seed 002 validation rules
    validation_high_pair: BoolArray
    validation_low_tokens: BoolArray
    validation_out_of_range: BoolArray


def _masked_group_mean(
    values: FloatArray, mask: BoolArray, groups: IntArray, *, n_groups: int
) -> FloatArray:
    return group_mean(values[mask], groups[mask], n_groups=n_groups)


def _metric_baseline(
    values: FloatArray, groups: IntArray, enough: BoolArray,
    default: tuple[FloatArray, FloatArray, FloatArray],
) -> MetricBaselineArrays:
    """Dynamic min/median/max/quartiles where ``enough`` and any value exists, else default."""
    ordered = sort_groups(values, groups, n_groups=len(enough))
    dynamic = enough & (ordered.counts > 0)
    return MetricBaselineArrays(
        min=np.where(dynamic, group_min(ordered), default[0]),
        median=np.where(dynamic, group_median(ordered), default[1]),
        max=np.where(dynamic, group_max(ordered), default[2]),
        q25=np.where(dynamic, group_quantile_exclusive(ordered, fraction=0.25), np.nan),
        q75=np.where(dynamic, group_quantile_exclusive(ordered, fraction=0.75), np.nan),
        count=ordered.counts,
        dynamic=dynamic,
    )


def _components(
    baselines: BaselineArrays, tasks: TaskColumns, task_of: IntArray, metrics: Metrics,
    scoring: ScoringConfig,
) -> ComponentArrays:
    """Seed 002's component, overall and difficulty-adjusted scores for given metrics.

    Under the ``solved`` policy the composite is scaled by the share of the work solved.
    """
    b, m = baselines, metrics
    token = components.token_efficiency(
        m.tokens, low=b.tokens.min[task_of], high=b.tokens.max[task_of]
    )
    tool_call = components.tool_call_efficiency(
        m.tool_calls, low=b.tool_calls.min[task_of], high=b.tool_calls.max[task_of]
    )
    iteration = components.iteration_efficiency(
        m.iterations, median=b.iterations.median[task_of]
    )
    efficiency = components.efficiency(
        token, tool_call, iteration, parts=scoring.efficiency_parts.as_dict()
    )
    speed = components.speed(
        np.nan_to_num(m.execution_time, nan=0.0),
        low=b.execution_time.min[task_of], high=b.execution_time.max[task_of],
    )
    cost_score = components.cost(
        np.nan_to_num(m.cost, nan=0.0), low=b.cost.min[task_of], high=b.cost.max[task_of]
    )
    composite, applied = components.overall(
        efficiency_score=efficiency, speed_score=speed, cost_score=cost_score,
        correctness_score=m.correctness, weights=tasks.weights[task_of],
    )
    total = composite * m.solved if scoring.policy == "solved" else composite
    return ComponentArrays(
        composite=composite, token=token, tool_call=tool_call,
        iteration=iteration, efficiency=efficiency, speed=speed, cost=cost_score,
        correctness=m.correctness, overall_unadjusted=total,
        overall=components.difficulty_adjusted(total, multiplier=tasks.multiplier[task_of]),
        weights=applied,
    )


def t_interval(
    mean: FloatArray, std: FloatArray, count: IntArray, *, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """mean ± t(confidence, n − 1) · std / √n, clipped to 0..100; NaN for n < 2.

    Seed 002 uses t = 2.776 (the value for 4 degrees of freedom) for every n < 30 and 1.96
    above; here t comes from the t distribution for the actual degrees of freedom.
    """
    ok = count >= 2
    df = np.where(ok, count - 1, 1)
    # The t quantile (what scipy.stats.t.ppf calls), imported when an interval is computed:
    # scipy.special loads in a third of the time scipy.stats takes.
    from scipy.special import stdtrit

    t_value = stdtrit(df, 0.5 + confidence / 2.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = t_value * std / np.sqrt(np.maximum(count, 1))
    low = np.where(ok, np.clip(mean - margin, 0.0, 100.0), np.nan)
    high = np.where(ok, np.clip(mean + margin, 0.0, 100.0), np.nan)
    return low, high


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
    scoring: ScoringConfig = DEFAULT_CONFIG.scoring,
    outliers: OutlierConfig = DEFAULT_CONFIG.outliers,
) -> CoreResult:
    """Rescore everything: the whole pipeline of seed 002 plus the statistics of seed 004."""
    scope = _Scope.of(submissions, tasks=tasks)
    metrics = _submission_metrics(runs, n_subs=scope.n_subs)
    baselines = _baselines(tasks, metrics, scope, scoring)
    scores = _components(baselines, tasks, scope.task_of, metrics, scoring)
    run_scores = _components(baselines, tasks, scope.task_of[runs.submission], runs, scoring)
    ranks = _ranks(scores, scope)
    return CoreResult(
        baselines=baselines,
        task_of=scope.task_of,
        metrics=metrics,
        scores=scores,
        run_overall=run_scores.overall,
        ranks=ranks,
        intervals=_intervals(run_scores, ranks, scope, runs, confidence=scoring.confidence),
        seed=_seed_outliers(metrics, scope, outliers),
        robust_z=_robust_z_scores(metrics, scope),
        run_tokens_inconsistent=_inconsistent_tokens(runs),
        cost_band=_cost_band(runs, submissions, tolerance=outliers.cost_tolerance),
        # On the scores as published (2 decimals), like the seed's evaluation dict.
        validation_high_pair=scope.scored
        & (np.round(scores.efficiency, 2) > outliers.suspicious_high)
        & (np.round(scores.speed, 2) > outliers.suspicious_high),
        validation_low_tokens=scope.scored & (metrics.tokens < outliers.min_plausible_tokens),
        validation_out_of_range=scope.scored & ~_in_range(scores),
    )


@dataclass(frozen=True, kw_only=True)
class _Scope:
    """Who is ranked: the scored submissions (``index``) and their tasks (``tasks``)."""

    n_subs: int
    n_tasks: int
    task_of: IntArray
    scored: BoolArray
    index: IntArray
    tasks: IntArray
    #: The ranked submissions (scored, not held for review) and their tasks.
    ranked: IntArray
    ranked_tasks: IntArray

    @classmethod
    def of(cls, submissions: SubmissionColumns, *, tasks: TaskColumns) -> _Scope:
        index = np.flatnonzero(submissions.scored)
        mask = submissions.scored if submissions.ranked is None else (
            submissions.scored & submissions.ranked
        )
        ranked = np.flatnonzero(mask)
        return cls(
            n_subs=submissions.count, n_tasks=tasks.count, task_of=submissions.task,
            scored=submissions.scored, index=index, tasks=submissions.task[index],
            ranked=ranked, ranked_tasks=submissions.task[ranked],
        )


def _submission_metrics(runs: RunColumns, *, n_subs: int) -> Metrics:
    """A submission's metrics: the mean of its runs (time and cost over recorded runs only)."""
    sub = runs.submission
    return Metrics(
        tokens=group_mean(runs.tokens, sub, n_groups=n_subs),
        tool_calls=group_mean(runs.tool_calls, sub, n_groups=n_subs),
        iterations=group_mean(runs.iterations, sub, n_groups=n_subs),
        execution_time=_masked_group_mean(
            runs.execution_time, runs.execution_time > 0, sub, n_groups=n_subs
        ),
        cost=_masked_group_mean(runs.cost, runs.cost > 0, sub, n_groups=n_subs),
        correctness=_masked_group_mean(
            runs.correctness, ~np.isnan(runs.correctness), sub, n_groups=n_subs
        ),
        solved=group_mean(runs.solved, sub, n_groups=n_subs),
    )


def _baselines(
    tasks: TaskColumns, metrics: Metrics, scope: _Scope, scoring: ScoringConfig
) -> BaselineArrays:
    """Seed 002 ``calculate_task_baseline`` for every task at once, over the scored
    submissions' (mean) metrics; under the solved policy only those that solved all their
    work count (what it takes to solve the task: cheap failures do not set the bar).

    Time and cost only count recorded (positive) values; a task whose submissions recorded
    none falls back to its default for that metric (the seed falls back to fixed 300/60/1800
    s and $0.05/0.01/0.20, which are the task format's defaults).
    """
    members = scope.index
    if scoring.policy == "solved":
        members = members[metrics.solved[members] >= 1.0]
    n = tasks.count
    task_of = scope.task_of[members]
    execution_time = np.nan_to_num(metrics.execution_time[members], nan=0.0)
    cost = np.nan_to_num(metrics.cost[members], nan=0.0)
    submission_count = np.bincount(task_of, minlength=n).astype(np.int64)
    enough = submission_count >= scoring.min_submissions
    timed = execution_time > 0
    costed = cost > 0
    defaults = tasks.defaults
    iteration_default = (
        np.ones(n), defaults.median_iterations, np.maximum(defaults.median_iterations, 1.0)
    )
    return BaselineArrays(
        submission_count=submission_count,
        dynamic=enough,
        tokens=_metric_baseline(metrics.tokens[members], task_of, enough, defaults.tokens),
        tool_calls=_metric_baseline(
            metrics.tool_calls[members], task_of, enough, defaults.tool_calls
        ),
        execution_time=_metric_baseline(
            execution_time[timed], task_of[timed], enough, defaults.execution_time
        ),
        cost=_metric_baseline(cost[costed], task_of[costed], enough, defaults.cost),
        iterations=_metric_baseline(
            metrics.iterations[members], task_of, enough, iteration_default
        ),
    )


@dataclass(frozen=True, kw_only=True)
class Ranks:
    rank: IntArray
    shared: BoolArray
    percentile: FloatArray
    category: IntArray
    #: The scored entries' overall (unadjusted), rounded as displayed, and their ranks.
    rounded: FloatArray
    overall: TieRanks


def _ranks(scores: ComponentArrays, scope: _Scope) -> Ranks:
    """Ranks and percentiles over the scored entries of each task, on the unadjusted overall
    rounded as displayed (2 decimals): within a task every entry has the same difficulty
    multiplier, and the adjusted score's clip at 100 would merge distinct scores."""
    index, n_subs = scope.ranked, scope.n_subs
    rounded = np.round(scores.overall_unadjusted[index], 2)
    # Ranked in hundredths (integers): the same order, and a single integer sort.
    overall = competition_ranks(np.round(rounded * 100), scope.ranked_tasks,
                                n_groups=scope.n_tasks)
    rank = np.full(n_subs, -1, dtype=np.int64)
    rank[index] = overall.rank
    shared = np.zeros(n_subs, dtype=bool)
    shared[index] = overall.equal > 1
    percentile = np.full(n_subs, np.nan)
    percentile[index] = midrank_percentile(overall)
    category = np.full((n_subs, 4), -1, dtype=np.int64)
    for column, values in enumerate(
        (scores.efficiency, scores.speed, scores.cost, scores.correctness)
    ):
        hundredths = np.round(values[index] * 100)  # as published
        ok = ~np.isnan(hundredths)
        ranks = competition_ranks(hundredths[ok], scope.ranked_tasks[ok],
                                  n_groups=scope.n_tasks)
        category[index[ok], column] = ranks.rank
    return Ranks(rank=rank, shared=shared, percentile=percentile, category=category,
                  rounded=rounded, overall=overall)


@dataclass(frozen=True, kw_only=True)
class Intervals:
    mean: FloatArray
    std: FloatArray
    min: FloatArray
    max: FloatArray
    count: IntArray
    low: FloatArray
    high: FloatArray
    tied: BoolArray
    significance_rank: IntArray


def _intervals(
    run_scores: ComponentArrays, ranks: Ranks, scope: _Scope, runs: RunColumns, *,
    confidence: float,
) -> Intervals:
    """Multi-run intervals over the runs' overall scores, and the ties they imply (judged on
    the scale the ranks use: unadjusted)."""
    sub, n_subs, index = runs.submission, scope.n_subs, scope.ranked
    mean = group_mean(run_scores.overall, sub, n_groups=n_subs)
    std = group_sample_std(run_scores.overall, sub, n_groups=n_subs, means=mean)
    count = np.bincount(sub, minlength=n_subs).astype(np.int64)
    low_value, high_value = np.full(n_subs, np.inf), np.full(n_subs, -np.inf)
    np.minimum.at(low_value, sub, run_scores.overall)
    np.maximum.at(high_value, sub, run_scores.overall)
    low_value[count == 0] = high_value[count == 0] = np.nan
    low, high = t_interval(mean, std, count, confidence=confidence)
    plain_mean = group_mean(run_scores.overall_unadjusted, sub, n_groups=n_subs)
    plain_low, plain_high = t_interval(
        plain_mean,
        group_sample_std(run_scores.overall_unadjusted, sub, n_groups=n_subs, means=plain_mean),
        count,
        confidence=confidence,
    )
    tied = np.zeros(n_subs, dtype=bool)
    significance_rank = np.full(n_subs, -1, dtype=np.int64)
    tied[index], significance_rank[index] = significance(
        score=ranks.rounded, rank=ranks.overall.rank, low=plain_low[index],
        high=plain_high[index], groups=scope.ranked_tasks, n_groups=scope.n_tasks,
    )
    return Intervals(mean=mean, std=std, min=low_value, max=high_value, count=count,
                      low=low, high=high, tied=tied, significance_rank=significance_rank)


@dataclass(frozen=True, kw_only=True)
class SeedOutliers:
    task_median_tokens: FloatArray
    low_tokens: BoolArray
    fast: BoolArray
    single_call: BoolArray


def _seed_outliers(metrics: Metrics, scope: _Scope, options: OutlierConfig) -> SeedOutliers:
    """Seed 002's outlier heuristics, against the median of the task's scored submissions
    (all of them, whatever the policy: outliers are judged among peers)."""
    scored_tokens = sort_groups(metrics.tokens[scope.index], scope.tasks, n_groups=scope.n_tasks)
    median = group_median(scored_tokens)
    return SeedOutliers(
        task_median_tokens=median,
        low_tokens=scope.scored
        & (metrics.tokens < options.token_fraction * median[scope.task_of]),
        # The seed flags execution_time < 5 including 0, but 0 means "not recorded" here.
        fast=scope.scored & (metrics.execution_time > 0)
        & (metrics.execution_time < options.fast_seconds),
        single_call=scope.scored & (metrics.tool_calls == 1),
    )


def _robust_z_scores(metrics: Metrics, scope: _Scope) -> dict[str, FloatArray]:
    """Modified z-scores of log tokens, cost and time within each task (median / MAD).

    Recorded (positive) values only: time and cost of 0 mean "not recorded", and the
    z-score works on logs. NaN where undefined: the value is missing, the task has fewer
    than ROBUST_MIN_VALUES values, or its MAD is 0 (more than half the values identical:
    nothing is "unusual" then).
    """
    robust: dict[str, FloatArray] = {}
    for name, metric_values in (
        ("tokens", metrics.tokens),
        ("cost", metrics.cost),
        ("execution_time", metrics.execution_time),
    ):
        values = np.nan_to_num(metric_values[scope.index], nan=0.0)
        members = np.flatnonzero(values > 0)
        observed = sort_groups(values[members], scope.tasks[members], n_groups=scope.n_tasks)
        # log is monotone: the logs of the sorted values are sorted too.
        logs = np.log(observed.values)
        g = np.repeat(np.arange(scope.n_tasks), observed.counts)
        median = group_median(dataclasses.replace(observed, values=logs))
        mad = group_median(sort_groups(np.abs(logs - median[g]), g, n_groups=scope.n_tasks))
        usable = (observed.counts >= ROBUST_MIN_VALUES) & (mad > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = ROBUST_Z_SCALE * (logs - median[g]) / mad[g]
        robust[name] = np.full(scope.n_subs, np.nan)
        robust[name][scope.index[members[observed.order]]] = np.where(usable[g], z, np.nan)
    return robust


def _inconsistent_tokens(runs: RunColumns) -> BoolArray:
    """Token totals that do not add up (the submission model checks most of this; results
    built by other means are checked again here)."""
    prompt, completion, cached = runs.prompt, runs.completion, runs.cached
    with np.errstate(invalid="ignore"):
        inconsistent: BoolArray = (
            (~np.isnan(prompt) & ~np.isnan(completion) & (prompt + completion != runs.tokens))
            | (prompt > runs.tokens)
            | (completion > runs.tokens)
            | (cached > np.where(np.isnan(prompt), runs.tokens, prompt))
        )
    return inconsistent


@dataclass(frozen=True, kw_only=True)
class CostBand:
    low: FloatArray
    high: FloatArray
    flag: BoolArray


def _cost_band(
    runs: RunColumns, submissions: SubmissionColumns, *, tolerance: float
) -> CostBand:
    """Each run's cost against the price table: the exact split when prompt and completion
    are known, otherwise the band between the cheapest and dearest rate for the total."""
    sub = runs.submission
    prompt, completion = runs.prompt, runs.completion
    rate_in = submissions.price_input[sub]
    rate_cached = submissions.price_cached[sub]
    rate_out = submissions.price_output[sub]
    known_split = ~np.isnan(prompt) & ~np.isnan(completion)
    cached = np.nan_to_num(runs.cached, nan=0.0)
    exact = (
        (np.nan_to_num(prompt) - cached) * rate_in
        + cached * rate_cached
        + np.nan_to_num(completion) * rate_out
    ) / 1e6
    cheapest = np.fmin(np.fmin(rate_in, rate_cached), rate_out)
    dearest = np.fmax(np.fmax(rate_in, rate_cached), rate_out)
    expected_low = np.where(known_split, exact, runs.tokens * cheapest / 1e6)
    expected_high = np.where(known_split, exact, runs.tokens * dearest / 1e6)
    low, high = expected_low / tolerance, expected_high * tolerance
    with np.errstate(invalid="ignore"):
        flag = (
            (runs.cost > 0)
            & ~np.isnan(expected_low)
            & (expected_high > 0)
            & ((runs.cost < low) | (runs.cost > high))
        )
    return CostBand(low=low, high=high, flag=flag)


def _in_range(scores: ComponentArrays) -> BoolArray:
    """Seed 002 ``validate_evaluation_metrics``: every score within 0..100 (or absent)."""
    in_range = np.ones(len(scores.overall), dtype=bool)
    for values in (
        scores.overall, scores.efficiency, scores.speed, scores.cost, scores.correctness
    ):
        in_range &= np.isnan(values) | ((values >= 0) & (values <= 100))
    return in_range
