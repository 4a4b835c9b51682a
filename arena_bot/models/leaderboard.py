"""The Leaderboard format: what ``arena score`` writes to ``leaderboard.json``.

Everything the site and the PR comment show comes from here, so every number is explained:
the weights and difficulty multiplier that produced a score, the baseline it was measured
against (the task's default or the dynamic one), the correctness of each success criterion
(with a note when a criterion could not be scored), outlier flags with reasons, the runs'
own metrics, intervals, ranks and percentiles.

Scores are on 0..100 and rounded to 2 decimals (seed 002); other floats to 4 decimals.
There is no timestamp: ``input_digest`` identifies the inputs, so the same inputs always
give byte-identical files.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from arena_bot.models.common import RecordModel

#: ``scored`` — evaluated and ranked; ``pending`` — no EvaluationResult yet (listed, not
#: ranked, not in baselines); ``error`` — the evaluation itself failed (listed with the
#: reason, not ranked, not in baselines).
EntryStatus = Literal["scored", "pending", "error"]
BaselineSource = Literal["default", "dynamic"]


class _Finite(RecordModel):
    """A record of the leaderboard: every float finite. ``arena score`` never writes NaN or
    infinity (a value it cannot compute is ``null``), and the JSON it writes could not hold
    them (orjson spells them ``null``); Python's json reads ``NaN`` and ``Infinity``, which
    would crash the site's charts, so a file holding them is refused."""

    model_config = ConfigDict(allow_inf_nan=False)


class CategoryWeights(_Finite):
    """Weights of the four categories in the overall score (they sum to 1)."""

    efficiency: float
    speed: float
    cost: float
    correctness: float


class MetricBaseline(_Finite):
    """One metric's baseline for a task. ``q25``/``q75`` only exist for dynamic baselines."""

    min: float
    median: float
    max: float
    q25: float | None = None
    q75: float | None = None
    #: ``dynamic`` when computed from submissions, ``default`` when taken from task.yaml
    #: (too few submissions, or none of them recorded this metric).
    source: BaselineSource
    #: How many submissions recorded this metric (time and cost may be missing).
    count: int


class TaskBaseline(_Finite):
    """The baseline every submission of a task was scored against."""

    source: BaselineSource
    #: Evaluated submissions of the task (dynamic baselines need at least
    #: ``min_submissions``).
    submission_count: int
    min_submissions: int
    tokens: MetricBaseline
    tool_calls: MetricBaseline
    execution_time: MetricBaseline
    cost: MetricBaseline
    iterations: MetricBaseline


class TaskBoard(_Finite):
    """One task: how it is weighted and its baseline."""

    task_id: str
    title: str
    category: str
    difficulty: str
    difficulty_multiplier: float
    weights: CategoryWeights
    baseline: TaskBaseline
    scored: int
    pending: int
    errors: int


class EfficiencyParts(_Finite):
    """Seed 002's efficiency sub-scores (combined 0.5 / 0.3 / 0.2)."""

    token: float
    tool_call: float
    iteration: float


class Scores(_Finite):
    """The composite score of one submission and how it was made."""

    #: ``overall_unadjusted`` × the difficulty multiplier, capped at 100: comparable across
    #: tasks of different difficulty.
    overall: float
    #: The score within its task (entries of a task are ranked on it): under the ``solved``
    #: policy ``composite`` × ``solved``; under ``seed002`` the composite itself.
    overall_unadjusted: float
    #: Seed 002's composite: Σ weight · category score.
    composite: float = 0.0
    #: Share of the work the submission solved, 0..1 (the mean over its runs of the share of
    #: features whose tests pass): its resolve rate, as SWE-bench reports it.
    resolve_rate: float = 0.0
    efficiency: float
    efficiency_parts: EfficiencyParts
    speed: float
    cost: float
    #: ``None`` when no criterion could be scored (then correctness is left out of the
    #: overall score and the other weights are scaled up; see ``weights``).
    correctness: float | None
    #: The weights actually applied (renormalised when correctness is unscored).
    weights: CategoryWeights
    difficulty_multiplier: float


