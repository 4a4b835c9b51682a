"""``build_leaderboard``: typed inputs → columns → :mod:`.core` → the Leaderboard model.

Pure: no files, no network except through the judge passed in options (whose answers are
cached), no clock. Everything is sorted so identical inputs give an identical Leaderboard.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from arena_bot.core.errors import InputError
from arena_bot.intake.reviews import judge_review
from arena_bot.models.evaluation import RunResult
from arena_bot.models.leaderboard import (
    CategoryRanks,
    CategoryWeights,
    ClearedReview,
    CriterionScore,
    EfficiencyParts,
    Entry,
    EntryStatus,
    Interval,
    Leaderboard,
    LeaderboardOptions,
    MeanMetrics,
    MetricBaseline,
    MetricsLevel,
    OutlierFlag,
    PassAtK,
    ReviewFlag,
    RunMetrics,
    Scores,
    Summary,
    TaskBaseline,
    TaskBoard,
    ToolModelAggregate,
)
from arena_bot.models.submission import Run, Submission
from arena_bot.models.task import Task
from arena_bot.scoring import core
from arena_bot.scoring.correctness import (
    CriterionOutcome,
    RunContext,
    score_run,
    weighted_correctness,
)
from arena_bot.scoring.grouped import competition_ranks
from arena_bot.scoring.inputs import (
    ScoringInputs,
    ScoringOptions,
    SubmissionInput,
    options_digest,
)
from arena_bot.scoring.outliers import PatchRef, duplicate_patch_reasons, robust_reason
from arena_bot.scoring.stats import pass_at_k, summarize


def score(value: float) -> float:
    """A score as published: 2 decimals (seed 002), never ``-0.0``."""
    return round(float(value), 2) + 0.0


def number(value: float) -> float:
    """Any other float as published: 4 decimals, never ``-0.0``."""
    return round(float(value), 4) + 0.0


def _maybe(value: float) -> float | None:
    return None if math.isnan(value) else number(value)


@dataclass(frozen=True)
class _PreparedRun:
    run: Run
    result: RunResult | None
    outcomes: list[CriterionOutcome]
    correctness: float | None
    resolved: bool
    #: Share of the work this run solved (see :func:`_solved`).
    solved: float


@dataclass(frozen=True)
class _Prepared:
    item: SubmissionInput
    task: Task
    status: EntryStatus
    reason: str | None
    runs: list[_PreparedRun]


def _prepare(item: SubmissionInput, task: Task, options: ScoringOptions) -> _Prepared:
    result = item.result
    if result is None or result.error or not result.runs:
        runs = [_PreparedRun(run, None, [], None, False, 0.0) for run in item.spec.runs]
        if result is None:
            return _Prepared(item, task, "pending", "not evaluated yet", runs)
        reason = f"evaluation failed: {result.error}" if result.error else "evaluation has no runs"
        return _Prepared(item, task, "error", reason, runs)
    by_id = {run_result.run_id: run_result for run_result in result.runs}
    prepared = []
    for run in item.spec.runs:
        run_result = by_id.get(run.id)
        outcomes = score_run(
            RunContext(
                task=task, submission=item.spec, run=run, result=run_result,
                evaluation=result, judge=options.judge,
            )
        )
        correctness = weighted_correctness(outcomes)
        resolved, solved = _solved(task, item.spec, run_result, correctness)
        prepared.append(
            _PreparedRun(run, run_result, outcomes, correctness, resolved, solved)
        )
    return _Prepared(item, task, "scored", None, prepared)


def _solved(
    task: Task, submission: Submission, result: RunResult | None, correctness: float | None
) -> tuple[bool, float]:
    """Whether the run is resolved (for pass@k: every feature of the submission passes its
    tests), and the share of its work that is solved, 0..1: the share of the features
    passing; for a task judged without tests (no ``tests_pass`` among its success
    criteria), its correctness / 100."""
    verdicts = {f.feature: f.passed for f in result.tested_features} if result is not None else {}
    features = submission.features
    passed = sum(1 for fid in features if verdicts.get(fid, False))
    resolved = result is not None and passed == len(features)
    if any(c.type == "tests_pass" for c in task.success_criteria) or not task.success_criteria:
        return resolved, passed / len(features) if features else 0.0
    return resolved, 0.0 if correctness is None else correctness / 100.0


def _task_columns(tasks: Sequence[Task], options: ScoringOptions) -> core.TaskColumns:
    def triple(metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return tuple(  # type: ignore[return-value]
            np.array([getattr(t.baseline, f"{part}_{metric}") for t in tasks], dtype=float)
            for part in ("min", "median", "max")
        )

    weights = np.array(
        [list(options.config.weights_for(t.category).values()) for t in tasks],
        dtype=float,
    ).reshape(len(tasks), 4)
    return core.TaskColumns(
        count=len(tasks),
        defaults=core.DefaultBaselines(
            tokens=triple("tokens"),
            tool_calls=triple("tool_calls"),
            execution_time=triple("execution_time"),
            cost=triple("cost"),
            median_iterations=np.array([t.baseline.median_iterations for t in tasks], dtype=float),
        ),
        weights=weights,
        multiplier=np.array(
            [options.config.difficulty_multiplier(t.difficulty) for t in tasks], dtype=float
        ),
    )


def _columns(
    prepared: Sequence[_Prepared], task_index: dict[str, int], options: ScoringOptions
) -> tuple[core.SubmissionColumns, core.RunColumns, list[int]]:
    """The core's columns, and each submission's first run index."""
    prices = np.full((len(prepared), 3), np.nan)
    for i, p in enumerate(prepared):
        models = set(p.item.spec.models)
        found = options.prices.lookup(next(iter(models))) if len(models) == 1 else None
        if found is not None:
            price = found[1]
            prices[i] = (price.input, price.cached_input, price.output)
    submissions = core.SubmissionColumns(
        task=np.array([task_index[p.task.id] for p in prepared], dtype=np.int64),
        scored=np.array([p.status == "scored" for p in prepared], dtype=bool),
        price_input=prices[:, 0],
        price_cached=prices[:, 1],
        price_output=prices[:, 2],
    )
    flat = [(i, r) for i, p in enumerate(prepared) for r in p.runs]

    def col(getter: Callable[[_PreparedRun], float]) -> np.ndarray:
        return np.array([getter(r) for _, r in flat], dtype=float)

    def opt(value: int | None) -> float:
        return float("nan") if value is None else float(value)

    runs = core.RunColumns(
        submission=np.array([i for i, _ in flat], dtype=np.int64),
        tokens=col(lambda r: r.run.tokens.total),
        tool_calls=col(lambda r: r.run.tool_calls),
        iterations=col(lambda r: r.run.iterations),
        execution_time=col(lambda r: r.run.execution_time),
        cost=col(lambda r: r.run.estimated_cost),
        correctness=col(lambda r: float("nan") if r.correctness is None else r.correctness),
        prompt=col(lambda r: opt(r.run.tokens.prompt)),
        completion=col(lambda r: opt(r.run.tokens.completion)),
        cached=col(lambda r: opt(r.run.tokens.cached)),
        solved=col(lambda r: r.solved),
    )
    offsets = list(np.cumsum([0] + [len(p.runs) for p in prepared])[:-1])
    return submissions, runs, [int(o) for o in offsets]


def _metric_baseline(arrays: core.MetricBaselineArrays, t: int) -> MetricBaseline:
    dynamic = bool(arrays.dynamic[t])
    return MetricBaseline(
        min=number(arrays.min[t]),
        median=number(arrays.median[t]),
        max=number(arrays.max[t]),
        q25=_maybe(arrays.q25[t]) if dynamic else None,
        q75=_maybe(arrays.q75[t]) if dynamic else None,
        source="dynamic" if dynamic else "default",
        count=int(arrays.count[t]),
    )


def _criteria(task: Task, runs: Sequence[_PreparedRun]) -> list[CriterionScore]:
    out = []
    for index, criterion in enumerate(task.success_criteria):
        outcomes = [r.outcomes[index] for r in runs if r.outcomes]
        values = [o.score for o in outcomes if o.score is not None]
        notes = sorted({o.note for o in outcomes if o.note})
        note = "; ".join(notes[:3]) + (f"; and {len(notes) - 3} more" if len(notes) > 3 else "")
        out.append(
            CriterionScore(
                index=index,
                type=criterion.type,
                weight=number(criterion.weight),
                description=criterion.description,
                score=score(100.0 * sum(values) / len(values)) if values else None,
                scored_runs=len(values),
                note=note or None,
            )
        )
    return out


def _flags(
    *, i: int, p: _Prepared, res: core.CoreResult, offset: int, options: ScoringOptions,
    duplicates: dict[str, list[str]],
) -> list[OutlierFlag]:
    flags: list[OutlierFlag] = []
    if p.status != "scored":
        return flags
    limits = options.config.outliers
    t_median = res.seed.task_median_tokens[res.task_of[i]]
    for seed_flag, code, reason in (
        (res.seed.low_tokens, "extremely_efficient_tokens",
         f"{res.metrics.tokens[i]:,.0f} tokens is under {limits.token_fraction:.0%} of the "
         f"task median ({t_median:,.0f})"),
        (res.seed.fast, "extremely_fast", f"execution time {res.metrics.execution_time[i]:.1f}"
         f" s is under {limits.fast_seconds:g} s"),
        (res.seed.single_call, "minimal_tool_usage", "a single tool call per run"),
    ):
        if seed_flag[i]:
            flags.append(OutlierFlag(code=code, kind="seed", reason=reason))
    for metric, z_values in sorted(res.robust_z.items()):
        z = z_values[i]
        if not math.isnan(z) and abs(z) > limits.robust_z_threshold:
            reason = robust_reason(metric=metric, z=float(z), threshold=limits.robust_z_threshold)
            flags.append(OutlierFlag(code=f"robust_{metric}", kind="robust", reason=reason))
    for j, prepared_run in enumerate(p.runs):
        r = offset + j
        tokens = prepared_run.run.tokens
        if res.run_tokens_inconsistent[r]:
            flags.append(OutlierFlag(
                code="token_totals", kind="consistency",
                reason=f"run {prepared_run.run.id}: token counts do not add up (total "
                f"{tokens.total}, prompt {tokens.prompt}, completion {tokens.completion}, "
                f"cached {tokens.cached})",
            ))
        if res.cost_band.flag[r]:
            flags.append(OutlierFlag(
                code="cost_vs_price_table", kind="consistency",
                reason=f"run {prepared_run.run.id}: reported ${prepared_run.run.estimated_cost:.4f}"
                f" is outside ${res.cost_band.low[r]:.4f}..${res.cost_band.high[r]:.4f}, the "
                f"plausible range for {p.item.spec.model_label} at the price table's rates "
                f"(×{limits.cost_tolerance:g} tolerance)",
            ))
    for reason in duplicates.get(p.item.key, []):
        flags.append(OutlierFlag(code="identical_patch", kind="duplicate", reason=reason))
    return flags


def _weights_model(row: np.ndarray) -> CategoryWeights:
    names = CategoryWeights.model_fields
    return CategoryWeights(**{c: number(v) for c, v in zip(names, row, strict=True)})


def _interval(i: int, res: core.CoreResult, confidence: float) -> Interval:
    return Interval(
        mean=score(res.intervals.mean[i]),
        std=number(res.intervals.std[i]) if res.intervals.count[i] >= 2 else 0.0,
        min=score(res.intervals.min[i]),
        max=score(res.intervals.max[i]),
        count=int(res.intervals.count[i]),
        low=None if math.isnan(res.intervals.low[i]) else score(res.intervals.low[i]),
        high=None if math.isnan(res.intervals.high[i]) else score(res.intervals.high[i]),
        confidence=confidence,
    )


def _entry(
    *, i: int, p: _Prepared, res: core.CoreResult, offset: int, options: ScoringOptions,
    review: _Review,
) -> Entry:
    spec = p.item.spec
    scored = p.status == "scored"
    metrics = MeanMetrics(
        tokens=number(res.metrics.tokens[i]),
        tool_calls=number(res.metrics.tool_calls[i]),
        iterations=number(res.metrics.iterations[i]),
        execution_time=_maybe(res.metrics.execution_time[i]),
        estimated_cost=_maybe(res.metrics.cost[i]),
    )
    parts = _scored_parts(
        i=i, p=p, res=res, options=options, outliers=review.outliers, metrics=metrics,
    ) if scored else _UNSCORED_FIELDS
    level, reasons = metrics_level(p.item)
    return Entry(
        key=p.item.key,
        task_id=p.task.id,
        submission_id=p.item.submission_id,
        tool=spec.tool.name,
        tool_version=spec.tool.version,
        model=spec.model_label,
        label=f"{spec.tool.name} / {spec.model_label}",  # how aggregates group entries
        contributor=spec.contributor.github or spec.contributor.name,
        setting=spec.setting,
        status=p.status,
        status_reason=p.reason,
        run_count=len(p.runs),
        metrics=metrics,
        runs=[_run_entry(prepared, res, offset + j, scored=scored)
              for j, prepared in enumerate(p.runs)],
        **parts,
        review_flags=review.flags,
        review_status=review.status,
        review=review.review,
        metrics_level=level,
        metrics_reasons=reasons,
    )


def _run_entry(
    prepared: _PreparedRun, res: core.CoreResult, row: int, *, scored: bool
) -> RunMetrics:
    run, result = prepared.run, prepared.result
    tested = result.tested_features if result is not None else []
    return RunMetrics(
        run_id=run.id,
        tokens=run.tokens.total,
        prompt_tokens=run.tokens.prompt,
        completion_tokens=run.tokens.completion,
        cached_tokens=run.tokens.cached,
        tool_calls=run.tool_calls,
        iterations=run.iterations,
        execution_time=number(run.execution_time),
        estimated_cost=number(run.estimated_cost),
        success=run.success,
        features_tested=len(tested),
        features_passed=sum(1 for f in tested if f.passed),
        resolved=prepared.resolved,
        correctness=None if prepared.correctness is None else score(prepared.correctness),
        overall=score(res.run_overall[row]) if scored else None,
    )


_LEVELS: tuple[MetricsLevel, ...] = get_args(MetricsLevel)


def metrics_level(item: SubmissionInput) -> tuple[MetricsLevel, list[str]]:
    """The entry's level (its weakest run's) and why it is not higher.

    ``maintainer-repeated`` when the review file names every run as repeated by the
    maintainer; otherwise ``transcript-consistent`` when every run's transcript passed every
    check (:mod:`arena_bot.intake.verification`), else ``self-reported``.
    """
    runs = item.spec.runs
    repeated = item.review.metrics_repeated if item.review is not None else None
    if repeated is not None and {r.id for r in runs} <= set(repeated.runs):
        return "maintainer-repeated", []
    reasons: list[str] = []
    level: MetricsLevel = "transcript-consistent"
    for run in runs:
        run_level, why = item.metrics_levels.get(run.id, ("self-reported", ()))
        if _LEVELS.index(run_level) < _LEVELS.index(level):
            level = run_level
        reasons.extend(f"run {run.id}: {reason}" for reason in why)
        if run_level == "self-reported" and not why:
            reasons.append(f"run {run.id}: " + (
                "no transcript" if run.transcript is None else "its transcript was not checked"
            ))
    return level, reasons


@dataclass(frozen=True)
class _Review:
    flags: list[ReviewFlag]
    status: Literal["none", "under-review", "cleared"]
    review: ClearedReview | None
    #: The entry's outlier flags, which put it up for review or not (they do not depend on
    #: who is ranked: judged among all scored entries).
    outliers: list[OutlierFlag]


def _evaluation_flags(p: _Prepared) -> list[ReviewFlag]:
    """The static and runtime flags of the entry's stored result, as the board shows them."""
    result = p.item.result
    return [
        ReviewFlag(source=flag.source, kind=flag.kind, file=flag.file or None, line=flag.line,
                   reason=flag.reason)
        for flag in (result.review_flags if result is not None else [])
    ]


