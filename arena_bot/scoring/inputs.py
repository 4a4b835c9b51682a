"""What the scoring core consumes: tasks, submissions and their evaluation results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena_bot.models.evaluation import EvaluationResult
from arena_bot.models.submission import Submission
from arena_bot.models.task import Task
from arena_bot.scoring.judge import Judge
from arena_bot.scoring.prices import PriceTable, load_price_table
from arena_bot.scoring.weights import WeightsMode


@dataclass(frozen=True, kw_only=True)
class SubmissionInput:
    """One submission with its evaluation result (``None``: not evaluated yet)."""

    key: str  # "<task>/<submission>"
    submission_id: str
    spec: Submission
    result: EvaluationResult | None
    #: run id → digests of its patch files (see :func:`.outliers.patch_digest`).
    patch_digests: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Ids of the runs whose figures agree with their transcript (see :mod:`.verification`).
    verified_runs: frozenset[str] = frozenset()


@dataclass(frozen=True, kw_only=True)
class ScoringInputs:
    tasks: Mapping[str, Task]
    submissions: Sequence[SubmissionInput]


@dataclass(frozen=True, kw_only=True)
class ScoringOptions:
    """How to score. The defaults are seed 002's."""

    weights: WeightsMode = "category"
    min_submissions: int = 5
    confidence: float = 0.95
    judge: Judge | None = None
    cost_tolerance: float = 3.0
    robust_z_threshold: float = 3.5
    pass_k: tuple[int, ...] = (1, 5, 10)
    prices: PriceTable = field(default_factory=load_price_table)
