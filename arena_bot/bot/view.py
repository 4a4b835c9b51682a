"""The comment's view-model, built from a bundle.

The bundle's records are read through tolerant models (unknown fields ignored, missing
optional ones defaulted): a bundle made by a newer (or older) bot still renders what both
know.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from arena_bot.bot.bundle import Bundle
from arena_bot.bot.guidance import INTEGRITY, outlier_check
from arena_bot.intake.diagnostics import DiagnosticOut
from arena_bot.models.leaderboard import LEVEL_NAMES

V = TypeVar("V", bound=BaseModel)

#: What the comment concludes of the PR as a whole (the Action's ``verdict`` output).
Conclusion = Literal["valid", "invalid", "needs review"]

#: Label per conclusion; the bot adds and removes exactly these.
LABEL_VALID = "arena: valid"
LABEL_INVALID = "arena: invalid"
LABEL_REVIEW = "arena: needs review"
BOT_LABELS = (LABEL_VALID, LABEL_INVALID, LABEL_REVIEW)


class _Tolerant(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class EfficiencyPartsView(_Tolerant):
    token: float = 0.0
    tool_call: float = 0.0
    iteration: float = 0.0


class WeightsView(_Tolerant):
    efficiency: float = 0.0
    speed: float = 0.0
    cost: float = 0.0
    correctness: float = 0.0


class ScoresView(_Tolerant):
    overall: float
    overall_unadjusted: float | None = None
    composite: float | None = None
    resolve_rate: float | None = None
    efficiency: float = 0.0
    efficiency_parts: EfficiencyPartsView = EfficiencyPartsView()
    speed: float = 0.0
    cost: float = 0.0
    correctness: float | None = None
    weights: WeightsView = WeightsView()
    difficulty_multiplier: float = 1.0


class CriterionView(_Tolerant):
    index: int = 0
    type: str = ""
    weight: float = 0.0
    description: str | None = None
    score: float | None = None
    note: str | None = None


class OutlierView(_Tolerant):
    code: str = ""
    reason: str = ""
    kind: str = ""

    @property
    def check(self) -> str:
        return outlier_check(self.code, self.kind)


class BoardFlagView(_Tolerant):
    source: str = ""
    kind: str = ""
    file: str | None = None
    line: int | None = None
    reason: str = ""

    @property
    def where(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or ""


class ClearedReviewView(_Tolerant):
    by: str = ""
    reason: str = ""
    date: str = ""
    file: str = ""


class MetricBaselineView(_Tolerant):
    min: float | None = None
    median: float | None = None
    max: float | None = None


class TaskBaselineView(_Tolerant):
    source: str = ""
    submission_count: int = 0
    min_submissions: int = 0
    tokens: MetricBaselineView | None = None
    tool_calls: MetricBaselineView | None = None
    execution_time: MetricBaselineView | None = None
    cost: MetricBaselineView | None = None
    iterations: MetricBaselineView | None = None


class TaskView(_Tolerant):
    task_id: str
    baseline: TaskBaselineView | None = None
    #: How many of the task's entries are ranked (``rank N of scored``).
    scored: int | None = None


class EntryView(_Tolerant):
    key: str
    task_id: str = ""
    tool: str = ""
    model: str = ""
    contributor: str = ""
    status: str = "pending"
    status_reason: str | None = None
    run_count: int = 0
    scores: ScoresView | None = None
    correctness: list[CriterionView] = []
    rank: int | None = None
    percentile: float | None = None
    statistically_tied: bool | None = None
    outliers: list[OutlierView] = []
    review_flags: list[BoardFlagView] = []
    review_status: str = "none"
    review: ClearedReviewView | None = None
    metrics_level: str = "self-reported"
    metrics_reasons: list[str] = []
    validation: list[str] = []

    @property
    def under_review(self) -> bool:
        return self.review_status == "under-review"

    @property
    def level_name(self) -> str:
        return LEVEL_NAMES.get(self.metrics_level, self.metrics_level)


class TestView(_Tolerant):
    name: str = ""
    outcome: str = ""
    message: str | None = None

    @property
    def reason(self) -> str:
        """The first line of the failure message."""
        return (self.message or "").strip().split("\n", 1)[0][:300]


class ReviewFlagView(_Tolerant):
    file: str = ""
    line: int | None = None
    reason: str = ""

    @property
    def check(self) -> str:
        return INTEGRITY


class FeatureView(_Tolerant):
    feature: int = 0
    status: str = ""
    passed: bool = False
    tests_passed: int = 0
    tests_failed: int = 0
    tests_errored: int = 0
    tests: list[TestView] = []
    output: str = ""
    output_truncated: bool = False
    reason: str | None = None
    review_flags: list[ReviewFlagView] = []
    #: The run's canary tests as the harness stored them (JUnit case ids).
    canaries: list[str] = []

    @property
    def failures(self) -> list[TestView]:
        return [t for t in self.tests if t.outcome in ("failed", "error")]

    @property
    def canaries_in_output(self) -> bool:
        """The raw output shows one of this run's canary tests (the counts leave them out).
        A canary is found by its test name as a whole word (``module.Class::name`` →
        ``name``): pytest prints it as a node id (``tests/test_x.py::Class::name``) or a
        section header (``Class.name``), never as the JUnit id that is stored."""
        return any(re.search(rf"(?<!\w){re.escape(_test_name(c))}(?!\w)", self.output)
                   for c in self.canaries if _test_name(c))


def _test_name(case_id: str) -> str:
    """The test's own name in a JUnit case id (``pkg.test_x.TestA::test_b[p]`` → ``test_b``)."""
    return case_id.partition("[")[0].rpartition("::")[2]