def _outlier_flags(outliers: list[OutlierFlag], i: int, res: core.CoreResult, *,
                   robust: bool) -> list[ReviewFlag]:
    """Seed 002's rule: two or more of its heuristics put them up for review; so does any
    consistency or duplicate flag (and, with ``review.robust``, any robust z-score flag).
    Robust outliers alone are otherwise shown as outliers only: unusual among peers (a
    cheap model, a slow tool) is not a sign of cheating."""
    seed_flags = int(res.seed.low_tokens[i]) + int(res.seed.fast[i]) + int(
        res.seed.single_call[i]
    )
    counted = [f for f in outliers if f.kind != "robust" or robust]
    if not (seed_flags >= 2 or any(f.kind != "seed" for f in counted)):
        return []
    return [
        ReviewFlag(source="metrics" if f.kind == "consistency" else "outlier", kind=f.code,
                   reason=f.reason)
        for f in counted
    ]


def _review_parts(p: _Prepared, outliers: list[OutlierFlag], res: core.CoreResult, i: int,
                  *, robust: bool) -> _Review:
    flags = _evaluation_flags(p) + _outlier_flags(outliers, i, res, robust=robust)
    status, review = judge_review(flags, p.item.review, file=p.item.review_file)
    return _Review(flags=flags, status=status, review=review, outliers=outliers)


