"""The EvaluationResult format: what ``arena evaluate`` stores for one submission.

Results are content-addressed by ``input_hash`` (submission files + task folder + harness
version + image): the same inputs reuse the stored result, a changed input re-runs. Scores are
never stored here; they are recomputed from results because baselines move.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Literal

from pydantic import Field

from arena_bot.models.common import RecordModel

#: How a patch went onto the base commit: ``clean`` (``git apply``), ``whitespace`` (only
#: with whitespace differences in its context lines ignored, ``git apply
#: --ignore-whitespace``, as CooperBench's runner.sh applies patches: CRLF line endings,
#: re-indented context), ``three_way`` (``git apply --3way``), ``failed`` (did not apply),
#: ``missing`` (no patch to apply).
ApplyStatus = Literal["clean", "whitespace", "three_way", "failed", "missing"]
#: How two agents' patches merged (seed 003's ``merge_status``).
MergeStatus = Literal["clean", "conflicts", "apply_failed"]
#: The merge whose result was tested: ``ort`` (git's default), ``union`` (retry after
#: conflicts) or ``none`` (nothing could be tested).
MergeStrategy = Literal["ort", "union", "none"]
#: Seed 003's severity of a conflict score.
ConflictSeverity = Literal["NONE", "LOW", "MEDIUM", "HIGH", "CRITICAL"]

#: The verdict of one feature's tests:
#: ``passed`` — patch applied, command exited 0, at least one test ran, no failure or error;
#: ``failed`` — tests ran and some failed or errored (or the exit status was non-zero);
#: ``apply_failed`` — the submission's patch (or the tests patch) did not apply;
#: ``rejected`` — the patch touches protected paths (tests, conftest.py, ...);
#: ``no_tests`` — the command ran but no structured test results were produced;
#: ``timeout`` — the wall-clock limit was hit and the container was killed;
#: ``error`` — the harness itself failed (not the submission's fault; re-run);
#: ``tampered`` — the harness's canary tests came back wrong (the failing one passed, or one
#: is missing): the results were forged, so nothing in them counts (flagged for review).
FeatureStatus = Literal[
    "passed", "failed", "apply_failed", "rejected", "no_tests", "timeout", "error", "tampered"
]
TestOutcome = Literal["passed", "failed", "error", "skipped"]
#: Where a review flag comes from (see :class:`ReviewFlag`).
FlagSource = Literal["static", "runtime"]


class TestCaseResult(RecordModel):
    """One test case from the structured (JUnit) results."""

    __test__ = False

    name: str
    outcome: TestOutcome
    duration: float = 0.0
    message: str | None = None


class ReviewFlag(RecordModel):
    """Something in a submission a maintainer must look at before trusting its verdict:
    a line of the patch reaching into test machinery, or a tampered test report."""

    #: Repository path of the patched file (``""`` for a flag about the test run itself).
    file: str
    #: 1-based line in the patched file, when the flag comes from one line.
    line: int | None = None
    reason: str
    #: Who raised it: ``static`` (read from the patch and the patched files before anything
    #: ran) or ``runtime`` (the harness's guard inside the test process, or the verdict).
    source: FlagSource = "static"
    #: What kind of finding, a short stable id (``always_equal``, ``import_hook``,
    #: ``test_replaced``...: see :mod:`arena_bot.evaluation.flags`); ``other`` when unsorted.
    kind: str = "other"


class FeatureResult(RecordModel):
    """One feature's tests run against one patched tree."""

    feature: int
    status: FeatureStatus
    passed: bool
    apply_status: ApplyStatus
    #: The test command's exit status. 1 on a passing run with canaries: the harness's
    #: failing canary test makes pytest exit 1 (0 there means the status was forged).
    exit_code: int | None = None
    tests_passed: int = 0
    tests_failed: int = 0
    tests_errored: int = 0
    tests_skipped: int = 0
    tests: list[TestCaseResult] = Field(default_factory=list)
    duration: float = 0.0
    #: Combined stdout/stderr, truncated to the task's output cap.
    output: str = ""
    output_truncated: bool = False
    #: Why the feature did not pass, in words a contributor can act on.
    reason: str | None = None
    #: "Needs review" flags: the patch reaches into test machinery, or the report was
    #: tampered with (canaries). Shown wherever the entry is shown.
    review_flags: list[ReviewFlag] = Field(default_factory=list)
    #: The JUnit case ids (as in ``tests``) of the two canary tests the harness placed in
    #: this run, the one that must pass first, the one failing on purpose second; empty when
    #: none was placed (and in results stored before this field). Left out of ``tests`` and
    #: the counts; named so a reader of ``output`` can tell them from the task's tests.
    canaries: list[str] = Field(default_factory=list)


