"""The task format: ``dataset/<task_id>/task.yaml``.

A task folder is CooperBench-compatible::

    dataset/<task_id>/
        task.yaml             this model
        Dockerfile            builds the task image (takes ``ARG BASE_IMAGE``)
        runner.sh             CooperBench-style runner (kept for compatibility)
        repo.bundle           the source repository with history (when ``source.bundle``)
        feature<N>/feature.md     what feature N asks for
        feature<N>/feature.patch  gold implementation
        feature<N>/tests.patch    tests that fail before and pass after the gold patch
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, PositiveInt, StringConstraints, model_validator

from arena_bot.models.common import (
    Identifier,
    Name,
    NonNegativeFloat,
    RepoPath,
    StrictModel,
    Text,
)

Category = Literal[
    "frontend_development", "backend_development", "data_analysis", "debugging", "refactoring"
]
Difficulty = Literal["beginner", "intermediate", "advanced"]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
DIFFICULTIES: tuple[str, ...] = Difficulty.__args__  # type: ignore[attr-defined]

Sha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]


class Source(StrictModel):
    """Where the task's repository comes from, pinned to a base commit.

    Either ``bundle`` (a git bundle inside the task folder, for offline use) or ``url``.
    """

    bundle: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9._-]+\.bundle$")] | None = None
    url: Annotated[str, StringConstraints(pattern=r"^(https://|git@)\S+$")] | None = None
    commit: Sha

    @model_validator(mode="after")
    def _one_origin(self) -> Source:
        if (self.bundle is None) == (self.url is None):
            raise ValueError("give exactly one of 'bundle' (offline) or 'url'")
        return self


#: A pytest option writing the harness's report (``--junitxml="$ARENA_JUNIT"``).
_REPORT_OPTION = re.compile(r"""--junit-?xml(?:=|\s+)["']?\$\{?ARENA_JUNIT\b""")
_PYTEST_RUN = re.compile(r"(?:^|[\s;&|(/])(?:py\.test|pytest)(?=$|[\s;&|)])")
_LOOP = re.compile(r"\b(?:for|while|until)\b[^;&|]*;?\s*\bdo\b")


def report_writers(command: str) -> int:
    """How many pytest runs of ``command`` write ``$ARENA_JUNIT``, as far as its text says:
    each ``--junitxml="$ARENA_JUNIT"``; every pytest run when ``PYTEST_ADDOPTS`` carries the
    option; two when a loop holds it."""
    options = len(_REPORT_OPTION.findall(command))
    if options and re.search(r"PYTEST_ADDOPTS=[^;&|]*--junit-?xml", command):
        options = max(options, len(_PYTEST_RUN.findall(command)))
    if options and _LOOP.search(command):
        options = max(options, 2)
    return options


class TestSpec(StrictModel):
    """How the task's tests run inside the task image.

    ``command`` runs in the repository folder with ``$ARENA_JUNIT`` set to the path where it
    must write JUnit XML; the verdict is read from that file together with the exit status.
    """

    __test__ = False  # not a pytest test class

    command: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    setup: Annotated[str, StringConstraints(max_length=1000)] | None = None
    timeout: Annotated[int, Field(ge=1, le=3600)] = 600
    result_format: Literal["junit"] = "junit"

    @model_validator(mode="after")
    def _one_report_writer(self) -> TestSpec:
        """One pytest run writes ``$ARENA_JUNIT``: the harness checks the report against the
        outcomes of the run that says it wrote it, and cannot tell a second such run from one
        printed by the code under test (so two would make every result tampered); a second
        run would overwrite the first's report anyway."""
        writers = report_writers(self.command)
        if writers > 1:
            raise ValueError(
                f"the test command writes $ARENA_JUNIT from {writers} pytest runs "
                "(--junitxml in each run, in a loop, or in an exported PYTEST_ADDOPTS): each "
                "run overwrites the report, and the harness takes a second report-writing "
                "run for one forged by the code under test; run the tests in one pytest call "
                "(`python3 -m pytest --junitxml=\"$ARENA_JUNIT\" tests/a tests/b`), or give "
                "--junitxml to one run only")
        return self


class Limits(StrictModel):
    """Resource limits of every container that runs a submission of this task."""

    memory_mb: Annotated[int, Field(ge=64, le=16384)] = 1024
    pids: Annotated[int, Field(ge=16, le=4096)] = 256
    cpus: Annotated[float, Field(gt=0, le=8, allow_inf_nan=False)] = 1.0
    output_bytes: Annotated[int, Field(ge=1024, le=50_000_000)] = 1_000_000
    #: Total size of /workspace (repository plus whatever is written there): a tmpfs, so it
    #: also counts against ``memory_mb``.
    workspace_mb: Annotated[int, Field(ge=64, le=16384)] = 512


class FeatureSpec(StrictModel):
    """One feature of the task; its files live in ``feature<id>/``."""

    id: PositiveInt
    title: Name


class Baseline(StrictModel):
    """Seed 002's default baseline, used while a task has fewer than 5 accepted submissions."""

    median_tokens: NonNegativeFloat = 60_000
    min_tokens: NonNegativeFloat = 5_000
    max_tokens: NonNegativeFloat = 400_000
    median_tool_calls: NonNegativeFloat = 30
    min_tool_calls: NonNegativeFloat = 3
    max_tool_calls: NonNegativeFloat = 150
    median_execution_time: NonNegativeFloat = 300
    min_execution_time: NonNegativeFloat = 60
    max_execution_time: NonNegativeFloat = 1800
    median_cost: NonNegativeFloat = 0.05
    min_cost: NonNegativeFloat = 0.01
    max_cost: NonNegativeFloat = 0.20
    median_iterations: NonNegativeFloat = 3

    @model_validator(mode="after")
    def _ordered(self) -> Baseline:
        for metric in ("tokens", "tool_calls", "execution_time", "cost"):
            low = getattr(self, f"min_{metric}")
            mid = getattr(self, f"median_{metric}")
            high = getattr(self, f"max_{metric}")
            if not low <= mid <= high:
                raise ValueError(f"need min_{metric} <= median_{metric} <= max_{metric}")
        return self