#: The fields of an Entry that only scored submissions have, for one that was not scored.
_UNSCORED_FIELDS: dict[str, Any] = {
    "scores": None, "correctness": [], "rank": None, "rank_shared": None,
    "category_ranks": None, "percentile": None, "interval": None, "statistically_tied": None,
    "significance_rank": None, "pass_at_k": [], "outliers": [], "validation": [],
    "notes": [],
}


def _scored_parts(
    *, i: int, p: _Prepared, res: core.CoreResult, options: ScoringOptions,
    outliers: list[OutlierFlag], metrics: MeanMetrics,
) -> dict[str, Any]:
    """The fields of an Entry that only scored submissions have (see _UNSCORED_FIELDS)."""
    criteria = _criteria(p.task, p.runs)
    category = res.ranks.category[i]
    n_runs = len(p.runs)
    resolved = sum(1 for r in p.runs if r.resolved)
    ranked = int(res.ranks.rank[i]) > 0  # held for review: scored, not ranked
    return dict(
        scores=_scores(i, res, p.task, options),
        correctness=criteria,
        rank=int(res.ranks.rank[i]) if ranked else None,
        rank_shared=bool(res.ranks.shared[i]) if ranked else None,
        category_ranks=CategoryRanks(
            efficiency=int(category[0]), speed=int(category[1]), cost=int(category[2]),
            correctness=int(category[3]) if category[3] > 0 else None,
        ) if ranked else None,
        percentile=number(res.ranks.percentile[i]) if ranked else None,
        interval=_interval(i, res, options.config.scoring.confidence),
        statistically_tied=bool(res.intervals.tied[i]) if ranked else None,
        significance_rank=int(res.intervals.significance_rank[i]) if ranked else None,
        pass_at_k=[
            PassAtK(k=k, value=number(pass_at_k(n=n_runs, c=resolved, k=k)))
            for k in options.config.scoring.pass_k if k <= n_runs
        ],
        outliers=outliers,
        validation=[  # seed 002 ``validate_evaluation_metrics``
            message for failed, message in (
                (res.validation_out_of_range[i], "a score is out of the 0..100 range"),
                (res.validation_high_pair[i],
                 "Suspicious: Both efficiency and speed scores are extremely high"),
                (res.validation_low_tokens[i], "Suspiciously low token count"),
            ) if failed
        ],
        notes=_scoring_notes(i, res, metrics, criteria),
    )