class CriterionScore(_Finite):
    """One success criterion of the task, averaged over the submission's runs."""

    index: int
    type: str
    weight: float
    description: str | None = None
    #: 0..100, the mean over the runs where it could be scored; ``None`` = unscored.
    score: float | None
    scored_runs: int
    #: Why it is unscored or how it was judged (e.g. "no judge configured").
    note: str | None = None


class CategoryRanks(_Finite):
    efficiency: int
    speed: int
    cost: int
    correctness: int | None


class Interval(_Finite):
    """Multi-run statistics of the overall score (seed 004) with a t-based 95% interval."""

    mean: float
    std: float
    min: float
    max: float
    count: int
    #: ``None`` with fewer than 2 values: one run tells nothing about spread.
    low: float | None
    high: float | None
    confidence: float


class OutlierFlag(_Finite):
    """A reason to look at a submission by hand."""

    code: str
    reason: str
    #: ``seed`` for seed 002's heuristics, ``robust`` for the median/MAD check,
    #: ``consistency`` for numbers that contradict each other or the price table,
    #: ``duplicate`` for identical patches.
    kind: Literal["seed", "robust", "consistency", "duplicate"]


#: Where a review flag came from: ``static`` — a check of the patch's text (syntax tree,
#: protected paths); ``runtime`` — something seen while the tests ran (canaries, a tampered
#: report); ``outlier`` — seed 002's outlier rule (see :class:`OutlierFlag`); ``metrics`` —
#: reported figures that contradict each other or the price table.
ReviewFlagSource = Literal["static", "runtime", "outlier", "metrics"]
#: ``none`` — no flag; ``under-review`` — flagged and not (or not wholly) cleared: shown,
#: not ranked; ``cleared`` — every flag cleared by a review file committed to the repository.
ReviewStatus = Literal["none", "under-review", "cleared"]
#: How far an entry's figures can be trusted (the weakest of its runs):
#: ``self-reported`` — taken on trust; ``transcript-consistent`` — every run's transcript
#: replays to its patch, its usage is internally consistent, its models are the
#: submission's and its figures agree with it; ``maintainer-repeated`` — in addition, a
#: maintainer repeated the run (named in a review file).
MetricsLevel = Literal["self-reported", "transcript-consistent", "maintainer-repeated"]
#: The metrics levels as the comment and the site name them.
LEVEL_NAMES = {
    "self-reported": "self-reported",
    "transcript-consistent": "consistent with its transcript",
    "maintainer-repeated": "repeated by a maintainer",
}


class ReviewFlag(_Finite):
    """Something a maintainer must look at before the entry is ranked."""

    source: ReviewFlagSource
    #: A short stable code (``test-machinery``, ``canary``, ``extremely_fast``, ...): what a
    #: review file names to clear the flag.
    kind: str
    #: Repository path the flag points at (``None`` for a flag about the run or the figures).
    file: str | None = None
    #: 1-based line in ``file``.
    line: int | None = None
    reason: str


class ClearedReview(_Finite):
    """A maintainer's review of the entry, from ``reviews/<task>/<submission>.yaml``."""

    #: The maintainer (GitHub login) who reviewed it.
    by: str
    reason: str
    date: str
    #: The flags this review clears (as the review file names them).
    flags_cleared: list[ReviewFlag] = Field(default_factory=list)
    #: The review file, relative to the repository root.
    file: str


class PassAtK(_Finite):
    """Unbiased pass@k over the submission's runs (a run passes when all its tests pass)."""

    k: int
    value: float


class RunMetrics(_Finite):
    """One run as submitted and as evaluated."""

    run_id: str
    tokens: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    tool_calls: int
    iterations: int
    execution_time: float
    estimated_cost: float
    success: bool
    features_tested: int = 0
    features_passed: int = 0
    resolved: bool = False
    correctness: float | None = None
    overall: float | None = None


class MeanMetrics(_Finite):
    """The metrics a multi-run submission is scored on: the mean over its runs.

    Time and cost average only the runs that recorded them; ``None`` means no run did
    (scored 50 by seed 002's rule).
    """

    tokens: float
    tool_calls: float
    iterations: float
    execution_time: float | None
    estimated_cost: float | None


