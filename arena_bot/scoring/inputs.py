"""What the scoring core consumes: tasks, submissions and their evaluation results."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from arena_bot.core.config import DEFAULT_CONFIG, ArenaConfig
from arena_bot.core.prices import PriceTable, load_price_table
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.models.leaderboard import MetricsLevel
from arena_bot.models.review import ReviewFile
from arena_bot.models.submission import Submission
from arena_bot.models.task import Task
from arena_bot.scoring.judge import Judge

if TYPE_CHECKING:
    from arena_bot.tasks.dataset import TaskFolder


@dataclass(frozen=True, kw_only=True)
class SubmissionInput:
    """One submission with its evaluation result (``None``: not evaluated yet)."""

    key: str  # "<task>/<submission>"
    submission_id: str
    spec: Submission
    result: EvaluationResult | None
    #: run id → digests of its patch files (see :func:`.outliers.patch_digest`).
    patch_digests: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Each run's metrics level and, below ``maintainer-repeated``, why (see
    #: :mod:`arena_bot.intake.verification`): run id → (level, reasons). A run missing here is
    #: ``self-reported``.
    metrics_levels: Mapping[str, tuple[MetricsLevel, tuple[str, ...]]] = field(
        default_factory=dict
    )
    #: The committed review file of this submission, if any, and its path relative to the
    #: repository root.
    review: ReviewFile | None = None
    review_file: str = ""

    @functools.cached_property
    def digested(self) -> bytes:
        """Everything of this submission that scoring reads, as
        :func:`~arena_bot.scoring.leaderboard.task_input_digest` hashes it (spelt once: a
        task's digest is taken more than once while it is scored)."""
        return b"".join((
            self.key.encode(),
            self.spec.model_dump_json().encode(),
            self.result.model_dump_json().encode() if self.result else b"-",
            json.dumps(sorted(self.patch_digests.items())).encode(),
            json.dumps(sorted((k, v[0], list(v[1])) for k, v in self.metrics_levels.items()))
            .encode(),
            self.review.model_dump_json().encode() if self.review else b"-",
            self.review_file.encode(),
        ))


@dataclass(frozen=True, kw_only=True)
class ScoringInputs:
    tasks: Mapping[str, Task]
    submissions: Sequence[SubmissionInput]
    #: Tasks left off the board, with their features that have no recorded expected test
    #: ids (``arena dataset check`` not run): named in the board's notes.
    unchecked: Mapping[str, Sequence[int]] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ScoringOptions:
    """How to score: the repository's configuration and the adapters scoring is given."""

    config: ArenaConfig = DEFAULT_CONFIG
    judge: Judge | None = None
    prices: PriceTable = field(default_factory=load_price_table)
    #: The base checkout of a task (a folder holding its repository at the base commit), for
    #: replaying transcripts' edits; given by the caller that may run git (``None``: no
    #: replay, so no run reaches ``transcript-consistent``).
    base_checkout: Callable[[TaskFolder], Path] | None = None


def options_digest(options: ScoringOptions) -> str:
    """SHA-256 of the options that change scores (the judge by its model)."""
    scoring, outliers = options.config.scoring, options.config.outliers
    return hashlib.sha256(json.dumps([
        scoring.policy, scoring.weights, scoring.min_submissions, scoring.confidence,
        outliers.cost_tolerance, outliers.robust_z_threshold, scoring.pass_k,
        options.judge.model if options.judge else None, options.config.digest(),
        options.prices.digest(),
    ]).encode()).hexdigest()