def _scores(i: int, res: core.CoreResult, task: Task, options: ScoringOptions) -> Scores:
    s = res.scores
    return Scores(
        overall=score(s.overall[i]),
        overall_unadjusted=score(s.overall_unadjusted[i]),
        composite=score(s.composite[i]),
        resolve_rate=number(res.metrics.solved[i]),
        efficiency=score(s.efficiency[i]),
        efficiency_parts=EfficiencyParts(
            token=score(s.token[i]), tool_call=score(s.tool_call[i]),
            iteration=score(s.iteration[i]),
        ),
        speed=score(s.speed[i]),
        cost=score(s.cost[i]),
        correctness=None if math.isnan(s.correctness[i]) else score(s.correctness[i]),
        weights=_weights_model(s.weights[i]),
        difficulty_multiplier=number(options.config.difficulty_multiplier(task.difficulty)),
    )


def _scoring_notes(
    i: int, res: core.CoreResult, metrics: MeanMetrics, criteria: list[CriterionScore]
) -> list[str]:
    """What a reader should know about how this entry's score was reached."""
    notes: list[str] = []
    if math.isnan(res.scores.correctness[i]):
        notes.append(
            "correctness unscored (no criterion could be scored): left out of the overall "
            "score, the other weights scaled up"
        )
    if metrics.execution_time is None:
        notes.append("no run recorded execution_time: speed scored 50 (seed 002 default)")
    if metrics.estimated_cost is None:
        notes.append("no run recorded estimated_cost: cost scored 50 (seed 002 default)")
    if any(c.score is None for c in criteria):
        notes.append("some success criteria are unscored: see correctness notes")
    return notes