class MergeView(_Tolerant):
    status: str = ""
    strategy: str = ""
    conflict_score: int = 0
    severity: str = "NONE"
    both_passed: bool = False
    features: list[FeatureView] = []
    error: str | None = None


class RunView(_Tolerant):
    run_id: str = ""
    features: list[FeatureView] = []
    merge: MergeView | None = None


class ResultView(_Tolerant):
    task_id: str
    submission_id: str
    error: str | None = None
    runs: list[RunView] = []

    @property
    def key(self) -> str:
        return f"{self.task_id}/{self.submission_id}"

    @property
    def review_flags(self) -> list[ReviewFlagView]:
        features = [f for r in self.runs for f in r.features]
        features += [f for r in self.runs if r.merge for f in r.merge.features]
        return [flag for f in features for flag in f.review_flags]


@dataclass(frozen=True)
class SubmissionView:
    key: str
    path: str
    valid: bool
    diagnostics: list[DiagnosticOut]
    entry: EntryView | None
    result: ResultView | None = None
    task: TaskView | None = None

    @property
    def task_unchecked(self) -> bool:
        """Its task lacks recorded expected test ids, so scoring leaves it off the board."""
        return any(d.code == "no-expected-tests" for d in self.diagnostics)

    @property
    def baseline(self) -> TaskBaselineView:
        if self.task is not None and self.task.baseline is not None:
            return self.task.baseline
        return TaskBaselineView()

    @property
    def flagged(self) -> bool:
        if self.result is not None and self.result.review_flags:
            return True
        return self.entry is not None and (self.entry.under_review or bool(self.entry.outliers))

    @property
    def ranked_of(self) -> int | None:
        """How many entries of its task are ranked (``None``: the bundle does not say)."""
        return self.task.scored if self.task is not None else None

    @property
    def failing(self) -> bool:
        """Valid, but its evaluation failed or it resolves no feature (0% resolved)."""
        entry = self.entry
        if not self.valid or entry is None:
            return False
        if entry.status == "error":
            return True
        return entry.scores is not None and entry.scores.resolve_rate == 0

    @property
    def outcome(self) -> str:
        """What its heading says: valid or not, and whether it resolves anything."""
        if not self.valid:
            return "invalid"
        entry = self.entry
        if entry is not None and entry.status == "error":
            return "valid, but its evaluation failed"
        if self.failing:
            return "valid, but failing: 0% resolved"
        if entry is None or entry.scores is None:
            return "valid, not scored yet"
        return "valid"