#: Where an answer-based criterion reads the text it scores:
#: ``answer`` (the run's ``final_answer``), ``file:<path>`` (a file of the patched repository)
#: or ``command:<shell command>`` (its standard output in the task container).
Target = Annotated[str, StringConstraints(pattern=r"^(answer|file:\S.*|command:\S.*)$")]
Weight = Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)]


class _Criterion(StrictModel):
    weight: Weight = 1.0
    description: Name | None = None


class TestsPass(_Criterion):
    """Share of the submission's features whose tests pass."""

    type: Literal["tests_pass"]


class FileExists(_Criterion):
    """The file exists in the repository after the patch is applied."""

    type: Literal["file_exists"]
    path: RepoPath


class NoErrors(_Criterion):
    """The run reported ``success: true`` and evaluation hit no error or timeout."""

    type: Literal["no_errors"]


class ExactMatch(_Criterion):
    """Seed 004 §4.1: exact match with partial credit (Levenshtein similarity)."""

    type: Literal["exact_match"]
    expected: Annotated[str, StringConstraints(max_length=5000)]
    target: Target = "answer"


class RegexMatch(_Criterion):
    """Seed 004 §4.2: ``pattern`` (plain or ``/pattern/flags``) must match."""

    type: Literal["regex"]
    pattern: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    target: Target = "answer"


class NumericTolerance(_Criterion):
    """Seed 004 §4.3: a number in the text within tolerance of ``expected``."""

    type: Literal["numeric_tolerance"]
    expected: Annotated[float, Field(allow_inf_nan=False)]
    target: Target = "answer"


class BooleanContains(_Criterion):
    """Seed 004 §4.4: case-insensitive substring check (no ``expected`` → pass)."""

    type: Literal["boolean"]
    expected: Annotated[str, StringConstraints(max_length=5000)] | None = None
    target: Target = "answer"


class LlmJudge(_Criterion):
    """Seed 004 §4.5: an LLM judge scores the text 0–10 against ``rubric``."""

    type: Literal["llm_judge"]
    rubric: Text
    target: Target = "answer"


class CodeJudge(_Criterion):
    """Seed 004 §4.6: a code judge scores 0–100 on weighted criteria (40/30/20/10)."""

    type: Literal["code_judge"]
    rubric: Text
    target: Target


Criterion = Annotated[
    TestsPass
    | FileExists
    | NoErrors
    | ExactMatch
    | RegexMatch
    | NumericTolerance
    | BooleanContains
    | LlmJudge
    | CodeJudge,
    Field(discriminator="type"),
]


def _default_criteria() -> list[Criterion]:
    return [TestsPass(type="tests_pass")]


class Task(StrictModel):
    """A task: a repository at a base commit, features to implement, and how to test them."""

    schema_version: Literal[1] = 1
    id: Identifier
    title: Name
    description: Text
    category: Category
    difficulty: Difficulty
    language: Name
    source: Source
    tests: TestSpec
    features: Annotated[list[FeatureSpec], Field(min_length=1, max_length=50)]
    success_criteria: Annotated[list[Criterion], Field(min_length=1, max_length=50)] = Field(
        default_factory=_default_criteria
    )
    baseline: Baseline = Field(default_factory=Baseline)
    #: Glob patterns (``fnmatch``, ``/``-separated) no submitted patch may touch. The files a
    #: feature's ``tests.patch`` touches are always protected as well.
    protected_paths: Annotated[list[RepoPath], Field(max_length=100)] = Field(
        default_factory=lambda: ["tests/*", "**/conftest.py", "conftest.py"]
    )
    limits: Limits = Field(default_factory=Limits)

    @model_validator(mode="after")
    def _features_contiguous(self) -> Task:
        ids = [feature.id for feature in self.features]
        if ids != list(range(1, len(ids) + 1)):
            raise ValueError(f"feature ids must be 1..N in order, got {ids}")
        if sum(criterion.weight for criterion in self.success_criteria) <= 0:
            raise ValueError("success_criteria weights must not all be zero")
        return self

    def feature_ids(self) -> list[int]:
        return [feature.id for feature in self.features]


class ExpectedTests(StrictModel):
    """``feature<N>/expected_tests.json``: the test ids one feature's verdict requires,
    recorded by ``arena dataset check`` from the gold patch and the bare base commit (the
    SWE-bench rule). Ids are JUnit case names, ``module.path::test_name``."""

    schema_version: Literal[1] = 1
    #: Fail (or are missing) on the bare base commit, pass with the gold patch.
    fail_to_pass: list[str] = Field(default_factory=list)
    #: Pass on both: the submission must not break them.
    pass_to_pass: list[str] = Field(default_factory=list)
    #: Different outcomes across repeated gold runs: reported, never required.
    flaky: list[str] = Field(default_factory=list)
    #: Fail in every gold run and on the untouched base commit (its own tests, no patch):
    #: tests that cannot pass in the sandbox (a download its missing network stops).
    #: Reported, never required, and their failure counts against no run.
    always_failing: list[str] = Field(default_factory=list)