def _summary_model(
    values: Sequence[float], weights: Sequence[float], confidence: float
) -> Summary:
    summary = summarize(values, weights=weights, confidence=confidence)
    assert summary is not None  # callers never pass an empty group
    return summary.model_copy(update={
        "mean": score(summary.mean), "std": number(summary.std), "min": score(summary.min),
        "max": score(summary.max), "total_weight": number(summary.total_weight),
        "low": None if summary.low is None else score(summary.low),
        "high": None if summary.high is None else score(summary.high),
    })


@dataclass(frozen=True)
class AggregateRow:
    """What the tool / model aggregates need of one scored entry.

    Kept apart from :class:`Entry` so an incremental rescore can aggregate a whole board
    from small stored rows without rebuilding every entry (see :mod:`.incremental`).
    """

    label: str
    tool: str
    model: str
    task_id: str
    #: The entry's score within its task (``overall_unadjusted``) and its task's multiplier.
    overall: float
    multiplier: float
    correctness: float | None
    #: Share of the work solved (the entry's resolve rate) and its number of runs.
    resolve_rate: float
    runs: int
    pass_at_k: tuple[tuple[int, float], ...]

    @classmethod
    def of(cls, entry: Entry) -> AggregateRow | None:
        """The row of a scored entry; ``None`` for pending and failed ones."""
        if entry.status != "scored" or entry.scores is None or entry.rank is None:
            return None  # held for review: in no aggregate until cleared
        return cls(
            label=entry.label, tool=entry.tool, model=entry.model, task_id=entry.task_id,
            overall=entry.scores.overall_unadjusted,
            multiplier=entry.scores.difficulty_multiplier, correctness=entry.scores.correctness,
            resolve_rate=entry.scores.resolve_rate, runs=len(entry.runs),
            pass_at_k=tuple((p.k, p.value) for p in entry.pass_at_k),
        )

    @classmethod
    def from_list(cls, row: list[Any]) -> AggregateRow:
        """A row from its JSON list (``dataclasses.astuple``'s order)."""
        pass_at_k = tuple((int(k), float(v)) for k, v in row[-1])
        return dataclasses.replace(cls(*row), pass_at_k=pass_at_k)