@dataclass(frozen=True)
class CommentView:
    marker: str
    conclusion: Conclusion
    head_sha: str
    bot_version: str
    #: Why the PR needs a maintainer before any score is shown (``None``: checks passed).
    gate: list[str]
    submissions: list[SubmissionView] = field(default_factory=list)
    other: list[DiagnosticOut] = field(default_factory=list)
    unreadable_entries: int = 0

    @property
    def headline(self) -> str:
        """The comment's heading: what is true of the PR as a whole, never "valid" alone
        over a submission that resolves nothing."""
        if self.gate:
            return "needs a maintainer"
        count = len(self.submissions)
        if self.conclusion == "invalid":
            bad = sum(1 for s in self.submissions if not s.valid)
            return "invalid" if count <= 1 or bad == count else f"invalid ({bad} of {count})"
        head = "valid" if self.conclusion == "valid" else "valid, needs review"
        failing = sum(1 for s in self.submissions if s.failing)
        if failing and count == 1:
            head += self.submissions[0].outcome.removeprefix("valid")
        elif failing and failing == count:
            head += ", but all failing"
        elif failing:
            head += f", but {failing} of {count} failing"
        return head

    @property
    def labels(self) -> set[str]:
        """The bot's labels the PR should carry: validity, plus review when flagged."""
        if self.gate:
            return {LABEL_REVIEW}
        valid = all(s.valid for s in self.submissions) and not any(
            d.severity == "error" for d in self.other
        )
        labels = {LABEL_VALID if valid else LABEL_INVALID}
        if any(s.flagged for s in self.submissions):
            labels.add(LABEL_REVIEW)
        return labels


def build_view(bundle: Bundle, *, marker: str, gate: list[str]) -> CommentView:
    """The comment's data; with a failed ``gate`` it carries no scores at all."""
    if gate:
        return CommentView(
            marker=marker, conclusion="needs review", head_sha=bundle.head_sha,
            bot_version=bundle.bot_version, gate=gate,
        )
    entries, bad_entries = _readable(bundle.entries, EntryView, key=lambda entry: entry.key)
    tasks, bad_tasks = _readable(bundle.tasks, TaskView, key=lambda task: task.task_id)
    results, bad_results = _readable(bundle.results, ResultView, key=lambda result: result.key)
    unreadable = bad_entries + bad_tasks + bad_results
    submissions = [
        SubmissionView(
            key=item.key, path=item.path, valid=item.valid,
            diagnostics=list(item.diagnostics), entry=entries.get(item.key) if item.valid else None,
            result=results.get(item.key) if item.valid else None,
            task=tasks.get(entry.task_id) if item.valid and (entry := entries.get(item.key))
            else None,
        )
        for item in bundle.validation.submissions
    ]
    conclusion: Conclusion = (
        "invalid" if not bundle.validation.valid
        else "needs review" if any(s.flagged for s in submissions) else "valid"
    )
    return CommentView(
        marker=marker,
        conclusion=conclusion,
        head_sha=bundle.head_sha,
        bot_version=bundle.bot_version,
        gate=[],
        submissions=submissions,
        other=list(bundle.validation.diagnostics),
        unreadable_entries=unreadable,
    )


def _readable(
    raws: Sequence[Mapping[str, Any]], model: type[V], *, key: Callable[[V], str]
) -> tuple[dict[str, V], int]:
    """The bundle's records that read as ``model``, by ``key``, and how many did not (the
    bundle is data from an untrusted run: a bad record is counted, never fatal)."""
    read: dict[str, V] = {}
    failed = 0
    for raw in raws:
        try:
            item = model.model_validate(raw)
        except ValidationError:
            failed += 1
            continue
        read[key(item)] = item
    return read, failed