class Entry(_Finite):
    """One submission on the leaderboard."""

    key: str
    task_id: str
    submission_id: str
    tool: str
    tool_version: str
    model: str
    #: ``tool / model``: the label aggregates and comparisons use.
    label: str
    contributor: str
    setting: str
    status: EntryStatus
    status_reason: str | None = None
    run_count: int
    metrics: MeanMetrics
    runs: list[RunMetrics]
    scores: Scores | None = None
    correctness: list[CriterionScore] = Field(default_factory=list)
    #: ``None`` while not scored or under review.
    rank: int | None = None
    #: Another entry of the task has the same published score (so the same rank).
    rank_shared: bool | None = None
    category_ranks: CategoryRanks | None = None
    #: Mid-rank percentile within the task: share of entries below plus half of the ties.
    percentile: float | None = None
    interval: Interval | None = None
    #: The entry's interval overlaps the task leader's (the leader too, when anyone does).
    statistically_tied: bool | None = None
    #: 1 + number of entries whose interval lies wholly above this entry's.
    significance_rank: int | None = None
    pass_at_k: list[PassAtK] = Field(default_factory=list)
    outliers: list[OutlierFlag] = Field(default_factory=list)
    #: Every review flag of the entry: the evaluation's static and runtime flags, and its
    #: outlier flags when seed 002's rule holds (two or more of its heuristics, or any
    #: robust / consistency / duplicate flag). Also set on pending and errored entries
    #: when the stored result carries flags.
    review_flags: list[ReviewFlag] = Field(default_factory=list)
    #: ``under-review`` entries take no rank (``rank`` is ``None``) until a review file
    #: clears every flag (arena.yaml ``review.hold: false``: ranked, flags still shown).
    review_status: ReviewStatus = "none"
    #: The committed review that cleared the flags (``cleared``), or a review that no longer
    #: covers every flag (``under-review``: the flags it does not name are still open).
    review: ClearedReview | None = None
    #: Seed 002's ``validate_evaluation_metrics`` messages for this entry.
    validation: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: How far the figures can be trusted (see :data:`MetricsLevel`; the board can be
    #: filtered on it).
    metrics_level: MetricsLevel = "self-reported"
    #: Why the entry has no higher level, one line per run and reason (empty at
    #: ``maintainer-repeated``).
    metrics_reasons: list[str] = Field(default_factory=list)


class Summary(Interval):
    """Weighted statistics (seed 004's AggregateScore): an :class:`Interval` over values that
    carry weights (difficulty), with the weights' total. The one summary type: scoring's
    :func:`arena_bot.scoring.stats.summarize` returns it too (unrounded)."""

    total_weight: float


class ToolModelAggregate(_Finite):
    """All scored submissions of one tool / model label across tasks.

    ``overall`` summarises the label's task scores (the mean difficulty-adjusted overall of
    its submissions on each task it covers), so every task counts once; ``resolve_rate`` is
    the share of features whose tests pass over all its runs.
    """

    label: str
    tool: str
    model: str
    submissions: int
    tasks: int
    runs: int
    overall: Summary
    mean_correctness: float | None
    resolve_rate: float
    pass_at_k: list[PassAtK] = Field(default_factory=list)
    rank: int
    statistically_tied: bool
    significance_rank: int


class LeaderboardOptions(_Finite):
    """The settings the leaderboard was computed with."""

    #: ``solved`` (default): scores are earned for solved work; ``seed002``: seed 002's
    #: composite as specified. See the methodology page.
    policy: Literal["solved", "seed002"] = "solved"
    #: The effective arena.yaml (every setting, defaults included) the board was computed with.
    configuration: dict[str, Any] = Field(default_factory=dict)
    weights: Literal["category", "default"]
    min_submissions: int
    confidence: float
    judge_model: str | None
    cost_tolerance: float
    robust_z_threshold: float


class Leaderboard(_Finite):
    """Everything ``arena score`` computed, ready to render."""

    schema_version: Literal[1] = 1
    #: SHA-256 over the inputs (tasks, submissions, results, options).
    input_digest: str
    options: LeaderboardOptions
    tasks: list[TaskBoard]
    #: Sorted by task, then rank (pending and errored last), then key.
    entries: list[Entry]
    #: Sorted by rank, then label.
    tools: list[ToolModelAggregate]
    notes: list[str] = Field(default_factory=list)