def aggregate_rows(entries: Sequence[Entry]) -> list[AggregateRow]:
    return [row for entry in entries if (row := AggregateRow.of(entry)) is not None]


def aggregates(rows: Sequence[AggregateRow], options: ScoringOptions) -> list[ToolModelAggregate]:
    """Per tool / model label across tasks: the mean of its task scores, ranked with ties.

    A label's score on a task is the mean unadjusted overall of its submissions there; its
    board score is the mean over the tasks it covers weighted by each task's difficulty
    multiplier (seed 004's weighted aggregate: harder tasks count more, and no cap at 100
    makes false ties), so a label does not gain weight by submitting one task many times.
    The interval is over those task scores, and labels whose intervals overlap the leader's
    are marked statistically tied.
    """
    groups: dict[str, list[AggregateRow]] = defaultdict(list)
    for row in rows:
        groups[row.label].append(row)
    if not groups:  # nothing scored yet
        return []
    labels = sorted(groups)
    summaries = [_summary_model(*_task_means(groups[label]), options.config.scoring.confidence)
                 for label in labels]
    means = np.array([summary.mean for summary in summaries])
    lows = np.array([np.nan if x.low is None else x.low for x in summaries])
    highs = np.array([np.nan if x.high is None else x.high for x in summaries])
    zero = np.zeros(len(labels), dtype=np.int64)
    ranks = competition_ranks(np.round(means * 100), zero, n_groups=1).rank
    tied, significance = core.significance(
        score=means, rank=ranks, low=lows, high=highs, groups=zero, n_groups=1
    )
    out = []
    for k, label in enumerate(labels):
        members = groups[label]
        correctness = [m.correctness for m in members if m.correctness is not None]
        runs = sum(m.runs for m in members)
        pass_rows = []
        for size in options.config.scoring.pass_k:
            values = [value for m in members for k_, value in m.pass_at_k if k_ == size]
            if values:  # the mean over the submissions that have at least k runs
                pass_rows.append(PassAtK(k=size, value=number(sum(values) / len(values))))
        out.append(ToolModelAggregate(
            label=label,
            tool=members[0].tool,
            model=members[0].model,
            submissions=len(members),
            tasks=len({m.task_id for m in members}),
            runs=runs,
            overall=summaries[k],
            mean_correctness=score(sum(correctness) / len(correctness)) if correctness else None,
            resolve_rate=number(sum(m.resolve_rate * m.runs for m in members) / runs),
            pass_at_k=pass_rows,
            rank=int(ranks[k]),
            statistically_tied=bool(tied[k]),
            significance_rank=int(significance[k]),
        ))
    return sorted(out, key=lambda a: (a.rank, a.label))