class ConflictDetails(RecordModel):
    """Seed 003's conflict counts."""

    conflict_sections: int = 0
    conflict_lines: int = 0
    avg_lines_per_conflict: float = 0.0


class MergeResult(RecordModel):
    """How two cooperating agents' patches merged, and whether the merge passes both tests."""

    status: MergeStatus
    #: The strategy whose result was tested (see :data:`MergeStrategy`).
    strategy: MergeStrategy
    conflict_score: int = 0
    severity: ConflictSeverity = "NONE"
    conflict_details: ConflictDetails = Field(default_factory=ConflictDetails)
    #: Which agent's patch failed to apply, when ``status == "apply_failed"``.
    apply_status: dict[str, ApplyStatus] = Field(default_factory=dict)
    #: The merged diff against the base commit (capped), or ``""``.
    diff: str = ""
    features: list[FeatureResult] = Field(default_factory=list)
    both_passed: bool = False
    error: str | None = None


class CriterionObservation(RecordModel):
    """The text an answer-based success criterion scores, read during evaluation."""

    criterion: int  # index into the task's success_criteria
    target: str
    text: str | None = None
    exists: bool | None = None  # for file_exists
    error: str | None = None


class RunResult(RecordModel):
    """The evaluation of one run of a submission."""

    run_id: str
    features: list[FeatureResult]
    merge: MergeResult | None = None
    observations: list[CriterionObservation] = Field(default_factory=list)

    @property
    def features_passed(self) -> int:
        return sum(1 for feature in self.tested_features if feature.passed)

    @property
    def tested_features(self) -> list[FeatureResult]:
        """For coop runs the merged code's results count; otherwise each feature's."""
        return self.merge.features if self.merge is not None else self.features


class ImageRef(RecordModel):
    tag: str
    id: str


class EvaluationResult(RecordModel):
    """Everything ``arena evaluate`` learned about one submission."""

    schema_version: Literal[1] = 1
    task_id: str
    submission_id: str
    input_hash: str
    harness_version: str
    image: ImageRef | None = None
    evaluated_at: dt.datetime
    duration: float = 0.0
    runs: list[RunResult]
    #: Set when the whole evaluation could not run (then ``runs`` may be empty).
    error: str | None = None

    @property
    def review_flags(self) -> list[ReviewFlag]:
        """Every distinct review flag of every feature result (runs and merges)."""
        flags: dict[tuple[str, int | None, str], ReviewFlag] = {}
        for run in self.runs:
            results = list(run.features) + (run.merge.features if run.merge else [])
            for result in results:
                for flag in result.review_flags:
                    flags.setdefault((flag.file, flag.line, flag.reason), flag)
        return list(flags.values())

    @property
    def needs_review(self) -> bool:
        """Whether a maintainer must look at this submission before trusting it."""
        return bool(self.review_flags)


#: ``run_tests(diff_text, feature_id)``: that feature's tests in a fresh sandbox, on the base
#: commit with ``diff_text`` applied. The one protocol between evaluation (which provides it)
#: and the coop merge analysis (which runs both features' tests on the merged code with it).
TestRunner = Callable[[str, int], FeatureResult]