def _task_means(rows: Sequence[AggregateRow]) -> tuple[list[float], list[float]]:
    """The label's score on each task it covers and that task's weight (its multiplier)."""
    by_task: dict[str, list[AggregateRow]] = defaultdict(list)
    for row in rows:
        by_task[row.task_id].append(row)
    ordered = sorted(by_task.items())
    means = [sum(r.overall for r in members) / len(members) for _, members in ordered]
    return means, [members[0].multiplier for _, members in ordered]


def task_input_digest(task: Task, items: Sequence[SubmissionInput]) -> str:
    """SHA-256 over one task and everything of its submissions that scoring reads."""
    digest = hashlib.sha256(task.model_dump_json().encode())
    for item in sorted(items, key=lambda s: s.key):
        digest.update(item.digested)
    return digest.hexdigest()


def combine_digests(options: ScoringOptions, task_digests: Sequence[str]) -> str:
    """The board's ``input_digest`` from its tasks' digests, in task order."""
    digest = hashlib.sha256(options_digest(options).encode())
    for part in task_digests:
        digest.update(part.encode())
    return digest.hexdigest()


def input_digest(inputs: ScoringInputs, options: ScoringOptions) -> str:
    """SHA-256 over everything the leaderboard depends on (instead of a timestamp)."""
    by_task: dict[str, list[SubmissionInput]] = defaultdict(list)
    for item in inputs.submissions:
        by_task[item.spec.task].append(item)
    return combine_digests(options, [
        task_input_digest(inputs.tasks[task_id], by_task[task_id])
        for task_id in sorted(inputs.tasks)
    ])


def board_notes(
    tasks: Sequence[Task],
    options: ScoringOptions,
    unchecked: Mapping[str, Sequence[int]],
) -> list[str]:
    """Notes printed with the board: what could not be scored and why."""
    notes = [
        f"Task {task_id} is not scored: feature(s) {', '.join(map(str, features))} have no "
        f"recorded expected test ids; a maintainer records them with "
        f"`arena dataset check {task_id}`."
        for task_id, features in sorted(unchecked.items())
        if features
    ]
    if options.judge is None and any(
        c.type in ("llm_judge", "code_judge") for t in tasks for c in t.success_criteria
    ):
        notes.append(
            "No LLM judge configured: llm_judge and code_judge criteria are unscored and left "
            "out of correctness (set ARENA_JUDGE_URL and ARENA_JUDGE_MODEL)."
        )
    return notes


def leaderboard_options(options: ScoringOptions) -> LeaderboardOptions:
    config = options.config
    scoring = config.scoring
    return LeaderboardOptions(
        configuration=config.model_dump(mode="json"),
        policy=scoring.policy,
        weights=scoring.weights,
        min_submissions=scoring.min_submissions,
        confidence=scoring.confidence,
        judge_model=options.judge.model if options.judge else None,
        cost_tolerance=config.outliers.cost_tolerance,
        robust_z_threshold=config.outliers.robust_z_threshold,
    )


def build_leaderboard(inputs: ScoringInputs, *, options: ScoringOptions) -> Leaderboard:
    """Score every submission against its task's baseline and rank them (seeds 002, 004)."""
    items = _checked_items(inputs)
    task_ids = sorted(inputs.tasks)
    tasks = [inputs.tasks[t] for t in task_ids]
    task_index = {t: k for k, t in enumerate(task_ids)}
    prepared = [_prepare(item, inputs.tasks[item.spec.task], options) for item in items]
    submissions, runs, offsets = _columns(prepared, task_index, options)
    task_columns = _task_columns(tasks, options)
    duplicates = duplicate_patch_reasons([
        PatchRef(key=p.item.key, task_id=p.task.id, run_id=run_id, digest=d)
        for p in prepared if p.status != "error"
        for run_id, digests in sorted(p.item.patch_digests.items()) for d in digests
    ])
    hold = options.config.review.hold
    # Pass 1: entries held for the evaluation's own flags are not ranked; outliers (which do
    # not depend on who is ranked) may hold more, then the ranks are made again without them.
    def rescore(held: np.ndarray) -> core.CoreResult:
        return core.score_columns(
            tasks=task_columns, submissions=dataclasses.replace(submissions, ranked=~held),
            runs=runs, scoring=options.config.scoring, outliers=options.config.outliers,
        )

    held = np.array([
        hold and judge_review(_evaluation_flags(p), p.item.review,
                              file=p.item.review_file)[0] == "under-review"
        for p in prepared
    ], dtype=bool)
    res = rescore(held)
    reviews = [
        _review_parts(p, _flags(i=i, p=p, res=res, offset=offsets[i], options=options,
                                duplicates=duplicates), res, i,
                      robust=options.config.review.robust)
        for i, p in enumerate(prepared)
    ]
    final = np.array([hold and r.status == "under-review" for r in reviews], dtype=bool)
    if not np.array_equal(final, held):
        res = rescore(final)
    entries = [
        _entry(i=i, p=p, res=res, offset=offsets[i], options=options, review=reviews[i])
        for i, p in enumerate(prepared)
    ]
    entries.sort(key=lambda e: (e.task_id, e.rank if e.rank is not None else 10**9, e.key))
    status_counts: dict[tuple[str, str], int] = defaultdict(int)
    for e in entries:
        status_counts[(e.task_id, e.status)] += 1
    return Leaderboard(
        input_digest=input_digest(inputs, options),
        options=leaderboard_options(options),
        tasks=[_task_board(task, t, res.baselines, status_counts, options)
               for t, task in enumerate(tasks)],
        entries=entries,
        tools=aggregates(aggregate_rows(entries), options),
        notes=board_notes(tasks, options, inputs.unchecked),
    )


def _checked_items(inputs: ScoringInputs) -> list[SubmissionInput]:
    """The submissions in key order; a repeated key or an unknown task is an input error."""
    items = sorted(inputs.submissions, key=lambda s: s.key)
    keys = [item.key for item in items]
    if len(set(keys)) != len(keys):
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        raise InputError(f"submission keys appear twice: {', '.join(repeated)}")
    for item in items:
        if item.spec.task not in inputs.tasks:
            raise InputError(
                f"submission {item.key} names task {item.spec.task!r}, which is not in the "
                "dataset",
                hint="add the task under dataset/ or fix the 'task' field",
            )
    return items


def _task_board(
    task: Task, t: int, b: core.BaselineArrays, status_counts: dict[tuple[str, str], int],
    options: ScoringOptions,
) -> TaskBoard:
    """One task's header: its weights, the baseline its entries were scored against, counts."""
    return TaskBoard(
        task_id=task.id,
        title=task.title,
        category=task.category,
        difficulty=task.difficulty,
        difficulty_multiplier=number(options.config.difficulty_multiplier(task.difficulty)),
        weights=_weights_model(
            np.array(list(options.config.weights_for(task.category).values()))
        ),
        baseline=TaskBaseline(
            source="dynamic" if b.dynamic[t] else "default",
            submission_count=int(b.submission_count[t]),
            min_submissions=options.config.scoring.min_submissions,
            tokens=_metric_baseline(b.tokens, t),
            tool_calls=_metric_baseline(b.tool_calls, t),
            execution_time=_metric_baseline(b.execution_time, t),
            cost=_metric_baseline(b.cost, t),
            iterations=_metric_baseline(b.iterations, t),
        ),
        scored=status_counts[(task.id, "scored")],
        pending=status_counts[(task.id, "pending")],
        errors=status_counts[(task.id, "error")],
    )
